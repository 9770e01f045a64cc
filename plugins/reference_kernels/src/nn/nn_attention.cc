// Attention (opset 23): scaled dot-product attention with an optional mask, causal
// masking, grouped-query heads and a past key/value cache:
//   scores = softcap(scale * Q K^T) + bias,  Y = softmax(scores) V
// Q, K, V are 4-D [batch, heads, seq, head] or 3-D [batch, seq, heads * head] (then
// q_num_heads and kv_num_heads say how many heads). past_key/past_value
// [batch, kv_heads, past, head] are prepended to K and V (present_key/present_value hold
// the result). Query head h uses key/value head h / (q_heads / kv_heads).
// The bias sums a bool mask (false: -inf), or an additive numeric mask, broadcast to
// [batch, q_heads, q_seq, total_seq] (a mask narrower than total_seq, but wider than 1,
// counts the missing keys as masked, as the reference implementation pads it), and with is_causal -inf wherever key
// j > i + past_seq. A query row whose bias is all -inf gives zeros, not NaN.
// qk_matmul_output is, by qk_matmul_output_mode: 0 scale * Q K^T, 1 after softcap,
// 2 after the bias, 3 the softmax. Everything is computed in double, which covers every
// softmax_precision. Q, K (and past_key, present_key, Y, qk_matmul_output) share one
// floating dtype (T1); V (and past_value, present_value) may have another (T2).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "nn/nn_element.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

enum class MaskKind { kNone, kBool, kAdditive };

struct AttentionParams {
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_seq = 0, kv_seq = 0, past_seq = 0;
  int64_t head_size = 0, v_head_size = 0;
  bool three_d = false;  // Q, K, V and Y are [batch, seq, heads * head]
  bool has_past = false;
  double scale = 1.0, softcap = 0.0;
  bool causal = false;
  MaskKind mask = MaskKind::kNone;
  DataType mask_dtype = DataType::kUndefined;
  int64_t mask_width = 0;                 // the mask's last dim (<= total_seq)
  int64_t mask_strides[4] = {0, 0, 0, 0};  // over [batch, q_heads, q_seq, key]; 0 where broadcast
  bool present_key = false, present_value = false, qk_output = false;
  int64_t qk_mode = 0;

  int64_t total_seq() const { return past_seq + kv_seq; }
};

// Offset of element (b, h, s, 0) of a Q/K/V/Y tensor in either layout.
int64_t row_offset(bool three_d, int64_t b, int64_t h, int64_t s, int64_t heads, int64_t seq, int64_t width) {
  return three_d ? ((b * seq + s) * heads + h) * width : ((b * heads + h) * seq + s) * width;
}

