// MatMulInteger (opset 10) and QLinearMatMul (opsets 10, 21): numpy matmul of 8-bit
// matrices (1-D operands and broadcast batch axes as in MatMul) with zero points.
// Integer A, B and Y accumulate exactly in int32: A and B are shifted by their zero
// points into int32 (A's per tensor or per row, B's per tensor or per column), then each
// output matrix is one int32 GEMM. MatMulInteger outputs the sums; QLinearMatMul
// requantizes them with the float multiplier a_scale * b_scale[column] / y_scale,
// rounding half to even and saturating after adding y_zero_point, as ONNX Runtime does.
// QLinearMatMul-21 adds float8 A, B and Y and float16/bfloat16 scales. Any float8 operand
// or output takes a float path: A and B are dequantized into double ((code - zero point)
// * scale; float8 zero points are 0 by the spec and applied as given), multiplied in
// double, divided by y_scale, then Y is encoded: float8 rounding to nearest even and
// saturating (Cast's saturate=1), int8/uint8 as above. Zero points and scales are read
// at launch.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "common/narrow_element.h"
#include "common/strided_loop.h"
#include "nn/gemm_reference.h"
#include "nn/nn_element.h"
#include "quantization/nn_quantization.h"
#include "quantization/registration.h"

namespace ge::reference_kernels {
namespace {

using Int8Types = TypeList<int8_t, uint8_t>;

struct QuantizedMatMulParams {
  int64_t m = 0, n = 0, k = 0;
  std::vector<int64_t> a_matrix, b_matrix;  // per output matrix, as in MatMul
  int64_t a_elements = 0, b_elements = 0;
  bool qlinear = false;
  int b_input = 1;
  int a_zero_input = -1, b_zero_input = -1;
  int a_scale_input = -1, b_scale_input = -1, y_scale_input = -1, y_zero_input = -1;
  bool a_zero_per_row = false, b_zero_per_column = false, b_scale_per_column = false;
  // float32, float16 or bfloat16 (QLinearMatMul-21).
  DataType a_scale_dtype = DataType::kFloat32, b_scale_dtype = DataType::kFloat32, y_scale_dtype = DataType::kFloat32;
  DataType a_dtype = DataType::kInt8, b_dtype = DataType::kInt8, y_dtype = DataType::kInt8;  // the float path's
};

bool is_float8(DataType dtype) { return is_minifloat(dtype) && dtype != DataType::kFloat4E2M1; }

// The dtypes of QLinearMatMul's A, B and Y: int8 and uint8, and from opset 21 float8.
std::vector<DataType> qlinear_types(bool with_float8) {
  std::vector<DataType> types = data_types(Int8Types{});
  if (with_float8) {
    for (DataType narrow : narrow_types()) {
      if (is_float8(narrow)) types.push_back(narrow);
    }
  }
  return types;
}

float scale_at(const void* scale, DataType dtype, int64_t index) {
  return static_cast<float>(nn::load_as_double(scale, dtype, index));
}

// dst[i] = src[i] - zero[channel of i], channel = (i / inner) % period (period 1: one
// zero point for the whole tensor).
template <typename T>
void shift(const T* src, int64_t count, const T* zero, int64_t period, int64_t inner, int32_t* dst) {
  for (int64_t i = 0; i < count; ++i) {
    const int32_t offset = zero == nullptr ? 0 : static_cast<int32_t>(zero[period == 1 ? 0 : (i / inner) % period]);
    dst[i] = static_cast<int32_t>(src[i]) - offset;
  }
}

template <typename A, typename B, typename Y>
int quantized_matmul_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizedMatMulParams*>(args.params);
  auto input = [&](int index) -> const void* { return index >= 0 ? args.inputs[index] : nullptr; };
  const auto* a = static_cast<const A*>(args.inputs[0]);
  const auto* b = static_cast<const B*>(input(p.b_input));
  const auto* a_zero = static_cast<const A*>(input(p.a_zero_input));
  const auto* b_zero = static_cast<const B*>(input(p.b_zero_input));
  const void* a_scale = input(p.a_scale_input);
  const void* b_scale = input(p.b_scale_input);
  const void* y_scale = input(p.y_scale_input);
  const auto* y_zero = static_cast<const Y*>(input(p.y_zero_input));
  if (a == nullptr || b == nullptr || args.outputs[0] == nullptr || args.workspace == nullptr ||
      (p.a_zero_input >= 0 && a_zero == nullptr) || (p.b_zero_input >= 0 && b_zero == nullptr) ||
      (p.qlinear && (a_scale == nullptr || b_scale == nullptr || y_scale == nullptr)) ||
      (p.y_zero_input >= 0 && y_zero == nullptr)) {
    return kKernelMissingAddress;
  }
  auto* shifted_a = static_cast<int32_t*>(args.workspace);
  int32_t* shifted_b = shifted_a + p.a_elements;
  int32_t* accumulator = shifted_b + p.b_elements;
  shift(a, p.a_elements, a_zero, p.a_zero_per_row ? p.m : 1, p.k, shifted_a);
  shift(b, p.b_elements, b_zero, p.b_zero_per_column ? p.n : 1, 1, shifted_b);
  // The float multiplier of each column, a_scale * b_scale[column] / y_scale in float
  // (float16/bfloat16 scales widened to float first).
  float* multipliers = p.qlinear ? reinterpret_cast<float*>(accumulator + p.m * p.n) : nullptr;
  if (p.qlinear) {
    const float a_factor = scale_at(a_scale, p.a_scale_dtype, 0);
    const float y_divisor = scale_at(y_scale, p.y_scale_dtype, 0);
    for (int64_t j = 0; j < p.n; ++j) {
      multipliers[j] = a_factor * scale_at(b_scale, p.b_scale_dtype, p.b_scale_per_column ? j : 0) / y_divisor;
    }
  }
  const int64_t size = p.m * p.n;
  for (size_t batch = 0; batch < p.a_matrix.size(); ++batch) {
    int32_t* sums =
        p.qlinear ? accumulator : static_cast<int32_t*>(args.outputs[0]) + static_cast<int64_t>(batch) * size;
    std::fill(sums, sums + size, 0);
    gemm_accumulate(p.m, p.n, p.k, shifted_a + p.a_matrix[batch] * p.m * p.k, p.k, 1,
                    shifted_b + p.b_matrix[batch] * p.k * p.n, p.n, 1, sums, p.n);
    if (!p.qlinear) continue;
    Y* y = static_cast<Y*>(args.outputs[0]) + static_cast<int64_t>(batch) * size;
    const float y_offset = y_zero != nullptr ? static_cast<float>(y_zero[0]) : 0.0f;
    constexpr float kLowest = static_cast<float>(std::numeric_limits<Y>::lowest());
    constexpr float kHighest = static_cast<float>(std::numeric_limits<Y>::max());
    for (int64_t i = 0; i < size; ++i) {
      const float multiplier = multipliers[p.b_scale_per_column ? i % p.n : 0];
      float value = std::nearbyint(static_cast<float>(sums[i]) * multiplier) + y_offset;
      value = value < kLowest ? kLowest : (value > kHighest ? kHighest : value);
      y[i] = static_cast<Y>(value);
    }
  }
  return kKernelOk;
}

// Reads elements of A, B, Y's zero point as doubles: int8/uint8 by value, float8 decoded.
struct ElementReader {
  DataType dtype;
  bool float8 = is_float8(dtype);
  NarrowCodec codec = float8 ? NarrowCodec::of(dtype) : NarrowCodec{};

