#pragma once
/// Structural checks on a Graph: acyclic, every use defined (in this graph or, for
/// captures, an enclosing one), use lists consistent, outputs defined, types of a value
/// consistent with what its users see, subgraphs valid.

#include "ge/graph.h"
#include "ge/status.h"

namespace ge {

/// Ok when `graph` (and its subgraphs) is well formed; otherwise the first problem as
/// kInvalidArgument, naming the graph, the node (Node::describe()) and the value (%name).
/// Checks, per graph: inputs, initializers (with data whose dtype/shape the declared type
/// does not contradict), captures and node outputs belong to this graph with correct
/// producer back-pointers, and non-empty names are unique; every node input is a value of
/// this graph (a capture stands for an enclosing value) and its use list has exactly that
/// entry, and every use-list entry matches the user's input; unnamed (omitted) outputs have
/// no uses; graph outputs are non-null values of this graph; control predecessors are
/// nodes of this graph; captures resolve by name through the parent() chain; subgraphs
/// have this graph as parent and are verified recursively; the graph is acyclic
/// (Graph::topological_order). A subgraph's messages start with its location, e.g.
/// "graph 'body' (attribute 'body' of Loop 'loop' in graph 'main'): ...". Never
/// dereferences a value or node pointer that no graph of the tree owns.
Status verify_graph(const Graph& graph);

}  // namespace ge
