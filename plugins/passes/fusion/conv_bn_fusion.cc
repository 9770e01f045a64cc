#include "conv_bn_fusion.h"

#include <cmath>

#include "fusion_util.h"

namespace ge::fusion {

std::vector<Pattern> ConvBatchNormFusion::patterns() const {
  Pattern p("conv_bn");
  PatternOp& conv = p.op("Conv", {p.any("x"), p.constant("w"), Pattern::maybe(p.constant("b"))}, "conv");
  p.op("BatchNormalization",
       {conv, p.constant("scale"), p.constant("bias"), p.constant("mean"), p.constant("var")}, "bn")
      .attr("training_mode", int64_t{0}, Attribute(int64_t{0}))
      .attr("spatial", int64_t{1}, Attribute(int64_t{1}));
  std::vector<Pattern> list;
  list.push_back(std::move(p));
  return list;
}

bool ConvBatchNormFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  const Tensor& w = *match.constant("w");
  if (!is_float_type(w.dtype()) || w.rank() < 3) {
    reason = "W is " + std::string(data_type_name(w.dtype())) + shape_to_string(w.shape()) +
             ", expected a float tensor of rank >= 3";
    return false;
  }
  const int64_t channels = w.shape()[0];
  for (const char* name : {"scale", "bias", "mean", "var", "b"}) {
    const Tensor* t = match.constant(name);
    if (t == nullptr) continue;  // an absent Conv bias
    if (t->dtype() != w.dtype() || t->shape() != std::vector<int64_t>{channels}) {
      reason = std::string("BatchNormalization/Conv parameter '") + name + "' is " +
               std::string(data_type_name(t->dtype())) + shape_to_string(t->shape()) + ", expected " +
               std::string(data_type_name(w.dtype())) + "[" + std::to_string(channels) + "]";
      return false;
    }
  }
  return true;
}

Status ConvBatchNormFusion::replacement(const Match& match, Replacement& r) const {
  const Node& conv = *match.node("conv");
  const Node& bn = *match.node("bn");
  const Tensor& w = *match.constant("w");
  const double epsilon = bn.get_float("epsilon", 1e-5f);
  const std::vector<double> scale = to_doubles(*match.constant("scale"));
  const std::vector<double> bias = to_doubles(*match.constant("bias"));
  const std::vector<double> mean = to_doubles(*match.constant("mean"));
  const std::vector<double> var = to_doubles(*match.constant("var"));
  const std::vector<double> b = match.constant("b") ? to_doubles(*match.constant("b")) : std::vector<double>(scale.size(), 0.0);
  std::vector<double> weights = to_doubles(w);
  const size_t per_channel = weights.size() / scale.size();
  std::vector<double> folded_bias(scale.size());
  for (size_t c = 0; c < scale.size(); ++c) {
    const double s = scale[c] / std::sqrt(var[c] + epsilon);
    for (size_t i = 0; i < per_channel; ++i) weights[c * per_channel + i] *= s;
    folded_bias[c] = (b[c] - mean[c]) * s + bias[c];
  }
  Value* new_w = r.constant(conv.name() + "_w_bn", from_doubles(w.dtype(), w.shape(), weights));
  Value* new_b = r.constant(conv.name() + "_b_bn", from_doubles(w.dtype(), {static_cast<int64_t>(scale.size())}, folded_bias));
  Node* fused = r.add_node("Conv", {r.use("x"), new_w, new_b}, conv.name());
  for (const auto& [key, attribute] : conv.attributes()) fused->set_attribute(key, attribute);
  return Status::ok();
}

}  // namespace ge::fusion
