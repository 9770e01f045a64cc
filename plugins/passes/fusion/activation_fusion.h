#pragma once
/// fuse_activation (-O3): Conv, ConvTranspose, Gemm, MatMul or ge::FusedMatMul followed by
/// an activation (Relu, Clip with constant bounds, e.g. Relu6, Sigmoid, HardSigmoid,
/// LeakyRelu, Tanh, HardSwish, also ge::HardSwish, and SiLU written y * Sigmoid(y), fused
/// as `Swish`) becomes one ge::FusedConv /
/// ge::FusedConvTranspose / ge::FusedGemm / ge::FusedMatMul node with `activation` and `activation_params`, which the cpu backend
/// runs as one kernel. Runs after fuse_hard_swish, whose HardSwish it takes.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class ActivationFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_activation"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