  double operator()(const void* data, int64_t index) const {
    if (float8) return codec.decode(static_cast<const uint8_t*>(data)[index]);
    return nn::load_as_double(data, dtype, index);
  }
};

// QLinearMatMul with a float8 A, B or Y (see the file comment).
int qlinear_matmul_float_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizedMatMulParams*>(args.params);
  auto input = [&](int index) -> const void* { return index >= 0 ? args.inputs[index] : nullptr; };
  const void* a = args.inputs[0];
  const void* b = input(p.b_input);
  const void* a_zero = input(p.a_zero_input);
  const void* b_zero = input(p.b_zero_input);
  const void* a_scale = input(p.a_scale_input);
  const void* b_scale = input(p.b_scale_input);
  const void* y_scale = input(p.y_scale_input);
  const void* y_zero = input(p.y_zero_input);
  if (a == nullptr || b == nullptr || args.outputs[0] == nullptr || args.workspace == nullptr ||
      (p.a_zero_input >= 0 && a_zero == nullptr) || (p.b_zero_input >= 0 && b_zero == nullptr) || a_scale == nullptr ||
      b_scale == nullptr || y_scale == nullptr || (p.y_zero_input >= 0 && y_zero == nullptr)) {
    return kKernelMissingAddress;
  }
  auto* real_a = static_cast<double*>(args.workspace);
  double* real_b = real_a + p.a_elements;
  double* accumulator = real_b + p.b_elements;
  const ElementReader read_a{p.a_dtype}, read_b{p.b_dtype}, read_y{p.y_dtype};
  const double a_zero_value = a_zero != nullptr ? read_a(a_zero, 0) : 0.0;
  const double a_factor = scale_at(a_scale, p.a_scale_dtype, 0);
  for (int64_t i = 0; i < p.a_elements; ++i) real_a[i] = (read_a(a, i) - a_zero_value) * a_factor;
  for (int64_t i = 0; i < p.b_elements; ++i) {
    const int64_t column = i % p.n;
    const double zero = b_zero != nullptr ? read_b(b_zero, p.b_zero_per_column ? column : 0) : 0.0;
    const double factor = scale_at(b_scale, p.b_scale_dtype, p.b_scale_per_column ? column : 0);
    real_b[i] = (read_b(b, i) - zero) * factor;
  }
  const double y_divisor = scale_at(y_scale, p.y_scale_dtype, 0);
  const double y_offset = y_zero != nullptr ? read_y(y_zero, 0) : 0.0;
  const int64_t size = p.m * p.n;
  for (size_t batch = 0; batch < p.a_matrix.size(); ++batch) {
    std::fill(accumulator, accumulator + size, 0.0);
    gemm_accumulate(p.m, p.n, p.k, real_a + p.a_matrix[batch] * p.m * p.k, p.k, 1,
                    real_b + p.b_matrix[batch] * p.k * p.n, p.n, 1, accumulator, p.n);
    auto* y = static_cast<uint8_t*>(args.outputs[0]) + static_cast<int64_t>(batch) * size;
    for (int64_t i = 0; i < size; ++i) {
      const double quotient = accumulator[i] / y_divisor;
      if (read_y.float8) {
        y[i] = read_y.codec.encode(quotient + y_offset);  // saturate=1
        continue;
      }
      // Rounded half to even, then y_zero_point added and saturated (NaN gives 0).
      const double value = std::nearbyint(quotient) + y_offset;
      y[i] = p.y_dtype == DataType::kInt8 ? static_cast<uint8_t>(nn::store<int8_t>(value)) : nn::store<uint8_t>(value);
    }
  }
  return kKernelOk;
}

