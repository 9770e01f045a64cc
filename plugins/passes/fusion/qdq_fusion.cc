#include "qdq_fusion.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fusion_util.h"
#include "ge/graph_queries.h"
#include "ge/plugin_api/constant_values.h"

namespace ge::fusion {
namespace {

constexpr double kInt32Max = static_cast<double>(std::numeric_limits<int32_t>::max());

bool is_8bit(DataType type) { return type == DataType::kInt8 || type == DataType::kUInt8; }
int64_t lowest(DataType type) { return type == DataType::kInt8 ? -128 : 0; }
int64_t highest(DataType type) { return type == DataType::kInt8 ? 127 : 255; }
std::string type_name(DataType type) { return std::string(data_type_name(type)); }

/// The quantisation of one operand, read from its DequantizeLinear (or the root's
/// QuantizeLinear): the graph values that stay and their numbers.
struct Quantization {
  const Node* node = nullptr;
  Value* data = nullptr;  ///< DequantizeLinear's integer input (null for QuantizeLinear)
  Value* scale = nullptr;
  Value* zero = nullptr;                  ///< null when omitted
  DataType dtype = DataType::kUndefined;  ///< the integer type
  std::vector<double> scales;             ///< one per tensor, or one per channel along `axis`
  std::vector<int64_t> zeros;             ///< as many as `scales`
  int64_t axis = 0;

