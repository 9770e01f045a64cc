#pragma once
/// Common subexpression elimination: merges nodes that compute the same thing — same
/// domain, op type and output count, the same input values (in any order for
/// commutative ops) and equal attributes — and identical constants, in the graph and
/// each subgraph. Never merges random ops, ops with subgraphs or control edges, ops
/// outside the ai.onnx / ai.onnx.ml / ge domains (whose side effects are unknown), or a
/// node whose output is a graph output. The first node in topological order survives;
/// subgraphs that captured a merged value follow it to the survivor's name.

#include "ge/plugin_api/pass.h"

namespace ge::passes {

class CommonSubexpressionElimination final : public Pass {
 public:
  std::string name() const override { return "cse"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::passes