template <typename T, typename TV>
int attention_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const AttentionParams*>(args.params);
  const auto* q = static_cast<const T*>(args.inputs[0]);
  const auto* k = static_cast<const T*>(args.inputs[1]);
  const auto* v = static_cast<const TV*>(args.inputs[2]);
  const void* mask = p.mask != MaskKind::kNone ? args.inputs[3] : nullptr;
  const auto* past_key = p.has_past ? static_cast<const T*>(args.inputs[4]) : nullptr;
  const auto* past_value = p.has_past ? static_cast<const TV*>(args.inputs[5]) : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  auto* present_key = p.present_key ? static_cast<T*>(args.outputs[1]) : nullptr;
  auto* present_value = p.present_value ? static_cast<TV*>(args.outputs[2]) : nullptr;
  auto* qk_out = p.qk_output ? static_cast<T*>(args.outputs[3]) : nullptr;
  auto* scores = static_cast<double*>(args.workspace);  // [total_seq] scores, then [total_seq] qk values
  if (q == nullptr || k == nullptr || v == nullptr || y == nullptr || scores == nullptr ||
      (p.mask != MaskKind::kNone && mask == nullptr) ||
      (p.has_past && (past_key == nullptr || past_value == nullptr)) || (p.present_key && present_key == nullptr) ||
      (p.present_value && present_value == nullptr) || (p.qk_output && qk_out == nullptr)) {
    return kKernelMissingAddress;
  }
  const int64_t total = p.total_seq();
  double* qk_values = scores + total;
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  // Key/value row t (of the past-then-current sequence) of kv head h.
  auto key_row = [&](int64_t b, int64_t h, int64_t t) -> const T* {
    if (t < p.past_seq) return past_key + ((b * p.kv_heads + h) * p.past_seq + t) * p.head_size;
    return k + row_offset(p.three_d, b, h, t - p.past_seq, p.kv_heads, p.kv_seq, p.head_size);
  };
  auto value_row = [&](int64_t b, int64_t h, int64_t t) -> const TV* {
    if (t < p.past_seq) return past_value + ((b * p.kv_heads + h) * p.past_seq + t) * p.v_head_size;
    return v + row_offset(p.three_d, b, h, t - p.past_seq, p.kv_heads, p.kv_seq, p.v_head_size);
  };
  const int64_t group = p.q_heads / p.kv_heads;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.q_heads; ++h) {
      const int64_t kv_h = h / group;
      for (int64_t i = 0; i < p.q_seq; ++i) {
        const T* q_row = q + row_offset(p.three_d, b, h, i, p.q_heads, p.q_seq, p.head_size);
        double max_score = kNegInf;
        double max_bias = kNegInf;
        for (int64_t t = 0; t < total; ++t) {
          const T* k_row = key_row(b, kv_h, t);
          double dot = 0;
          for (int64_t d = 0; d < p.head_size; ++d) dot += load(q_row[d]) * load(k_row[d]);
          const double raw = p.scale * dot;
          const double capped = p.softcap > 0 ? p.softcap * std::tanh(raw / p.softcap) : raw;
          double bias = 0;
          if (p.mask != MaskKind::kNone) {
            if (t >= p.mask_width) {
              bias = kNegInf;
            } else {
              const int64_t at = b * p.mask_strides[0] + h * p.mask_strides[1] + i * p.mask_strides[2] +
                                 t * p.mask_strides[3];
              if (p.mask == MaskKind::kBool) {
                bias = static_cast<const bool*>(mask)[at] ? 0.0 : kNegInf;
              } else {
                bias = nn::load_as_double(mask, p.mask_dtype, at);
              }
            }
          }
          if (p.causal && t > i + p.past_seq) bias += kNegInf;
          scores[t] = capped + bias;
          qk_values[t] = p.qk_mode == 0 ? raw : (p.qk_mode == 1 ? capped : scores[t]);
          if (scores[t] > max_score) max_score = scores[t];
          if (bias > max_bias) max_bias = bias;
        }
        // Softmax; a row that is all -inf (or whose bias is) has no key to attend: zeros.
        const bool all_masked = max_bias == kNegInf || max_score == kNegInf;
        double sum = 0;
        for (int64_t t = 0; t < total; ++t) {
          scores[t] = all_masked ? 0.0 : std::exp(scores[t] - max_score);
          sum += scores[t];
        }
        if (sum != 0) {
          for (int64_t t = 0; t < total; ++t) scores[t] /= sum;
        }
        if (qk_out != nullptr) {
          T* out = qk_out + ((b * p.q_heads + h) * p.q_seq + i) * total;
          for (int64_t t = 0; t < total; ++t) out[t] = store<T>(p.qk_mode == 3 ? scores[t] : qk_values[t]);
        }
        T* y_row = y + row_offset(p.three_d, b, h, i, p.q_heads, p.q_seq, p.v_head_size);
        for (int64_t d = 0; d < p.v_head_size; ++d) {
          double value = 0;
          for (int64_t t = 0; t < total; ++t) {
            if (scores[t] != 0) value += scores[t] * load(value_row(b, kv_h, t)[d]);
          }
          y_row[d] = store<T>(value);
        }
      }
    }
  }
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.kv_heads; ++h) {
      for (int64_t t = 0; t < total; ++t) {
        if (present_key != nullptr) {
          const T* row = key_row(b, h, t);
          T* out = present_key + ((b * p.kv_heads + h) * total + t) * p.head_size;
          for (int64_t d = 0; d < p.head_size; ++d) out[d] = row[d];
        }
        if (present_value != nullptr) {
          const TV* row = value_row(b, h, t);
          TV* out = present_value + ((b * p.kv_heads + h) * total + t) * p.v_head_size;
          for (int64_t d = 0; d < p.v_head_size; ++d) out[d] = row[d];
        }
      }
    }
  }
  return kKernelOk;
}

std::string to_string(int64_t value) { return std::to_string(value); }

// Q, K and V dims read as [batch, heads, seq, head] (3-D inputs split by the head counts).
struct HeadedDims {
  int64_t batch = 0, heads = 0, seq = 0, width = 0;
};

Result<HeadedDims> headed_dims(const KernelContext& context, const char* name, const std::vector<int64_t>& dims,
                               int64_t heads_attribute, const char* heads_name) {
  if (dims.size() == 4) {
    if (heads_attribute != 0 && heads_attribute != dims[1]) {
      return invalid_attribute(context, heads_name,
                               "= " + to_string(heads_attribute) + " disagrees with " + name + " " +
                                   shape_to_string(dims) + " (4-D: [batch, heads, seq, head_size])");
    }
    return HeadedDims{dims[0], dims[1], dims[2], dims[3]};
  }
  if (heads_attribute <= 0) return invalid_attribute(context, heads_name, "must be positive for 3-D inputs");
  if (dims[2] % heads_attribute != 0) {
    return invalid_node(context, std::string(name) + " " + shape_to_string(dims) + ": hidden size " +
                                     to_string(dims[2]) + " is not a multiple of " + heads_name + " = " +
                                     to_string(heads_attribute));
  }
  return HeadedDims{dims[0], heads_attribute, dims[1], dims[2] / heads_attribute};
}