  bool per_channel() const { return scales.size() > 1; }
  double scale_at(int64_t channel) const { return scales[per_channel() ? static_cast<size_t>(channel) : 0]; }
  int64_t zero_at(int64_t channel) const { return zeros[per_channel() ? static_cast<size_t>(channel) : 0]; }
};

/// Reads the scale and zero point of a QuantizeLinear / DequantizeLinear `node` whose
/// integer side has type `dtype` and rank `rank` (-1: unknown). nullopt with `reason`
/// where they are not constants that QLinearConv / QLinearMatMul can take.
std::optional<Quantization> read_quantization(const Node& node, DataType dtype, int64_t rank, std::string& reason) {
  Quantization q;
  q.node = &node;
  q.dtype = dtype;
  if (node.get_int("block_size", 0) != 0) {
    reason = node.describe() +
             " uses blocked quantisation (block_size = " + std::to_string(node.get_int("block_size", 0)) +
             "), which QLinearConv / QLinearMatMul do not take";
    return std::nullopt;
  }
  q.scale = node.input(1);
  q.zero = node.input(2);
  if (!is_constant_value(q.scale)) {
    reason = "the scale of " + node.describe() + " is not a constant";
    return std::nullopt;
  }
  const Tensor& scale = *q.scale->constant();
  if (scale.dtype() != DataType::kFloat32) {
    reason = "the scale of " + node.describe() + " is " + type_name(scale.dtype()) +
             "; QLinearConv / QLinearMatMul take float32 scales";
    return std::nullopt;
  }
  if (scale.rank() > 1 || scale.element_count() < 1) {
    reason = "the scale of " + node.describe() + " has shape " + shape_to_string(scale.shape()) +
             ", expected a scalar or a 1-D tensor";
    return std::nullopt;
  }
  q.scales = to_doubles(scale);
  for (double s : q.scales) {
    if (!(s > 0) || !std::isfinite(s)) {
      reason = "the scale of " + node.describe() + " holds " + std::to_string(s) + ", not a finite positive number";
      return std::nullopt;
    }
  }
  if (q.zero != nullptr) {
    if (!is_constant_value(q.zero)) {
      reason = "the zero point of " + node.describe() + " is not a constant";
      return std::nullopt;
    }
    const Tensor& zero = *q.zero->constant();
    if (zero.dtype() != dtype) {
      reason = "the zero point of " + node.describe() + " is " + type_name(zero.dtype()) +
               ", the quantised tensor is " + type_name(dtype);
      return std::nullopt;
    }
    if (zero.element_count() != scale.element_count() || zero.rank() > 1) {
      reason = "the zero point of " + node.describe() + " has shape " + shape_to_string(zero.shape()) + ", its scale " +
               shape_to_string(scale.shape());
      return std::nullopt;
    }
    for (int64_t i = 0; i < zero.element_count(); ++i) q.zeros.push_back(zero.scalar_as_int64(i));
  } else {
    q.zeros.assign(q.scales.size(), 0);
  }
  q.axis = node.get_int("axis", 1);
  if (q.per_channel()) {
    if (onnx_opset(node) < 13) {
      reason = node.describe() + " has " + std::to_string(q.scales.size()) +
               " scales: per-axis quantisation needs opset 13 (the graph has " + std::to_string(onnx_opset(node)) + ")";
      return std::nullopt;
    }
    if (rank < 0) {
      reason = node.describe() + " quantises per axis a tensor of unknown rank";
      return std::nullopt;
    }
    if (q.axis < -rank || q.axis >= rank) {
      reason =
          node.describe() + " has axis " + std::to_string(q.axis) + " out of range for rank " + std::to_string(rank);
      return std::nullopt;
    }
    if (q.axis < 0) q.axis += rank;
  }
  return q;
}

/// The DequantizeLinear producing `value` and its quantisation, where its input is one of
/// `types`; nullopt with `reason` otherwise. `what` names the operand in messages.
std::optional<Quantization> read_dequantize(const Value* value, const Node& consumer, const std::string& what,
                                            const std::vector<DataType>& types, std::string& reason) {
  const Node* dq = value != nullptr ? value->producer() : nullptr;
  if (dq == nullptr || dq->op_type() != "DequantizeLinear" || !is_onnx_domain(*dq)) {
    reason = what + " of " + consumer.describe() + " is not the output of a DequantizeLinear";
    return std::nullopt;
  }
  // DequantizeLinear-23's output_dtype may make it float16 or bfloat16: the float graph
  // then computes in that precision, which the fused op would not reproduce.
  if (dq->output(0)->desc().dtype != DataType::kFloat32) {
    reason = dq->describe() + " (" + what + " of " + consumer.describe() + ") gives " +
             type_name(dq->output(0)->desc().dtype) + "; the fused ops stand for float32 arithmetic";
    return std::nullopt;
  }
  Value* data = dq->input(0);
  const DataType dtype = data != nullptr ? data->desc().dtype : DataType::kUndefined;
  if (std::find(types.begin(), types.end(), dtype) == types.end()) {
    reason = dq->describe() + " (" + what + " of " + consumer.describe() + ") dequantises " + type_name(dtype);
    return std::nullopt;
  }
  const int64_t rank = data->desc().has_rank() ? data->desc().rank() : -1;
  std::optional<Quantization> q = read_quantization(*dq, dtype, rank, reason);
  if (q) q->data = data;
  return q;
}

/// float32 QuantizeLinear of `x` as the reference kernel computes it (round half to even).
int64_t quantize(double x, const Quantization& y) {
  const float quotient = static_cast<float>(x) / static_cast<float>(y.scales[0]);
  const float shifted = std::nearbyint(quotient) + static_cast<float>(y.zeros[0]);
  return static_cast<int64_t>(
      std::clamp(shifted, static_cast<float>(lowest(y.dtype)), static_cast<float>(highest(y.dtype))));
}

/// The integer tensor `value` holds where it is QuantizeLinear(float32 constant, constant
/// scale, constant zero point) of type `dtype`, as PyTorch's exporter writes weights,
/// computed as the reference kernel does (float32 division, round half to even, NaN to 0,
/// saturation); nullopt otherwise. Constant folding would do the same, but runs later.
std::optional<Tensor> quantized_constant(const Value* value, DataType dtype) {
  const Node* q = value != nullptr ? value->producer() : nullptr;
  if (q == nullptr || q->op_type() != "QuantizeLinear" || !is_onnx_domain(*q) || !is_constant_value(q->input(0))) {
    return std::nullopt;
  }
  const Tensor& real = *q->input(0)->constant();
  if (real.dtype() != DataType::kFloat32 || value->desc().dtype != dtype) return std::nullopt;
  std::string ignored;
  std::optional<Quantization> params = read_quantization(*q, dtype, real.rank(), ignored);
  if (!params) return std::nullopt;
  int64_t inner = 1, channels = 1;
  if (params->per_channel()) {
    channels = real.shape()[static_cast<size_t>(params->axis)];
    if (channels != static_cast<int64_t>(params->scales.size())) return std::nullopt;
    for (size_t d = static_cast<size_t>(params->axis) + 1; d < real.shape().size(); ++d) inner *= real.shape()[d];
  }
  Tensor result = Tensor::zeros(dtype, real.shape());
  const float* source = real.data<float>();
  for (int64_t i = 0; i < real.element_count(); ++i) {
    const int64_t channel = (i / inner) % channels;
    const float quotient = source[i] / static_cast<float>(params->scale_at(channel));
    float shifted = std::nearbyint(quotient) + static_cast<float>(params->zero_at(channel));
    shifted = std::isnan(shifted)
                  ? 0.0f
                  : std::clamp(shifted, static_cast<float>(lowest(dtype)), static_cast<float>(highest(dtype)));
    if (dtype == DataType::kInt8) {
      result.data<int8_t>()[i] = static_cast<int8_t>(shifted);
    } else {
      result.data<uint8_t>()[i] = static_cast<uint8_t>(shifted);
    }
  }
  return result;
}

/// What a match rewrites into.
struct Plan {
  const Node* producer = nullptr;
  bool conv = false;
  Quantization x, w, y;
  Tensor weights_int;             ///< the integer weights: w.data's constant, or its QuantizeLinear's result
  bool weights_computed = false;  ///< weights_int is not w.data's constant
  Tensor weights;                 ///< defined: replaces w.data (Gemm's transB transposed)
  Value* bias_as_is = nullptr;    ///< an int32 bias of scale xs * ws, used as it is
  Tensor bias;                    ///< defined: the quantised float bias
  /// A MatMul / Gemm with a bias, as a 1x1 QLinearConv of A reshaped to [M, K, 1, 1]
  /// (weights [N, K, 1, 1] in `weights`), reshaped back to [M, N].
  bool matmul_as_conv = false;
  std::optional<std::pair<int64_t, int64_t>> clamp;  ///< the Clip of the quantised output
};

/// The bias `b` (`what` in messages; null: none), times `beta`, as int32 of scale
/// xs * ws[m], into `plan`; false with `reason`. `per_row`: a MatMul's bias, which may
/// also be [1, N] or one value for every column (a Conv's is [M]).
bool plan_bias(Plan& plan, Value* b, const std::string& what, int64_t channels, float beta, bool per_row,
               std::string& reason) {
  if (b == nullptr) return true;
  const Node& op = *plan.producer;
  std::vector<double> bias_scales(static_cast<size_t>(channels));  // float32 products, as ONNX Runtime's tools
  for (int64_t m = 0; m < channels; ++m) {
    bias_scales[static_cast<size_t>(m)] = static_cast<float>(plan.x.scales[0]) * static_cast<float>(plan.w.scale_at(m));
  }
  std::vector<double> values;
  if (is_constant_value(b) && b->constant()->dtype() == DataType::kFloat32) {
    values = to_doubles(*b->constant());
  } else {
    std::string why;
    std::optional<Quantization> q = read_dequantize(b, op, what, {DataType::kInt32}, why);
    const bool is_dequantize = b->producer() != nullptr && b->producer()->op_type() == "DequantizeLinear";
    if (!q || !is_constant_value(q->data)) {
      reason = what + " is neither a float32 constant nor a DequantizeLinear of an int32 constant" +
               (q || !is_dequantize ? std::string() : " (" + why + ")");
      return false;
    }
    if (std::any_of(q->zeros.begin(), q->zeros.end(), [](int64_t z) { return z != 0; })) {
      reason = "the int32 " + what + " has a zero point other than 0";
      return false;
    }
    const Tensor& data = *q->data->constant();
    bool same_scale = data.shape() == std::vector<int64_t>{channels} && beta == 1.0f;
    for (int64_t m = 0; m < channels && same_scale; ++m) {
      // Relative, to float rounding: the product in float32 or rounded from float64.
      const double expected = bias_scales[static_cast<size_t>(m)];
      same_scale = std::fabs(q->scale_at(m) - expected) <= 1e-6 * expected;
    }
    if (same_scale) {
      plan.bias_as_is = q->data;
      return true;
    }
    // Another scale: what the float graph adds, (b - 0) * scale in float32, requantised.
    if (q->per_channel() && data.element_count() != static_cast<int64_t>(q->scales.size())) {
      reason = "the scale of the int32 " + what + " does not match its shape";
      return false;
    }
    for (int64_t m = 0; m < data.element_count(); ++m) {
      values.push_back(
          static_cast<float>(static_cast<float>(data.scalar_as_int64(m)) * static_cast<float>(q->scale_at(m))));
    }
  }
  const std::optional<std::vector<int64_t>> dims = static_dims(b);
  const bool fits = dims && (*dims == std::vector<int64_t>{channels} ||
                             (per_row && (*dims == std::vector<int64_t>{1, channels} || values.size() == 1)));
  if (!fits || (static_cast<int64_t>(values.size()) != channels && values.size() != 1)) {
    reason = what + " is " + b->desc().to_string() + ", expected [" + std::to_string(channels) + "]" +
             (per_row ? " or [1, " + std::to_string(channels) + "] or one value" : "");
    return false;
  }
  if (values.empty()) {
    reason = what + " is empty";
    return false;
  }
  values.resize(static_cast<size_t>(channels), values[0]);  // one value for every column
  if (beta != 1.0f) {
    for (double& v : values) v = static_cast<float>(beta * static_cast<float>(v));  // Gemm's beta * C, in float
  }
  std::vector<int32_t> quantised(static_cast<size_t>(channels));
  for (int64_t m = 0; m < channels; ++m) {
    const double scale = bias_scales[static_cast<size_t>(m)];
    const double q = std::nearbyint(values[static_cast<size_t>(m)] / scale);
    if (!(scale > 0) || !(std::fabs(q) <= kInt32Max)) {
      reason = what + " channel " + std::to_string(m) + " (" + std::to_string(values[static_cast<size_t>(m)]) +
               ") does not fit int32 at scale xs * ws = " + std::to_string(scale);
      return false;
    }
    quantised[static_cast<size_t>(m)] = static_cast<int32_t>(q);
  }
  plan.bias = Tensor::from_vector<int32_t>({channels}, quantised);
  return true;
}

/// Whether sum_k |x - xz| |w - wz| + |bias| fits int32 for every output channel: the
/// fused op accumulates in int32. The weights are [channels, K] (`channel_major`, Conv and
/// the 1x1 form) or [.., K, channels] (MatMul's B).
bool accumulation_fits(const Plan& plan, int64_t channels, bool channel_major, std::string& reason) {
  const Tensor& w = plan.weights.defined() ? plan.weights : plan.weights_int;
  const int64_t x_zero = plan.x.zeros[0];
  const double x_reach = static_cast<double>(std::max(x_zero - lowest(plan.x.dtype), highest(plan.x.dtype) - x_zero));
  std::vector<int64_t> weight_sums(static_cast<size_t>(channels), 0);  // sum_k |w - wz| per channel
  const bool signed_weights = w.dtype() == DataType::kInt8;
  const auto* bytes = static_cast<const uint8_t*>(w.raw_data());
  auto weight = [&](int64_t i) -> int64_t {
    return signed_weights ? static_cast<int64_t>(static_cast<int8_t>(bytes[i])) : static_cast<int64_t>(bytes[i]);
  };
  const int64_t count = w.element_count();
  const int64_t depth = count / channels;  // per channel (channel-major) or rows times batches
  for (int64_t m = 0; m < channels; ++m) {
    const int64_t zero = plan.w.zero_at(m);
    int64_t sum = 0;
    for (int64_t k = 0; k < depth; ++k) {
      sum += std::llabs(weight(channel_major ? m * depth + k : k * channels + m) - zero);
    }
    weight_sums[static_cast<size_t>(m)] = sum;
  }
  for (int64_t m = 0; m < channels; ++m) {
    double reach = x_reach * static_cast<double>(weight_sums[static_cast<size_t>(m)]);
    if (plan.bias.defined()) reach += std::fabs(plan.bias.scalar_as_double(m));
    if (plan.bias_as_is != nullptr) reach += std::fabs(plan.bias_as_is->constant()->scalar_as_double(m));
    if (reach > kInt32Max) {
      reason = "the int32 accumulator of " + plan.producer->describe() + " could overflow in output channel " +
               std::to_string(m) + " (|sum| up to " + std::to_string(reach) + ")";
      return false;
    }
  }
  return true;
}

bool plan_conv(Plan& plan, std::string& reason) {
  const Tensor& w = plan.weights_int;
  if (w.rank() < 3) {
    reason = "the weights of " + plan.producer->describe() + " have shape " + shape_to_string(w.shape());
    return false;
  }
  const int64_t channels = w.shape()[0];
  if (channels < 1 || w.element_count() == 0) {
    reason = "the weights of " + plan.producer->describe() + " are empty";
    return false;
  }
  if (plan.w.per_channel() && (plan.w.axis != 0 || static_cast<int64_t>(plan.w.scales.size()) != channels)) {
    reason = "the weights of " + plan.producer->describe() + " are quantised along axis " +
             std::to_string(plan.w.axis) + " with " + std::to_string(plan.w.scales.size()) +
             " scales; QLinearConv takes them per output channel (axis 0, " + std::to_string(channels) + " scales)";
    return false;
  }
  if (!plan_bias(plan, plan.producer->input(2), "the bias of " + plan.producer->describe(), channels, 1.0f, false,
                 reason)) {
    return false;
  }
  return accumulation_fits(plan, channels, true, reason);
}

/// `add`: the Add of the bias that follows the MatMul / Gemm (null: none).
bool plan_matmul(Plan& plan, const Node* add, Value* addend, std::string& reason) {
  const Node& op = *plan.producer;
  const Tensor& b = plan.weights_int;
  bool transposed = false;
  Value* bias = nullptr;
  std::string bias_text;
  float beta = 1.0f;
  if (op.op_type() == "Gemm") {
    if (op.get_int("transA", 0) != 0 || op.get_float("alpha", 1.0f) != 1.0f) {
      reason = op.describe() + " has transA = " + std::to_string(op.get_int("transA", 0)) +
               " and alpha = " + std::to_string(op.get_float("alpha", 1.0f)) +
               "; the quantised ops compute A * B (transA 0, alpha 1)";
      return false;
    }
    transposed = op.get_int("transB", 0) != 0;
    if (b.rank() != 2) {
      reason = "B of " + op.describe() + " has shape " + shape_to_string(b.shape());
      return false;
    }
    bias = op.input(2);
    bias_text = "C of " + op.describe();
    beta = op.get_float("beta", 1.0f);
  }
  if (add != nullptr) {
    if (bias != nullptr) {
      reason = op.describe() + " has a bias C and is followed by " + add->describe() + ": it stays float";
      return false;
    }
    bias = addend;
    bias_text = "the addend of " + add->describe() + " (after " + op.describe() + ")";
  }
  if (b.rank() < 1) {
    reason = "B of " + op.describe() + " is a scalar";
    return false;
  }
  const int64_t rank = b.rank();
  const int64_t column_axis = transposed ? 0 : rank - 1;
  const int64_t columns = rank == 1 ? 1 : b.shape()[static_cast<size_t>(column_axis)];
  if (plan.w.per_channel() &&
      (rank != 2 || plan.w.axis != column_axis || static_cast<int64_t>(plan.w.scales.size()) != columns)) {
    reason = "B of " + op.describe() + " is quantised along axis " + std::to_string(plan.w.axis) + " with " +
             std::to_string(plan.w.scales.size()) + " scales; QLinearMatMul takes a 2-D B per tensor or per column";
    return false;
  }
  if (bias != nullptr) {
    // No standard quantised op adds a bias to a matrix product, but a 1x1 QLinearConv of
    // A as [M, K, 1, 1] computes the same sums exactly and adds its int32 bias.
    const Value* a = op.input(0);
    if (rank != 2 || !a->desc().has_rank() || a->desc().rank() != 2) {
      reason = op.describe() + " with a bias becomes a 1x1 QLinearConv, which needs a 2-D A and B (A is " +
               a->desc().to_string() + ", B " + shape_to_string(b.shape()) + ")";
      return false;
    }
    if (!plan_bias(plan, bias, bias_text, columns, beta, true, reason)) return false;
    plan.matmul_as_conv = true;
    const int64_t k = b.shape()[transposed ? 1 : 0];
    plan.weights = Tensor::zeros(b.dtype(), {columns, k, 1, 1});
    const auto* source = static_cast<const uint8_t*>(b.raw_data());
    auto* target = static_cast<uint8_t*>(plan.weights.raw_data());
    for (int64_t n = 0; n < columns; ++n) {
      for (int64_t i = 0; i < k; ++i) target[n * k + i] = source[transposed ? n * k + i : i * columns + n];
    }
    return accumulation_fits(plan, columns, true, reason);
  }
  if (transposed) {
    const int64_t n = b.shape()[0], k = b.shape()[1];
    plan.weights = Tensor::zeros(b.dtype(), {k, n});
    const auto* source = static_cast<const uint8_t*>(b.raw_data());
    auto* target = static_cast<uint8_t*>(plan.weights.raw_data());
    for (int64_t row = 0; row < n; ++row) {
      for (int64_t col = 0; col < k; ++col) target[col * n + row] = source[row * k + col];
    }
  }
  return accumulation_fits(plan, columns, false, reason);
}

/// The Clip of the quantised output standing for the activation, into `plan`.
bool plan_activation(Plan& plan, const Node* act, const Node& q, std::string& reason) {
  if (act == nullptr) return true;
  double low = 0, high = std::numeric_limits<double>::infinity();
  if (act->op_type() == "Clip") {
    std::optional<std::pair<float, float>> bounds = clip_bounds(*act);
    if (!bounds) {
      reason = "the bounds of " + act->describe() + " are not constant scalars";
      return false;
    }
    low = bounds->first;
    high = bounds->second;
    if (std::isnan(low) || std::isnan(high) || low > high) {
      reason = act->describe() + " has bounds [" + std::to_string(low) + ", " + std::to_string(high) + "]";
      return false;
    }
  }
  const int64_t q_low = quantize(low, plan.y), q_high = quantize(high, plan.y);
  if (q_low <= lowest(plan.y.dtype) && q_high >= highest(plan.y.dtype)) return true;  // clips nothing
  if (onnx_opset(q) < 12) {
    reason = act->describe() + " becomes a Clip of the " + type_name(plan.y.dtype) +
             " output, which needs opset 12 (the graph has " + std::to_string(onnx_opset(q)) + ")";
    return false;
  }
  plan.clamp = std::pair{q_low, q_high};
  return true;
}

std::optional<Plan> make_plan(const Match& match, std::string& reason) {
  Plan plan;
  plan.producer = match.node("producer");
  plan.conv = plan.producer->op_type() == "Conv";
  if (plan.producer->op_type() == "ConvTranspose") {
    reason = plan.producer->describe() +
             ": ONNX has no quantised ConvTranspose (no QLinearConvTranspose), so it stays float";
    return std::nullopt;
  }
  const Node& q = *match.root();
  const Node& op = *plan.producer;
  const DataType y_dtype = q.output(0)->desc().dtype;
  if (!is_8bit(y_dtype)) {
    reason = q.describe() + " quantises to " + type_name(y_dtype) + "; the fused ops give int8 or uint8";
    return std::nullopt;
  }
  const int64_t y_rank = q.output(0)->desc().has_rank() ? q.output(0)->desc().rank() : -1;
  std::optional<Quantization> y = read_quantization(q, y_dtype, y_rank, reason);
  if (!y) return std::nullopt;
  plan.y = *y;
  const std::vector<DataType> bytes = {DataType::kInt8, DataType::kUInt8};
  std::optional<Quantization> x = read_dequantize(op.input(0), op, "input 0", bytes, reason);
  if (!x) return std::nullopt;
  plan.x = *x;
  std::optional<Quantization> w = read_dequantize(op.input(1), op, "input 1", bytes, reason);
  if (!w) return std::nullopt;
  plan.w = *w;
  for (const Quantization* per_tensor : {&plan.x, &plan.y}) {
    if (per_tensor->per_channel()) {
      reason = per_tensor->node->describe() + " quantises per axis (" + std::to_string(per_tensor->scales.size()) +
               " scales); the fused op takes " + (per_tensor == &plan.x ? "its input" : "its output") + " per tensor";
      return std::nullopt;
    }
  }
  if (is_constant_value(plan.w.data)) {
    plan.weights_int = *plan.w.data->constant();
  } else if (std::optional<Tensor> computed = quantized_constant(plan.w.data, plan.w.dtype)) {
    plan.weights_int = *computed;
    plan.weights_computed = true;
  } else {
    reason = "the weights of " + op.describe() + " (input of " + plan.w.node->describe() +
             ") are neither a constant nor a QuantizeLinear of constants";
    return std::nullopt;
  }
  const Node* add = match.node("add");
  if (add != nullptr && plan.conv) {
    reason = op.describe() + " is followed by " + add->describe() +
             ": no standard quantised op adds it to QLinearConv's output, so it stays float";
    return std::nullopt;
  }
  if (!(plan.conv ? plan_conv(plan, reason) : plan_matmul(plan, add, match.value("addend"), reason))) {
    return std::nullopt;
  }
  if (!plan_activation(plan, match.node("activation"), q, reason)) return std::nullopt;
  return plan;
}

/// What the residual pattern Q([Relu](Add(DQ(a_q), DQ(b_q)))) rewrites into.
struct AddPlan {
  Quantization a, b, y;
  bool relu = false;
};

std::optional<AddPlan> make_add_plan(const Match& match, std::string& reason) {
  const Node& q = *match.root();
  const Node& add = *match.node("add");
  AddPlan plan;
  const DataType y_dtype = q.output(0)->desc().dtype;
  if (!is_8bit(y_dtype)) {
    reason = q.describe() + " quantises to " + type_name(y_dtype) + "; ge::QLinearAdd gives int8 or uint8";
    return std::nullopt;
  }
  if (q.get_int("precision", 0) != 0 && q.get_int("precision", 0) != static_cast<int64_t>(DataType::kFloat32)) {
    reason = q.describe() + " divides in precision " + std::to_string(q.get_int("precision", 0)) +
             "; ge::QLinearAdd divides in float32";
    return std::nullopt;
  }
  const int64_t y_rank = q.output(0)->desc().has_rank() ? q.output(0)->desc().rank() : -1;
  std::optional<Quantization> y = read_quantization(q, y_dtype, y_rank, reason);
  if (!y) return std::nullopt;
  plan.y = *y;
  const std::vector<DataType> bytes = {DataType::kInt8, DataType::kUInt8};
  std::optional<Quantization> a = read_dequantize(add.input(0), add, "input 0", bytes, reason);
  if (!a) return std::nullopt;
  std::optional<Quantization> b = read_dequantize(add.input(1), add, "input 1", bytes, reason);
  if (!b) return std::nullopt;
  plan.a = *a;
  plan.b = *b;
  for (const Quantization* per_tensor : {&plan.a, &plan.b, &plan.y}) {
    if (per_tensor->per_channel()) {
      reason = per_tensor->node->describe() + " quantises per axis (" + std::to_string(per_tensor->scales.size()) +
               " scales); ge::QLinearAdd takes A, B and C per tensor";
      return std::nullopt;
    }
  }
  if (plan.a.dtype != y_dtype || plan.b.dtype != y_dtype) {
    reason = add.describe() + " adds " + type_name(plan.a.dtype) + " and " + type_name(plan.b.dtype) +
             " dequantised and " + q.describe() + " gives " + type_name(y_dtype) +
             "; ge::QLinearAdd takes one 8-bit type for A, B and C";
    return std::nullopt;
  }
  plan.relu = match.node("activation") != nullptr;
  return plan;
}

/// Zeros shaped like `scale`: the zero point an omitted input stands for.
Tensor zeros_like(const Value* scale, DataType dtype) { return Tensor::zeros(dtype, scale->constant()->shape()); }

Tensor scalar_of(DataType dtype, int64_t value) {
  Tensor tensor = Tensor::zeros(dtype, {});
  if (dtype == DataType::kInt8) {
    tensor.data<int8_t>()[0] = static_cast<int8_t>(value);
  } else {
    tensor.data<uint8_t>()[0] = static_cast<uint8_t>(value);
  }
  return tensor;
}

/// Q(act(add(op(x, w)))) with op a Conv, MatMul or Gemm, act and add optional: the Add of
/// a MatMul's bias (after a Conv it stays float).
Pattern op_pattern() {
  Pattern p("qdq_op");
  // ConvTranspose only to say why it stays float.
  PatternOp& op =
      p.op({"Conv", "MatMul", "Gemm", "ConvTranspose"}, {p.any("x"), p.any("w")}, "producer").allow_extra_inputs();
  PatternOp& add = p.op("Add", {op, p.any("addend")}, "add").commutative().optional(0);
  PatternOp& act = p.op({"Relu", "Clip"}, {add}, "activation").allow_extra_inputs().optional(0);
  p.op("QuantizeLinear", {act, p.any("y_scale"), Pattern::maybe(p.any("y_zero"))}, "quantize");
  return p;
}

/// Q([Relu](Add(a, b))), a and b (DequantizeLinear outputs) not part of the match: the
/// residual add of a QDQ network.
Pattern add_pattern() {
  Pattern p("qdq_add");
  PatternOp& add = p.op("Add", {p.any("a"), p.any("b")}, "add");
  PatternOp& act = p.op("Relu", {add}, "activation").optional(0);
  p.op("QuantizeLinear", {act, p.any("y_scale"), Pattern::maybe(p.any("y_zero"))}, "quantize");
  return p;
}

bool is_add_match(const Match& match) { return match.pattern().name() == "qdq_add"; }

/// ge::QLinearAdd(a_q, as, az, b_q, bs, bz, ys, yz) {relu} for an add_pattern match.
Status add_replacement(const Match& match, Replacement& r) {
  std::string reason;
  std::optional<AddPlan> planned = make_add_plan(match, reason);
  if (!planned) return invalid_argument(reason);
  const AddPlan& plan = *planned;
  const std::string& name = match.node("add")->name();
  auto zero_of = [&](const Quantization& q, const char* role) {
    return q.zero != nullptr ? r.use(q.zero)
                             : r.constant(name + "_" + role + "_zero_point", zeros_like(q.scale, q.dtype));
  };
  Node* fused = r.add_node("QLinearAdd",
                           {r.use(plan.a.data), r.use(plan.a.scale), zero_of(plan.a, "a"), r.use(plan.b.data),
                            r.use(plan.b.scale), zero_of(plan.b, "b"), r.use(plan.y.scale), zero_of(plan.y, "y")},
                           name, "ge");
  if (plan.relu) fused->set_attribute("relu", int64_t{1});
  return Status::ok();
}

}  // namespace

std::vector<Pattern> QdqFusion::patterns() const {
  std::vector<Pattern> list;
  // The residual add first: where it does not fit (an operand that is no
  // DequantizeLinear), the op pattern's reason is the last one logged.
  list.push_back(add_pattern());
  list.push_back(op_pattern());
  return list;
}

bool QdqFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (is_add_match(match)) return make_add_plan(match, reason).has_value();
  return make_plan(match, reason).has_value();
}

