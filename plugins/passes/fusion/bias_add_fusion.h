#pragma once
/// fuse_bias_add: a bias Add folds into the op before it.
/// - Conv(X, W, [B]) + C, C constant and per output channel (1 on every other axis):
///   Conv(X, W, B + C).
/// - Gemm(A, B, [C]) + D, D broadcasting to [M, N]: Gemm(A, B, D) (beta = 1), or with a C
///   (both constant) Gemm(A, B, beta * C + D).

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class BiasAddFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_bias_add"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