Status read_mask(const KernelContext& context, AttentionParams& p) {
  const DataType dtype = input_dtype(context, 3);
  const std::vector<DataType> numeric = data_types(nn::AllNumericTypes{});
  if (dtype == DataType::kBool) {
    p.mask = MaskKind::kBool;
  } else if (std::find(numeric.begin(), numeric.end(), dtype) != numeric.end()) {
    p.mask = MaskKind::kAdditive;
  } else {
    return unsupported_feature(context, "an attn_mask of dtype " + std::string(data_type_name(dtype)) +
                                            " (bool or a real number type)");
  }
  p.mask_dtype = dtype;
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 3));
  const std::vector<int64_t> target{p.batch, p.q_heads, p.q_seq, p.total_seq()};
  std::string problem;
  if (dims.empty() || dims.size() > 4) {
    problem = "must have rank 1 to 4";
  } else if (dims.back() > p.total_seq()) {
    problem = "has more keys than total_sequence_length " + to_string(p.total_seq());
  }
  const size_t offset = 4 - std::min<size_t>(dims.size(), 4);
  int64_t stride = 1;
  for (size_t d = dims.size(); problem.empty() && d-- > 0;) {
    const size_t axis = offset + d;
    if (axis != 3 && dims[d] != 1 && dims[d] != target[axis]) {
      problem = "does not broadcast to [batch, q_heads, q_seq, total_seq] " + shape_to_string(target);
      break;
    }
    p.mask_strides[axis] = dims[d] == 1 ? 0 : stride;
    stride *= dims[d];
  }
  if (!problem.empty()) return invalid_node(context, "attn_mask " + shape_to_string(dims) + " " + problem);
  // A last dim of 1 broadcasts; a narrower mask covers the first keys and the rest are
  // masked (the reference implementation pads it with false / -inf).
  p.mask_width = dims.back() == 1 ? p.total_seq() : dims.back();
  return Status::ok();
}

