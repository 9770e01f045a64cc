// QuantizeLinear and DequantizeLinear (opsets 10, 13: per-tensor, or per-axis with a 1-D
// scale along `axis`), and DynamicQuantizeLinear (opset 11). As in ONNX Runtime the
// arithmetic is float32 (double for float64 inputs) and rounding is half to even:
//   QuantizeLinear:   y = saturate(round(x / y_scale) + y_zero_point)  (uint8 unless the
//                     zero point says int8)
//   DequantizeLinear: y = (x - x_zero_point) * x_scale
//   DynamicQuantizeLinear: scale = (max(x, 0) - min(x, 0)) / 255 (1 when that is 0),
//                     zero point = saturate(round(-min(x, 0) / scale)), then quantize.
// Scales and zero points are read at launch: they are often runtime inputs.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "nn_element.h"
#include "nn_kernels.h"
#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

using nn::Half;

struct QuantizeParams {
  int64_t outer = 1, channels = 1, inner = 1;  // X viewed as [outer, channels, inner]
  bool per_axis = false;                       // scale/zero point have `channels` values
  bool has_zero_point = false;
};

template <typename Y, typename C>
Y saturate_round(C value, C zero_point) {
  C rounded = std::nearbyint(value) + zero_point;
  constexpr C kLowest = static_cast<C>(std::numeric_limits<Y>::lowest());
  constexpr C kHighest = static_cast<C>(std::numeric_limits<Y>::max());
  if (std::isnan(rounded)) return Y(0);
  rounded = rounded < kLowest ? kLowest : (rounded > kHighest ? kHighest : rounded);
  return static_cast<Y>(rounded);
}

// X's element as the compute type: float, or double for float64.
template <typename X>
using QuantizeCompute = std::conditional_t<std::is_same_v<X, double>, double, float>;

template <typename X>
QuantizeCompute<X> to_compute(X value) {
  return static_cast<QuantizeCompute<X>>(nn::load(value));
}

template <typename X, typename Y>
int quantize_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  using C = QuantizeCompute<X>;
  const auto* x = static_cast<const X*>(args.inputs[0]);
  const auto* scale = static_cast<const float*>(args.inputs[1]);
  const auto* zero_point = p.has_zero_point ? static_cast<const Y*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<Y*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_zero_point && zero_point == nullptr)) {
    return kKernelMissingAddress;
  }
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t k = p.per_axis ? c : 0;
      const C s = static_cast<C>(scale[k]);
      const C z = zero_point != nullptr ? static_cast<C>(zero_point[k]) : C(0);
      const int64_t base = (o * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) y[base + i] = saturate_round<Y>(to_compute(x[base + i]) / s, z);
    }
  }
  return kKernelOk;
}

template <typename X>
int dequantize_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* x = static_cast<const X*>(args.inputs[0]);
  const auto* scale = static_cast<const float*>(args.inputs[1]);
  const auto* zero_point = p.has_zero_point ? static_cast<const X*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<float*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_zero_point && zero_point == nullptr)) {
    return kKernelMissingAddress;
  }
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t k = p.per_axis ? c : 0;
      const int64_t z = zero_point != nullptr ? static_cast<int64_t>(zero_point[k]) : 0;
      const int64_t base = (o * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        y[base + i] = static_cast<float>(static_cast<int64_t>(x[base + i]) - z) * scale[k];
      }
    }
  }
  return kKernelOk;
}

int dynamic_quantize_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* x = static_cast<const float*>(args.inputs[0]);
  auto* y = static_cast<uint8_t*>(args.outputs[0]);
  auto* y_scale = static_cast<float*>(args.outputs[1]);
  auto* y_zero_point = static_cast<uint8_t*>(args.outputs[2]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const int64_t count = p.outer;
  float low = 0.0f, high = 0.0f;  // the range always includes 0
  for (int64_t i = 0; i < count; ++i) {
    low = std::min(low, x[i]);
    high = std::max(high, x[i]);
  }
  const float scale = high == low ? 1.0f : (high - low) / 255.0f;
  const float initial = 0.0f - low / scale;
  const auto zero_point = static_cast<uint8_t>(std::nearbyint(std::clamp(initial, 0.0f, 255.0f)));
  for (int64_t i = 0; i < count; ++i) y[i] = saturate_round<uint8_t>(x[i] / scale, static_cast<float>(zero_point));
  if (y_scale != nullptr) *y_scale = scale;
  if (y_zero_point != nullptr) *y_zero_point = zero_point;
  return kKernelOk;
}

