#pragma once
/// fuse_gelu (-O3): the decomposed GELU becomes one ge::Gelu {approximate}.
/// - erf form:  0.5 * x * (1 + Erf(x / sqrt(2)))   (or x * (1 / sqrt(2)))
/// - tanh form: 0.5 * x * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
///   (x^3 as Pow(x, 3) or x * x * x)
/// in each of the three ways the products associate; operands of Add and Mul in any order.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class GeluFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_gelu"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