template <typename A, typename B>
KernelFunction pick_output(DataType y_dtype, bool qlinear) {
  if (!qlinear) return &quantized_matmul_kernel<A, B, int32_t>;
  return select_kernel(y_dtype, Int8Types{},
                       []<typename Y>() -> KernelFunction { return &quantized_matmul_kernel<A, B, Y>; });
}

Result<PreparedKernel> prepare_quantized_matmul(const KernelContext& context) {
  QuantizedMatMulParams p;
  p.qlinear = context.node.op_type() == "QLinearMatMul";
  if (p.qlinear) {
    p.a_scale_input = 1;
    p.a_zero_input = 2;
    p.b_input = 3;
    p.b_scale_input = 4;
    p.b_zero_input = 5;
    p.y_scale_input = 6;
    p.y_zero_input = 7;
  } else {
    p.a_zero_input = 2;
    p.b_zero_input = 3;
  }
  for (int* slot : {&p.a_zero_input, &p.b_zero_input, &p.y_zero_input}) {
    if (*slot >= 0 && !has_input(context, static_cast<size_t>(*slot))) *slot = -1;
  }
  for (int slot : {p.b_input, p.a_scale_input, p.b_scale_input, p.y_scale_input}) {
    if (slot >= 0 && !has_input(context, static_cast<size_t>(slot))) {
      return invalid_node(context, "input " + std::to_string(slot) + " is required");
    }
  }
  const DataType a_dtype = input_dtype(context, 0);
  const DataType b_dtype = input_dtype(context, static_cast<size_t>(p.b_input));
  // QLinearMatMul-21 widened A, B and Y to the float8 types and the scales to float16
  // and bfloat16.
  const bool opset21 = p.qlinear && context.opset >= 21;
  for (auto [name, dtype] : {std::pair{"A", a_dtype}, std::pair{"B", b_dtype}}) {
    if (dtype == DataType::kInt8 || dtype == DataType::kUInt8) continue;
    if (p.qlinear && is_float8(dtype)) {
      if (opset21) continue;
      return invalid_node(context, std::string(name) + " of dtype " + std::string(data_type_name(dtype)) +
                                       " needs opset 21 (the node has opset " + std::to_string(context.opset) + ")");
    }
    return unsupported_feature(context, std::string(name) + " of dtype " + std::string(data_type_name(dtype)) +
                                            (p.qlinear ? " (int8, uint8 and the float8 types are supported)"
                                                       : " (int8 and uint8 are supported)"));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> a_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, static_cast<size_t>(p.b_input)));
  if (a_dims.empty() || b_dims.empty()) {
    return invalid_node(
        context, "inputs A " + shape_to_string(a_dims) + " and B " + shape_to_string(b_dims) + " must have rank >= 1");
  }
  p.a_elements = product(a_dims);
  p.b_elements = product(b_dims);
  const bool a_vector = a_dims.size() == 1;
  const bool b_vector = b_dims.size() == 1;
  if (a_vector) a_dims.insert(a_dims.begin(), 1);
  if (b_vector) b_dims.push_back(1);
  p.m = a_dims[a_dims.size() - 2];
  p.k = a_dims.back();
  p.n = b_dims.back();
  if (b_dims[b_dims.size() - 2] != p.k) {
    return invalid_node(context,
                        "inner dimensions differ: A " + shape_to_string(a_dims) + " and B " + shape_to_string(b_dims));
  }
  const std::vector<int64_t> a_batch(a_dims.begin(), a_dims.end() - 2);
  const std::vector<int64_t> b_batch(b_dims.begin(), b_dims.end() - 2);
  std::optional<std::vector<int64_t>> batch = broadcast_shapes(a_batch, b_batch);
  if (!batch) {
    return invalid_node(context, "batch dimensions of A " + shape_to_string(a_dims) + " and B " +
                                     shape_to_string(b_dims) + " do not broadcast");
  }
  GE_ASSIGN_OR_RETURN(p.a_zero_per_row,
                      check_quantization_parameter(context, p.a_zero_input, "a_zero_point", a_dtype, p.m));
  GE_ASSIGN_OR_RETURN(p.b_zero_per_column,
                      check_quantization_parameter(context, p.b_zero_input, "b_zero_point", b_dtype, p.n));
  DataType y_dtype = DataType::kInt32;
  if (p.qlinear) {
    if (p.a_zero_per_row) return invalid_node(context, "a_zero_point must be a scalar");
    for (auto [index, name, dtype] : {std::tuple{p.a_scale_input, "a_scale", &p.a_scale_dtype},
                                      std::tuple{p.b_scale_input, "b_scale", &p.b_scale_dtype},
                                      std::tuple{p.y_scale_input, "y_scale", &p.y_scale_dtype}}) {
      *dtype = input_dtype(context, static_cast<size_t>(index));
      const bool half = *dtype == DataType::kFloat16 || *dtype == DataType::kBFloat16;
      if (*dtype == DataType::kFloat32 || (opset21 && half)) continue;
      return unsupported_feature(context, std::string(name) + " of dtype " + std::string(data_type_name(*dtype)) +
                                              (opset21 ? " (float32, float16 and bfloat16 are supported)"
                                                       : " (float32 is supported before opset 21)"));
    }
    GE_RETURN_IF_ERROR(check_quantization_parameter(context, p.a_scale_input, "a_scale", p.a_scale_dtype, 0).status());
    GE_ASSIGN_OR_RETURN(p.b_scale_per_column,
                        check_quantization_parameter(context, p.b_scale_input, "b_scale", p.b_scale_dtype, p.n));
    GE_RETURN_IF_ERROR(check_quantization_parameter(context, p.y_scale_input, "y_scale", p.y_scale_dtype, 0).status());
    GE_RETURN_IF_ERROR(check_scale_values(context, p.a_scale_input, "a_scale"));
    GE_RETURN_IF_ERROR(check_scale_values(context, p.b_scale_input, "b_scale"));
    GE_RETURN_IF_ERROR(check_scale_values(context, p.y_scale_input, "y_scale"));
    y_dtype = p.y_zero_input >= 0 ? input_dtype(context, static_cast<size_t>(p.y_zero_input))
                                  : context.node.output(0)->desc().dtype;
    const std::vector<DataType> y_types = qlinear_types(opset21);
    if (std::find(y_types.begin(), y_types.end(), y_dtype) == y_types.end()) {
      if (is_float8(y_dtype)) {
        return invalid_node(context, "Y of dtype " + std::string(data_type_name(y_dtype)) +
                                         " needs opset 21 (the node has opset " + std::to_string(context.opset) + ")");
      }
      return unsupported_dtype(context, y_dtype, y_types);
    }
    GE_RETURN_IF_ERROR(check_quantization_parameter(context, p.y_zero_input, "y_zero_point", y_dtype, 0).status());
  }
  std::vector<int64_t> y_dims = *batch;
  if (!a_vector) y_dims.push_back(p.m);
  if (!b_vector) y_dims.push_back(p.n);
  GE_RETURN_IF_ERROR(check_output(context, 0, y_dtype, y_dims));

  const std::vector<int64_t> a_strides = broadcast_strides(a_batch, batch->size());
  const std::vector<int64_t> b_strides = broadcast_strides(b_batch, batch->size());
  const int64_t matrices = product(*batch);
  std::vector<int64_t> index(batch->size(), 0);
  for (int64_t i = 0; i < matrices; ++i) {
    int64_t a_offset = 0, b_offset = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      a_offset += index[d] * a_strides[d];
      b_offset += index[d] * b_strides[d];
    }
    p.a_matrix.push_back(a_offset);
    p.b_matrix.push_back(b_offset);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < (*batch)[d]) break;
      index[d] = 0;
    }
  }
  if (is_float8(a_dtype) || is_float8(b_dtype) || is_float8(y_dtype)) {
    p.a_dtype = a_dtype;
    p.b_dtype = b_dtype;
    p.y_dtype = y_dtype;
    const size_t workspace = static_cast<size_t>(p.a_elements + p.b_elements + p.m * p.n) * sizeof(double);
    return make_kernel(context, &qlinear_matmul_float_kernel, std::move(p), workspace, "float8");
  }
  const bool qlinear = p.qlinear;
  KernelFunction function = select_kernel(a_dtype, Int8Types{}, [&]<typename A>() -> KernelFunction {
    return select_kernel(b_dtype, Int8Types{},
                         [&]<typename B>() -> KernelFunction { return pick_output<A, B>(y_dtype, qlinear); });
  });
  const size_t workspace =
      static_cast<size_t>(p.a_elements + p.b_elements + (p.qlinear ? p.m * p.n + p.n : 0)) * sizeof(int32_t);
  static_assert(sizeof(float) == sizeof(int32_t), "the multipliers follow the int32 accumulator");
  return make_kernel(context, function, std::move(p), workspace);
}

}  // namespace

void add_nn_quantized_matmul_kernels(std::vector<OpKernel>& table) {
  table.push_back({"MatMulInteger", data_types(Int8Types{}), &prepare_quantized_matmul});
  table.push_back({"QLinearMatMul", qlinear_types(true), &prepare_quantized_matmul});
}

}  // namespace ge::reference_kernels
