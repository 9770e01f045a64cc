#pragma once
/// fuse_matmul_add: MatMul(A, B) + C -> Gemm(A, B, C) where Gemm can express it: A and B
/// 2-D and C broadcasting to [M, N]. (N-D products keep their MatMul; fuse_matmul_bias
/// takes them at -O3.)

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class MatMulAddFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_matmul_add"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
