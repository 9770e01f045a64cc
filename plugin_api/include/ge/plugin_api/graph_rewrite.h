#pragma once
/// Small graph-editing helpers shared by pass plugins: comparing attributes and tensors,
/// reading constants, and bypassing a node without breaking output names or captures.

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/attribute.h"
#include "ge/graph.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge {

/// Same dtype, shape and elements (bitwise for floats, so NaN payloads count).
bool tensors_equal(const Tensor& a, const Tensor& b);
/// A hash consistent with tensors_equal.
size_t hash_tensor(const Tensor& tensor);
/// Same type and value; tensors by tensors_equal, graphs by identity. An int and a float
/// attribute are equal when their values are.
bool attributes_equal(const Attribute& a, const Attribute& b);

/// An initializer that is not also a graph input (whose value a caller could override).
bool is_constant_value(const Value* value);
/// The common value of every element of a constant (numeric or bool, at least one
/// element); nullopt when `value` is not a constant or its elements differ.
std::optional<double> constant_scalar(const Value* value);
/// The contents of an integer constant; nullopt when not one.
std::optional<std::vector<int64_t>> constant_ints(const Value* value);

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

/// Axes given as attribute `attribute` (older opsets) or as constant input `input_index`
/// (newer ones), normalised to [0, rank). nullopt when absent or not constant, or out of
/// range.
std::optional<std::vector<int64_t>> node_axes(const Node& node, const std::string& attribute, size_t input_index,
                                              int64_t rank);

}  // namespace ge