// Reads `axis` and the shapes of the scale (input 1) and zero point (input 2) against X.
Result<QuantizeParams> read_layout(const KernelContext& context, const std::vector<int64_t>& x_dims) {
  QuantizeParams p;
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kFloat32));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> scale_dims, input_dims(context, 1));
  p.has_zero_point = has_input(context, 2);
  p.outer = product(x_dims);
  // A one-element scale is per-tensor (per-axis over an extent-1 axis is the same).
  if (!(scale_dims.size() <= 1 && product(scale_dims) == 1)) {
    if (context.opset < 13 || scale_dims.size() != 1) {
      return invalid_node(context, "scale " + shape_to_string(scale_dims) + " must be a scalar" +
                                       (context.opset >= 13 ? std::string(" or 1-D") : std::string()));
    }
    const int64_t rank = static_cast<int64_t>(x_dims.size());
    GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 1));
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
    if (scale_dims[0] != x_dims[axis]) {
      return invalid_node(context, "scale " + shape_to_string(scale_dims) + " must have X's extent " +
                                       std::to_string(x_dims[axis]) + " along axis " + std::to_string(axis));
    }
    p.per_axis = true;
    p.outer = product(x_dims, 0, static_cast<size_t>(axis));
    p.channels = x_dims[axis];
    p.inner = product(x_dims, static_cast<size_t>(axis) + 1, x_dims.size());
  }
  if (p.has_zero_point) {
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> zero_dims, input_dims(context, 2));
    if (product(zero_dims) != product(scale_dims) || zero_dims.size() > 1) {
      return invalid_node(context, "zero point " + shape_to_string(zero_dims) + " must have the shape of scale " +
                                       shape_to_string(scale_dims));
    }
  }
  return p;
}

using QuantizeInputTypes = TypeList<float, int32_t, double, Half>;
using QuantizedTypes = TypeList<uint8_t, int8_t>;
using DequantizeInputTypes = TypeList<uint8_t, int8_t, int32_t>;

Result<PreparedKernel> prepare_quantize(const KernelContext& context) {
  const DataType x_dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(QuantizeParams p, read_layout(context, x_dims));
  const DataType y_dtype = p.has_zero_point ? input_dtype(context, 2) : DataType::kUInt8;
  const std::vector<DataType> quantized = data_types(QuantizedTypes{});
  if (y_dtype != DataType::kUInt8 && y_dtype != DataType::kInt8) return unsupported_dtype(context, y_dtype, quantized);
  GE_RETURN_IF_ERROR(check_output(context, 0, y_dtype, x_dims));
  KernelFunction function = nn::select(x_dtype, QuantizeInputTypes{}, [&]<typename X>() -> KernelFunction {
    return select_kernel(y_dtype, QuantizedTypes{},
                         []<typename Y>() -> KernelFunction { return &quantize_kernel<X, Y>; });
  });
  return make_kernel(context, function, p);
}

Result<PreparedKernel> prepare_dequantize(const KernelContext& context) {
  const DataType x_dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(QuantizeParams p, read_layout(context, x_dims));
  if (p.has_zero_point) GE_RETURN_IF_ERROR(check_input_dtype(context, 2, x_dtype));
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kFloat32, x_dims));
  KernelFunction function = select_kernel(x_dtype, DequantizeInputTypes{},
                                          []<typename X>() -> KernelFunction { return &dequantize_kernel<X>; });
  return make_kernel(context, function, p);
}

Result<PreparedKernel> prepare_dynamic_quantize(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kUInt8, x_dims));
  if (has_output(context, 1)) GE_RETURN_IF_ERROR(check_output(context, 1, DataType::kFloat32, {}));
  if (has_output(context, 2)) GE_RETURN_IF_ERROR(check_output(context, 2, DataType::kUInt8, {}));
  QuantizeParams p;
  p.outer = product(x_dims);
  return make_kernel(context, &dynamic_quantize_kernel, p);
}

}  // namespace

void add_nn_quantize_kernels(std::vector<OpKernel>& table) {
  table.push_back({"QuantizeLinear", nn::dtypes(QuantizeInputTypes{}), &prepare_quantize});
  table.push_back({"DequantizeLinear", data_types(DequantizeInputTypes{}), &prepare_dequantize});
  table.push_back({"DynamicQuantizeLinear", {DataType::kFloat32}, &prepare_dynamic_quantize});
}

}  // namespace ge::cpu_kernels