Result<PreparedKernel> prepare_attention(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> q_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> k_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> v_dims, input_dims(context, 2));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));  // K has Q's type (T1)
  const DataType v_dtype = input_dtype(context, 2);           // V's (T2) may differ
  if ((q_dims.size() != 3 && q_dims.size() != 4) || k_dims.size() != q_dims.size() || v_dims.size() != q_dims.size()) {
    return invalid_node(context, "Q " + shape_to_string(q_dims) + ", K " + shape_to_string(k_dims) + " and V " +
                                     shape_to_string(v_dims) + " must all be 3-D or all 4-D");
  }
  AttentionParams p;
  p.three_d = q_dims.size() == 3;
  GE_ASSIGN_OR_RETURN(int64_t q_num_heads, int_attribute(context, "q_num_heads", 0));
  GE_ASSIGN_OR_RETURN(int64_t kv_num_heads, int_attribute(context, "kv_num_heads", 0));
  GE_ASSIGN_OR_RETURN(HeadedDims qd, headed_dims(context, "Q", q_dims, q_num_heads, "q_num_heads"));
  GE_ASSIGN_OR_RETURN(HeadedDims kd, headed_dims(context, "K", k_dims, kv_num_heads, "kv_num_heads"));
  GE_ASSIGN_OR_RETURN(HeadedDims vd, headed_dims(context, "V", v_dims, kv_num_heads, "kv_num_heads"));
  const std::string shapes =
      " (Q " + shape_to_string(q_dims) + ", K " + shape_to_string(k_dims) + ", V " + shape_to_string(v_dims) + ")";
  if (kd.batch != qd.batch || vd.batch != qd.batch) return invalid_node(context, "batch sizes differ" + shapes);
  if (kd.width != qd.width) return invalid_node(context, "Q and K head sizes differ" + shapes);
  if (kd.seq != vd.seq) return invalid_node(context, "K and V sequence lengths differ" + shapes);
  if (kd.heads != vd.heads) return invalid_node(context, "K and V head counts differ" + shapes);
  if (kd.heads <= 0 || qd.heads % kd.heads != 0) {
    return invalid_node(context, "q_heads " + to_string(qd.heads) + " is not a multiple of kv_heads " +
                                     to_string(kd.heads) + shapes);
  }
  p.batch = qd.batch;
  p.q_heads = qd.heads;
  p.kv_heads = kd.heads;
  p.q_seq = qd.seq;
  p.kv_seq = kd.seq;
  p.head_size = qd.width;
  p.v_head_size = vd.width;

  // Attributes.
  if (context.node.has_attribute("scale")) {
    GE_ASSIGN_OR_RETURN(float scale, float_attribute(context, "scale", 1.0f));
    if (!(scale >= 0.0f)) return invalid_attribute(context, "scale", "must be >= 0 (Q and K are scaled by its root)");
    p.scale = scale;
  } else {
    p.scale = 1.0 / std::sqrt(static_cast<double>(p.head_size));
  }
  GE_ASSIGN_OR_RETURN(float softcap, float_attribute(context, "softcap", 0.0f));
  if (!(softcap >= 0.0f)) return invalid_attribute(context, "softcap", "must be >= 0");
  p.softcap = softcap;
  GE_ASSIGN_OR_RETURN(int64_t is_causal, int_attribute(context, "is_causal", 0));
  if (is_causal != 0 && is_causal != 1) {
    return invalid_attribute(context, "is_causal", "= " + to_string(is_causal) + ", expected 0 or 1");
  }
  p.causal = is_causal == 1;
  GE_ASSIGN_OR_RETURN(p.qk_mode, int_attribute(context, "qk_matmul_output_mode", 0));
  if (p.qk_mode < 0 || p.qk_mode > 3) {
    return invalid_attribute(context, "qk_matmul_output_mode", "= " + to_string(p.qk_mode) + ", expected 0 to 3");
  }
  if (context.node.has_attribute("softmax_precision")) {
    GE_ASSIGN_OR_RETURN(int64_t precision, int_attribute(context, "softmax_precision", 1));
    if (!is_valid_data_type(static_cast<int32_t>(precision)) ||
        !nn::is_floating_dtype(static_cast<DataType>(precision))) {
      return invalid_attribute(context, "softmax_precision", "= " + to_string(precision) + " is not a floating dtype");
    }
  }

  // The cache.
  p.has_past = has_input(context, 4);
  if (p.has_past != has_input(context, 5)) {
    return invalid_node(context, "past_key and past_value must be given together");
  }
  if (p.has_past) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 4, dtype));
    GE_RETURN_IF_ERROR(check_input_dtype(context, 5, v_dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> pk, input_dims(context, 4));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> pv, input_dims(context, 5));
    if (pk.size() != 4 || pk[0] != p.batch || pk[1] != p.kv_heads || pk[3] != p.head_size) {
      return invalid_node(context, "past_key " + shape_to_string(pk) +
                                       " is not [batch, kv_heads, past_seq, head_size] with batch " +
                                       to_string(p.batch) + ", kv_heads " + to_string(p.kv_heads) + ", head_size " +
                                       to_string(p.head_size));
    }
    p.past_seq = pk[2];
    const std::vector<int64_t> expected{p.batch, p.kv_heads, p.past_seq, p.v_head_size};
    if (pv != expected) {
      return invalid_node(context, "past_value " + shape_to_string(pv) + " is not " + shape_to_string(expected) +
                                       " [batch, kv_heads, past_seq, v_head_size]");
    }
  }
  if (has_input(context, 3)) GE_RETURN_IF_ERROR(read_mask(context, p));

  // Outputs.
  const int64_t total = p.total_seq();
  const std::vector<int64_t> y_dims = p.three_d ? std::vector<int64_t>{p.batch, p.q_seq, p.q_heads * p.v_head_size}
                                                : std::vector<int64_t>{p.batch, p.q_heads, p.q_seq, p.v_head_size};
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  p.present_key = has_output(context, 1);
  p.present_value = has_output(context, 2);
  p.qk_output = has_output(context, 3);
  if (p.present_key) GE_RETURN_IF_ERROR(check_output(context, 1, dtype, {p.batch, p.kv_heads, total, p.head_size}));
  if (p.present_value) {
    GE_RETURN_IF_ERROR(check_output(context, 2, v_dtype, {p.batch, p.kv_heads, total, p.v_head_size}));
  }
  if (p.qk_output) GE_RETURN_IF_ERROR(check_output(context, 3, dtype, {p.batch, p.q_heads, p.q_seq, total}));
  if (!nn::is_floating_dtype(v_dtype)) return unsupported_dtype(context, v_dtype, data_types(nn::FloatingTypes{}));
  KernelFunction function = select_kernel(dtype, nn::FloatingTypes{}, [&]<typename T>() -> KernelFunction {
    return select_kernel(v_dtype, nn::FloatingTypes{},
                         []<typename TV>() -> KernelFunction { return &attention_kernel<T, TV>; });
  });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(nn::FloatingTypes{}));
  const size_t workspace = static_cast<size_t>(std::max<int64_t>(total, 1)) * 2 * sizeof(double);
  return make_kernel(context, function, p, workspace);
}

}  // namespace

void add_nn_attention_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Attention", data_types(nn::FloatingTypes{}), &prepare_attention});
}

}  // namespace ge::reference_kernels
