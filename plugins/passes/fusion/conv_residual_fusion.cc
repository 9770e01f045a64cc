#include "conv_residual_fusion.h"

#include "fusion_util.h"

namespace ge::fusion {
namespace {

const std::vector<std::string> kActivations = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSwish", "HardSigmoid"};

Pattern make(bool with_activation) {
  Pattern p(with_activation ? "conv_add_activation" : "conv_add");
  PatternOp& conv = p.op("Conv", {p.any("x"), p.constant("w"), Pattern::maybe(p.constant("b"))}, "conv");
  PatternOp& add = p.op("Add", {conv, p.any("z")}, "add").commutative();
  if (with_activation) p.op(kActivations, {add}, "activation");
  return p;
}

}  // namespace

std::vector<Pattern> ConvResidualFusion::patterns() const {
  std::vector<Pattern> list;
  list.push_back(make(true));
  list.push_back(make(false));
  return list;
}

bool ConvResidualFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  const TensorDesc& y = match.node("conv")->output(0)->desc();
  const TensorDesc& z = match.value("z")->desc();
  if (!y.is_static() || z.shape != y.shape || z.dtype != y.dtype || !is_float_type(y.dtype)) {
    reason = "the residual " + z.to_string() + " must be a float tensor of the Conv output's shape and dtype " +
             y.to_string();
    return false;
  }
  if (match.value("z") == match.node("conv")->output(0)) {
    reason = "the Add adds the Conv output to itself";
    return false;
  }
  return true;
}

Status ConvResidualFusion::replacement(const Match& match, Replacement& r) const {
  const Node& conv = *match.node("conv");
  Value* bias = r.use("b");
  if (bias == nullptr) {
    const int64_t channels = match.constant("w")->shape()[0];
    const DataType dtype = conv.output(0)->desc().dtype;
    bias = r.constant(conv.name() + "_bias", from_doubles(dtype, {channels}, std::vector<double>(channels)));
  }
  Node* fused = r.add_node("FusedConv", {r.use("x"), r.use("w"), bias, r.use("z")}, conv.name(), "ge");
  for (const auto& [key, attribute] : conv.attributes()) fused->set_attribute(key, attribute);
  if (const Node* act = match.node("activation")) {
    fused->set_attribute("activation", act->op_type());
    std::vector<float> params = fused_activation_params(*act).value_or(std::vector<float>{});
    if (!params.empty()) fused->set_attribute("activation_params", params);
  }
  return Status::ok();
}

}  // namespace ge::fusion
