#pragma once
/// fuse_matmul_bias (-O3): MatMul(A, B) + bias -> ge::FusedMatMul(A, B, bias), the bias
/// broadcasting into the product without changing its shape (the N-D products Gemm
/// cannot take, as in a transformer's projections).

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class MatMulBiasFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_matmul_bias"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
