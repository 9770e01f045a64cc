#pragma once
/// fuse_conv_residual (-O3): Conv followed by an Add of a same-shaped tensor (a residual
/// connection), optionally then an activation (Relu, LeakyRelu, Sigmoid, Tanh, HardSwish,
/// HardSigmoid), becomes one ge::FusedConv(X, W, B, Z) {activation}:
/// y = act(conv(x) + b + z). The cpu backend runs it as one oneDNN convolution with a
/// binary-add post-op, so the residual costs no extra pass over memory. Runs before
/// fuse_activation.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class ConvResidualFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_conv_residual"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
