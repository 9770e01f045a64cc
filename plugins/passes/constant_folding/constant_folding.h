#pragma once
/// Constant folding: evaluates nodes whose inputs are all constants on the reference
/// backend (PassContext::reference_backend, with ge::evaluate_node) and replaces their
/// outputs by initializers, in the graph and its subgraphs (where a capture of an
/// enclosing scope's initializer is that constant). Shape and Size of values with
/// a static shape fold without evaluation, so the shape arithmetic on them folds next
/// and the re-inference after the pass makes Reshape/Expand/ConstantOfShape static.
/// Never folds random ops, ops with subgraphs, non-tensor values, or an output larger
/// than the cap. An op the reference backend cannot run is left alone.

#include <cstdint>

#include "ge/plugin_api/pass.h"

namespace ge::passes {

class ConstantFolding final : public Pass {
 public:
  /// `max_folded_bytes` caps the size of each folded tensor.
  explicit ConstantFolding(int64_t max_folded_bytes = kDefaultMaxFoldedBytes) : max_folded_bytes_(max_folded_bytes) {}
  static constexpr int64_t kDefaultMaxFoldedBytes = int64_t{16} << 20;

  std::string name() const override { return "constant_folding"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;

 private:
  int64_t max_folded_bytes_;
};

}  // namespace ge::passes
