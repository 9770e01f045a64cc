#pragma once
/// No-op elimination: removes nodes that pass their input through unchanged, in the graph
/// and its subgraphs:
/// - Identity; Dropout in inference mode (no training_mode, or a constant false one) whose
///   mask is unused; Cast to the input's own dtype; a Cast back from a Cast that widened
///   exactly (float16 -> float32 -> float16, int8 -> int32 -> int8, ...; not
///   float32 -> float16 -> float32, which rounds);
/// - Reshape, Squeeze, Unsqueeze and Flatten chains that end at the static shape they
///   started from, and Unsqueeze/Squeeze (or Squeeze/Unsqueeze) pairs on the same axes;
/// - Transpose with the identity permutation, Transpose pairs that cancel (a pair that
///   does not cancel becomes one Transpose).
/// A bypassed output that is a graph output or captured by a subgraph keeps its name: the
/// surviving value takes it over, or the node stays when that is not possible.

#include "ge/plugin_api/pass.h"

namespace ge::passes {

class NoOpElimination final : public Pass {
 public:
  std::string name() const override { return "noop_elimination"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::passes
