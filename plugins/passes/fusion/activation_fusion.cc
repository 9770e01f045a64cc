#include "activation_fusion.h"

#include "fusion_util.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::fusion {

namespace {

/// The ops an activation fuses into.
const std::vector<std::string> kProducers = {"Conv", "ConvTranspose", "Gemm", "MatMul", "ge::FusedMatMul"};

}  // namespace

std::vector<Pattern> ActivationFusion::patterns() const {
  Pattern p("op_activation");
  PatternOp& producer = p.op(kProducers, {p.any("a")}, "producer").allow_extra_inputs();
  // ge::HardSwish: fuse_hard_swish's op where the model's opset predates HardSwish.
  p.op({"Relu", "Clip", "Sigmoid", "HardSigmoid", "LeakyRelu", "Tanh", "HardSwish", "ge::HardSwish", "ge::Gelu"}, {producer},
       "activation")
      .allow_extra_inputs();
  // SiLU as exporters write it, y * Sigmoid(y) (torch's nn.SiLU): the Swish activation.
  Pattern swish("op_swish");
  PatternOp& swish_producer = swish.op(kProducers, {swish.any("a")}, "producer").allow_extra_inputs();
  swish.op("Mul", {swish_producer, swish.op("Sigmoid", {swish_producer}, "sigmoid")}, "activation").commutative();
  std::vector<Pattern> list;
  list.push_back(std::move(p));
  list.push_back(std::move(swish));
  return list;
}

bool ActivationFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  const Node& producer = *match.node("producer");
  if (!producer.get_string("activation", "").empty()) {
    reason = producer.describe() + " already has an activation";
    return false;
  }
  if (!fused_activation_params(*match.node("activation"))) {
    reason = "the Clip bounds are not constant scalars (or the Gelu approximation is unknown)";
    return false;
  }
  return true;
}

Status ActivationFusion::replacement(const Match& match, Replacement& r) const {
  const Node& producer = *match.node("producer");
  const Node& act = *match.node("activation");
  const std::string fused_type = producer.op_type() == "Conv"            ? "FusedConv"
                                 : producer.op_type() == "ConvTranspose" ? "FusedConvTranspose"
                                 : producer.op_type() == "Gemm"          ? "FusedGemm"
                                                                         : "FusedMatMul";
  std::vector<Value*> inputs;
  for (Value* in : producer.inputs()) inputs.push_back(r.use(in));
  Node* fused = r.add_node(fused_type, inputs, producer.name(), "ge");
  for (const auto& [key, attribute] : producer.attributes()) fused->set_attribute(key, attribute);
  fused->set_attribute("activation", match.node("sigmoid") != nullptr ? std::string("Swish") : act.op_type());
  std::vector<float> params = *fused_activation_params(act);
  if (!params.empty()) fused->set_attribute("activation_params", params);
  return Status::ok();
}

}  // namespace ge::fusion
