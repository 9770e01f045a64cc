#pragma once
/// Cuts a set of nodes out of a graph as a standalone graph: what the per-op executor
/// sinks into the task sink when part of a graph is static (a static cluster between
/// host ops or data-dependent shapes, or the whole body of an If/Loop/Scan).

#include <memory>
#include <vector>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge {

struct GraphCluster {
  /// Owns copies of the nodes; no parent; the opsets of the source graph and its
  /// enclosing graphs. Runtime inputs are `inputs`' copies in order, outputs `outputs`'.
  std::unique_ptr<Graph> graph;
  /// Values of the source graph the cluster reads and does not produce (graph inputs,
  /// outputs of other nodes, captures); constants become initializers instead.
  std::vector<const Value*> inputs;
  /// Values of the source graph the cluster produces (or passes through) that the rest
  /// of the graph needs.
  std::vector<const Value*> outputs;
};

/// A standalone graph of `nodes` (nodes of one graph, in a topological order) whose
/// outputs are `outputs`. Fails with kUnsupported for a node holding a subgraph.
Result<GraphCluster> extract_cluster(const std::vector<Node*>& nodes, const std::vector<const Value*>& outputs);

}  // namespace ge
