#pragma once
/// Structural checks on a Graph: acyclic, every use defined (in this graph or, for
/// captures, an enclosing one), use lists consistent, outputs defined, types of a value
/// consistent with what its users see, subgraphs valid.

#include "ge/graph.h"
#include "ge/status.h"

namespace ge {

/// Ok when `graph` (and its subgraphs) is well formed; otherwise the first problem,
/// naming the node and value.
Status verify_graph(const Graph& graph);

}  // namespace ge
