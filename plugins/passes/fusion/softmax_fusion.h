#pragma once
/// fuse_softmax: Exp(x) / ReduceSum(Exp(x), [axis], keepdims=1) -> Softmax(x, axis), also
/// with the stabilising x - ReduceMax(x, [axis], keepdims=1) in front of the Exp. Before
/// opset 13 Softmax flattens from `axis`, so only the last axis qualifies there.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class SoftmaxFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_softmax"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
