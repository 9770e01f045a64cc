#include "fusion_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ge/minifloat.h"
#include "ge/plugin_api/graph_rewrite.h"
#include "ge/plugin_api/pattern_match.h"

namespace ge::fusion {

bool is_float_type(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
         type == DataType::kBFloat16;
}

std::optional<std::vector<int64_t>> static_dims(const Value* value) {
  if (value == nullptr || value->desc().kind != ValueKind::kTensor || !value->desc().is_static()) return std::nullopt;
  return value->desc().static_dims();
}

std::vector<double> to_doubles(const Tensor& tensor) {
  std::vector<double> values(static_cast<size_t>(tensor.element_count()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = tensor.scalar_as_double(static_cast<int64_t>(i));
  return values;
}

Tensor from_doubles(DataType dtype, std::vector<int64_t> dims, const std::vector<double>& values) {
  Tensor tensor = Tensor::zeros(dtype, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DataType::kFloat64) {
      tensor.data<double>()[i] = values[i];
    } else if (dtype == DataType::kFloat16) {
      tensor.data<uint16_t>()[i] = float16_from_double(values[i]);
    } else if (dtype == DataType::kBFloat16) {
      tensor.data<uint16_t>()[i] = bfloat16_from_double(values[i]);
    } else {
      tensor.data<float>()[i] = static_cast<float>(values[i]);
    }
  }
  return tensor;
}

bool broadcasts_to(const std::vector<int64_t>& dims, const std::vector<int64_t>& target) {
  if (dims.size() > target.size()) return false;
  const size_t offset = target.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1 && dims[i] != target[offset + i]) return false;
  }
  return true;
}

bool broadcasts_into(const TensorDesc& operand, const TensorDesc& target) {
  if (!operand.is_static() || !target.has_rank() || operand.rank() > target.rank()) return false;
  const std::vector<int64_t> dims = operand.static_dims();
  const size_t offset = static_cast<size_t>(target.rank()) - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    const Dim& t = (*target.shape)[offset + i];
    if (dims[i] != 1 && !(t.is_static() && t.value == dims[i])) return false;
  }
  return true;
}

std::vector<double> broadcast_values(const Tensor& tensor, const std::vector<int64_t>& target) {
  const std::vector<double> source = to_doubles(tensor);
  const std::vector<int64_t>& dims = tensor.shape();
  const size_t offset = target.size() - dims.size();
  std::vector<int64_t> strides(target.size(), 0);
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[offset + i] = dims[i] == 1 ? 0 : stride;
    stride *= dims[i];
  }
  std::vector<double> result(static_cast<size_t>(element_count(target)));
  std::vector<int64_t> index(target.size(), 0);
  for (size_t flat = 0; flat < result.size(); ++flat) {
    int64_t at = 0;
    for (size_t d = 0; d < target.size(); ++d) at += index[d] * strides[d];
    result[flat] = source[static_cast<size_t>(at)];
    for (size_t d = target.size(); d-- > 0;) {
      if (++index[d] < target[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

int64_t onnx_opset(const Node& node) {
  const Graph* graph = node.graph();
  // "ai.onnx" finds an import under either name of the default domain.
  int64_t version = graph != nullptr ? graph->opset_version("ai.onnx") : 0;
  return version > 0 ? version : 17;
}

bool near(double actual, double expected, double relative_tolerance) {
  return std::fabs(actual - expected) <= relative_tolerance * std::max(1.0, std::fabs(expected));
}

double constant_tolerance(DataType dtype) {
  if (dtype == DataType::kFloat16) return 1.0 / 1024;
  if (dtype == DataType::kBFloat16) return 1.0 / 128;
  return 1e-4;
}

PatternValue rounded_scalar(Pattern& pattern, double value, std::string capture) {
  PatternValue v = pattern.constant(std::move(capture));
  char text[64];
  std::snprintf(text, sizeof(text), "a constant equal to %g (in its dtype's precision)", value);
  pattern.where(v, text, [value](const Value& candidate) {
    std::optional<double> actual = constant_scalar(&candidate);
    const double tolerance = constant_tolerance(candidate.desc().dtype);
    return actual && near(*actual, value, tolerance);
  });
  return v;
}

std::optional<std::pair<float, float>> clip_bounds(const Node& clip) {
  float low = std::numeric_limits<float>::lowest(), high = std::numeric_limits<float>::max();
  if (onnx_opset(clip) < 11) return std::pair{clip.get_float("min", low), clip.get_float("max", high)};
  for (size_t i = 1; i <= 2; ++i) {
    const Value* input = i < clip.input_count() ? clip.input(i) : nullptr;
    if (input == nullptr) continue;
    std::optional<double> bound = constant_scalar(input);
    if (!bound || input->constant()->element_count() != 1) return std::nullopt;
    (i == 1 ? low : high) = static_cast<float>(*bound);
  }
  return std::pair{low, high};
}

std::optional<std::vector<float>> fused_activation_params(const Node& act) {
  const std::string& op = act.op_type();
  if (op == "LeakyRelu") return std::vector<float>{act.get_float("alpha", 0.01f)};
  if (op == "HardSigmoid") return std::vector<float>{act.get_float("alpha", 0.2f), act.get_float("beta", 0.5f)};
  if (op == "Gelu") {
    const std::string approximate = act.get_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh") return std::nullopt;
    return std::vector<float>{approximate == "tanh" ? 1.f : 0.f};
  }
  if (op == "Clip") {
    std::optional<std::pair<float, float>> bounds = clip_bounds(act);
    if (!bounds) return std::nullopt;
    return std::vector<float>{bounds->first, bounds->second};
  }
  return std::vector<float>{};
}

bool broadcasts_like_numpy(const Match& match, std::string& reason) {
  for (const Node* node : match.nodes()) {
    // Only the legacy binary ops have both attributes.
    if (onnx_opset(*node) >= 7 || !node->has_attribute("axis") || node->get_int("broadcast", 0) == 0) continue;
    const Value* a = node->input_count() == 2 ? node->input(0) : nullptr;
    const Value* b = node->input_count() == 2 ? node->input(1) : nullptr;
    if (a != nullptr && b != nullptr && a->desc().has_rank() && b->desc().has_rank()) {
      const int64_t a_rank = a->desc().rank();
      int64_t axis = node->get_int("axis", 0);
      if (axis < 0) axis += a_rank;
      if (axis == a_rank - b->desc().rank()) continue;  // B a suffix of A: numpy's alignment
    }
    reason = node->describe() + " broadcasts B from axis " + std::to_string(node->get_int("axis", 0)) + " (opset " +
             std::to_string(onnx_opset(*node)) + "), not right-aligned as the fused form would";
    return false;
  }
  return true;
}

std::optional<std::string> standard_op_domain(const Node& anchor, const std::string& op_type, int64_t since_opset,
                                              int opt_level, std::string& reason) {
  const int64_t opset = onnx_opset(anchor);
  if (opset >= since_opset) return std::string();
  if (opt_level >= kGeDomainOptLevel) return std::string("ge");
  reason = "ai.onnx opset " + std::to_string(opset) + " has no " + op_type + " (it is in opset " +
           std::to_string(since_opset) + " on); the ge-domain " + op_type + " is built from -O" +
           std::to_string(kGeDomainOptLevel);
  return std::nullopt;
}

}  // namespace ge::fusion
