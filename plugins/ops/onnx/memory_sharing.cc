#include "memory_sharing.h"

#include <string_view>
#include <unordered_set>

#include "ge/graph_queries.h"

namespace ge::onnx_ops {
namespace {

// Built once on first use; function-local static initialisation is thread-safe and the
// set is never written afterwards.
const std::unordered_set<std::string_view>& in_place_ops() {
  // clang-format off
  static const std::unordered_set<std::string_view> ops = {
      // unary math
      "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf", "Not",
      // trigonometric and hyperbolic
      "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Tanh",
      // activations
      "Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Softplus",
      "Softsign", "ThresholdedRelu", "Mish", "Clip",
      // binary arithmetic and logic under broadcasting
      "Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "And", "Or", "Xor",
      // variadic, selection, normalization with per-channel parameters
      "Sum", "Mean", "Max", "Min", "Where", "BatchNormalization"};
  // clang-format on
  return ops;
}

}  // namespace

std::vector<InPlacePair> in_place_pairs_for(const std::string& domain, const std::string& op_type) {
  if (!is_onnx_domain(domain) || in_place_ops().count(op_type) == 0) return {};
  // Any input: one of the same element count as the output is read at the position
  // written (a broadcast input has fewer elements and the planner passes it by).
  return {InPlacePair{InPlacePair::kEveryInput, 0}};
}

bool is_view_op(const std::string& domain, const std::string& op_type) {
  return is_onnx_domain(domain) && (op_type == "Reshape" || op_type == "Flatten" || op_type == "Squeeze" ||
                                        op_type == "Unsqueeze" || op_type == "Identity");
}

std::string concatenation_axis_attribute(const std::string& domain, const std::string& op_type) {
  return is_onnx_domain(domain) && op_type == "Concat" ? "axis" : "";
}

bool is_constant_op(const std::string& domain, const std::string& op_type) {
  return is_onnx_domain(domain) && op_type == "Constant";
}

}  // namespace ge::onnx_ops
