#pragma once
/// fuse_hard_swish: the spellings of HardSwish that exporters write become one HardSwish:
/// - x * Clip(x + 3, 0, 6) / 6 (Clip(0, 6) is how Relu6 exports), the / 6 also as
///   * (1/6), applied to x * Clip, to the Clip or to x;
/// - x * HardSigmoid(x) {alpha = 1/6, beta = 0.5}.
/// Add and Mul operands in any order; the constants are checked by value (1e-4 relative).
/// It builds the ai.onnx HardSwish from opset 14 and, in older models, the ge-domain copy
/// (from -O3). fuse_activation then takes a HardSwish after a Conv, Gemm or MatMul.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class HardSwishFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_hard_swish"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
