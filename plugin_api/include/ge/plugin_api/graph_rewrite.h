#pragma once
/// Editing a graph from a pass plugin: the names subgraphs capture, opset imports, and
/// bypassing a node without breaking output names or captures. Includes the helpers
/// passes use alongside: attribute_equality.h and constant_values.h.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "ge/graph.h"
#include "ge/plugin_api/attribute_equality.h"
#include "ge/plugin_api/constant_values.h"
#include "ge/status.h"

namespace ge {

/// Names of values that subgraphs of `graph`'s nodes capture from `graph` (or beyond):
/// such a value is used without appearing in any use list.
std::set<std::string> captured_names(const Graph& graph);

/// The top-level graph of `graph`'s tree.
Graph& root_graph(Graph& graph);
/// Imports `domain` at `version` in the top-level graph unless some graph up the tree
/// already imports it.
void ensure_opset_import(Graph& graph, const std::string& domain, int64_t version);

/// Replaces every use of `node`'s output `output_index` by `replacement` and removes the
/// node when it has no other used output. When that output is a graph output or is
/// captured by a subgraph, `replacement` takes over its name, which is only possible when
/// `replacement` is a node output of the same graph that is not itself a graph output or
/// captured; otherwise nothing changes and the result is false.
/// `captured` (when given) must be captured_names(graph); passes that bypass many nodes
/// compute it once.
Result<bool> bypass_output(Graph& graph, Node& node, size_t output_index, Value* replacement,
                           const std::set<std::string>* captured = nullptr);

}  // namespace ge
