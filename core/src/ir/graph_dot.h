#pragma once
/// Graphviz DOT export for pictures of a graph.

#include <string>

#include "ge/graph.h"

namespace ge {

/// DOT text: one box per node ("OpType\nname", domain-qualified when not ai.onnx), graph
/// inputs as ellipses, initializers as notes, captures as dashed ellipses, graph outputs
/// as bold ellipses; an edge per data use labelled "name\ndtype[shape]", dashed edges for
/// control dependencies. Subgraphs are clusters beside their node, with a dotted edge from
/// each enclosing value a capture stands for. Labels are escaped, so any name is valid DOT.
std::string graph_to_dot(const Graph& graph);

}  // namespace ge
