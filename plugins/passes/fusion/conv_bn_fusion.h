#pragma once
/// fuse_conv_bn: Conv(X, W, [B]) -> BatchNormalization (inference) folds into one Conv
/// with W' = W * s and B' = (B - mean) * s + bias, s = scale / sqrt(var + epsilon) per
/// output channel. Every parameter must be a constant.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class ConvBatchNormFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_conv_bn"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
