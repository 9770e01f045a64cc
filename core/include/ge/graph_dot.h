#pragma once
/// Graphviz DOT export for pictures of a graph.

#include <string>

#include "ge/graph.h"

namespace ge {

/// DOT text: one box per node (op type and name), an edge per data use labelled with the
/// value's name and type, dashed edges for control dependencies.
std::string graph_to_dot(const Graph& graph);

}  // namespace ge
