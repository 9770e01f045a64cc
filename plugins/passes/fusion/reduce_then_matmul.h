#pragma once
/// reduce_then_matmul: ReduceSum / ReduceMean over axes other than the last of
/// MatMul(A, B) with B 2-D -> MatMul(Reduce(A), B). The product is linear in each row of
/// A, so reducing A's rows first gives the same result (up to rounding) with the product
/// computed for the reduced rows only: pooling after a projection (a linear layer, then a
/// sum or mean over tokens, frames or kept rows) costs one row's product instead of N.
/// Float types only; not when the product has other users, or the reduction covers the
/// last axis, or every reduced extent is 1.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class ReduceMatMulReorder final : public PatternFusionPass {
 public:
  std::string name() const override { return "reduce_then_matmul"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
