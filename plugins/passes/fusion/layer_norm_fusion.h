#pragma once
/// fuse_layer_norm: the decomposed layer normalisation
///   d = X - ReduceMean(X); Y = d / Sqrt(ReduceMean(d ^ 2) + epsilon) [* gamma] [+ beta]
/// (d ^ 2 as Pow(d, 2) or Mul(d, d); both means over the same trailing axes, keepdims)
/// becomes LayerNormalization(X, gamma, beta) {axis, epsilon}: the ai.onnx op from opset
/// 17, the ge-domain copy (from -O3) in older models, whose ReduceMean form is the same.
/// gamma and beta must be constants broadcasting to the normalised shape; an absent
/// gamma becomes ones.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class LayerNormFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_layer_norm"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