Status QdqFusion::replacement(const Match& match, Replacement& r) const {
  if (is_add_match(match)) return add_replacement(match, r);
  std::string reason;
  std::optional<Plan> planned = make_plan(match, reason);
  if (!planned) return invalid_argument(reason);
  const Plan& plan = *planned;
  const std::string& name = plan.producer->name();
  auto zero_of = [&](const Quantization& q, const char* role) {
    return q.zero != nullptr ? r.use(q.zero)
                             : r.constant(name + "_" + role + "_zero_point", zeros_like(q.scale, q.dtype));
  };
  Value* weights = plan.weights.defined()
                       ? r.constant(name + (plan.matmul_as_conv ? "_weights_1x1" : "_weights_t"), plan.weights)
                   : plan.weights_computed ? r.constant(name + "_weights_quantized", plan.weights_int)
                                           : r.use(plan.w.data);
  // A 1x1 QLinearConv of A as an image: [M, K] -> [M, K, 1, 1] (Reshape's 0 keeps a dim).
  Value* x = r.use(plan.x.data);
  if (plan.matmul_as_conv) {
    x = r.add_node("Reshape", {x, r.constant(name + "_image_shape", Tensor::from_vector<int64_t>({4}, {0, 0, 1, 1}))},
                   name + "_as_image")
            ->output(0);
  }
  std::vector<Value*> inputs = {x,
                                r.use(plan.x.scale),
                                zero_of(plan.x, "x"),
                                weights,
                                r.use(plan.w.scale),
                                zero_of(plan.w, "w"),
                                r.use(plan.y.scale),
                                zero_of(plan.y, "y")};
  if (plan.bias_as_is != nullptr) inputs.push_back(r.use(plan.bias_as_is));
  if (plan.bias.defined()) inputs.push_back(r.constant(name + "_bias_int32", plan.bias));
  Node* fused = r.add_node(plan.conv || plan.matmul_as_conv ? "QLinearConv" : "QLinearMatMul", inputs, name);
  if (plan.conv) {
    for (const auto& [key, attribute] : plan.producer->attributes()) fused->set_attribute(key, attribute);
  }
  if (plan.matmul_as_conv) {
    fused->set_attribute("kernel_shape", std::vector<int64_t>{1, 1});
    fused = r.add_node(
        "Reshape", {fused->output(0), r.constant(name + "_matrix_shape", Tensor::from_vector<int64_t>({2}, {0, 0}))},
        name + "_as_matrix");
  }
  if (plan.clamp) {
    const DataType dtype = plan.y.dtype;
    r.add_node("Clip",
               {fused->output(0), r.constant(name + "_clip_min", scalar_of(dtype, plan.clamp->first)),
                r.constant(name + "_clip_max", scalar_of(dtype, plan.clamp->second))},
               match.root()->name());
  }
  return Status::ok();
}

}  // namespace ge::fusion
