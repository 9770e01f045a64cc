// QuantizeLinear and DequantizeLinear (opsets 10, 13: per-tensor, or per-axis with a 1-D
// scale along `axis`; opset 21: blocked, where the scale has X's shape except along `axis`,
// whose extent is ceil(dim / block_size), and element i along `axis` uses scale
// floor(i / block_size)), and DynamicQuantizeLinear (opset 11). As in ONNX Runtime the
// arithmetic is float32 (double for float64 inputs) and rounding is half to even:
//   QuantizeLinear:   y = saturate(round(x / y_scale) + y_zero_point)  (the zero point's
//                     type, else `output_dtype` (opset 21), else uint8)
//   DequantizeLinear: y = (x - x_zero_point) * x_scale  (the scale's type, or
//                     `output_dtype` from opset 23, rounded from the float32 product)
//   DynamicQuantizeLinear: scale = (max(x, 0) - min(x, 0)) / 255 (1 when that is 0),
//                     zero point = saturate(round(-min(x, 0) / scale)), then quantize.
// Scales and zero points are read at launch: they are often runtime inputs. The scale
// may be float32, float16 or bfloat16 (opset 19).
// The 4- and 8-bit types (narrow_element.h) quantize as ONNX's reference does: float8
// (opset 19) and float4e2m1 (opset 23) are a cast of x / y_scale, rounding to nearest
// even, float8 with the `saturate` attribute (float4 always saturates; their zero point
// is 0 by the spec and only added when it is not); int4/uint4 (opset 21) round half to
// even, add the zero point and clip to [-8, 7] / [0, 15]. Dequantizing decodes them.

// GCC 12 warns that the AVX-512 intrinsics' own placeholder operands are uninitialised
// (GCC bug 105593, fixed in 13): not about this file's code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/narrow_element.h"
#include "nn/nn_element.h"
#include "quantization/nn_quantization.h"
#include "quantization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::BFloat16;
using nn::Half;

// X viewed as [outer, channels, inner]. The scale (and zero point) element of X's element
// (o, c, i) is 0 per tensor, c per axis, and (o * blocks + c / block_size) * inner + i
// when blocked.
struct QuantizeParams {
  int64_t outer = 1, channels = 1, inner = 1;
  bool per_axis = false;
  int64_t block_size = 0;  // > 0: blocked
  int64_t blocks = 1;      // ceil(channels / block_size) when blocked
  bool has_zero_point = false;
  DataType scale_dtype = DataType::kFloat32;
  // QuantizeLinear-23: the precision of x / scale. float16/bfloat16 divide x and the scale
  // rounded to that type and round the quotient to it (as ONNX's reference, which casts
  // both operands and divides in that type; the float32 division of two such values
  // rounds correctly); float32 (and x float64) keep the quotient as computed.
  DataType precision = DataType::kFloat32;
  NarrowCodec narrow;  // y (QuantizeLinear) or x (DequantizeLinear) of a narrow type

  // The scale index of (o, c, 0) and its step along i.
  int64_t scale_offset(int64_t o, int64_t c) const {
    if (block_size > 0) return (o * blocks + c / block_size) * inner;
    return per_axis ? c : 0;
  }
  int64_t scale_step() const { return block_size > 0 ? 1 : 0; }
};

// An element of a narrow type (float8, float4, int4, uint4): its byte code.
struct NarrowCode {
  uint8_t bits;
};

// Scale element k (float32, float16 or bfloat16) as float.
inline float scale_at(const QuantizeParams& p, const void* scale, int64_t k) {
  if (p.scale_dtype == DataType::kFloat32) return static_cast<const float*>(scale)[k];
  return static_cast<float>(nn::load_as_double(scale, p.scale_dtype, k));
}

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

// y's element for value = x / scale and zero point element k (when there is one).
template <typename Y, typename C>
Y quantize_element(const QuantizeParams& p, C value, const Y* zero_point, int64_t k) {
  if constexpr (std::is_same_v<Y, NarrowCode>) {
    const C z = zero_point != nullptr ? static_cast<C>(p.narrow.decode(zero_point[k].bits)) : C(0);
    if (p.narrow.is_float) return NarrowCode{p.narrow.encode(static_cast<double>(z != C(0) ? value + z : value))};
    return NarrowCode{p.narrow.encode(static_cast<double>(std::nearbyint(value) + z))};
  } else {
    const C z = zero_point != nullptr ? static_cast<C>(zero_point[k]) : C(0);
    return saturate_round<Y>(value, z);
  }
}

// x's element minus its zero point's (element k, when there is one), as float.
template <typename X>
float dequantize_element(const QuantizeParams& p, X value, const X* zero_point, int64_t k) {
  if constexpr (std::is_same_v<X, NarrowCode>) {
    const double z = zero_point != nullptr ? p.narrow.decode(zero_point[k].bits) : 0.0;
    return static_cast<float>(p.narrow.decode(value.bits) - z);
  } else {
    const int64_t z = zero_point != nullptr ? static_cast<int64_t>(zero_point[k]) : 0;
    return static_cast<float>(static_cast<int64_t>(value) - z);
  }
}

// `value` rounded to float16 or bfloat16 when `precision` is one of them.
template <typename C>
C in_precision(DataType precision, C value) {
  if (precision == DataType::kFloat16) return static_cast<C>(nn::load(nn::store<Half>(value)));
  if (precision == DataType::kBFloat16) return static_cast<C>(nn::load(nn::store<BFloat16>(value)));
  return value;
}

template <typename X, typename Y>
int quantize_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  using C = QuantizeCompute<X>;
  const auto* x = static_cast<const X*>(args.inputs[0]);
  const void* scale = args.inputs[1];
  const auto* zero_point = p.has_zero_point ? static_cast<const Y*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<Y*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_zero_point && zero_point == nullptr)) {
    return kKernelMissingAddress;
  }
  const int64_t step = p.scale_step();
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (o * p.channels + c) * p.inner;
      for (int64_t i = 0, k = p.scale_offset(o, c); i < p.inner; ++i, k += step) {
        const C value = in_precision(p.precision, in_precision(p.precision, to_compute(x[base + i])) /
                                                      in_precision(p.precision, static_cast<C>(scale_at(p, scale, k))));
        y[base + i] = quantize_element<Y>(p, value, zero_point, k);
      }
    }
  }
  return kKernelOk;
}

template <typename X, typename Y>
int dequantize_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* x = static_cast<const X*>(args.inputs[0]);
  const void* scale = args.inputs[1];
  const auto* zero_point = p.has_zero_point ? static_cast<const X*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<Y*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_zero_point && zero_point == nullptr)) {
    return kKernelMissingAddress;
  }
  const int64_t step = p.scale_step();
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (o * p.channels + c) * p.inner;
      for (int64_t i = 0, k = p.scale_offset(o, c); i < p.inner; ++i, k += step) {
        const float value = dequantize_element(p, x[base + i], zero_point, k) * scale_at(p, scale, k);
        y[base + i] = nn::store<Y>(value);
      }
    }
  }
  return kKernelOk;
}

// The hot cases (float32 x and scales, int8/uint8 y, per tensor or per axis) on AVX-512
// where the CPU has it: 16 elements per step with the scalar loops' arithmetic exactly (an
// IEEE division, rounding half to even, the zero point added to the rounded integer, NaN
// to 0, saturation), the scalar loop for the tail and on other CPUs.
namespace quantize_rows {

bool has_avx512() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return available;
}

template <typename Y>
void quantize_scalar(const float* x, int64_t count, float scale, float zero_point, Y* y) {
  for (int64_t i = 0; i < count; ++i) y[i] = saturate_round<Y>(x[i] / scale, zero_point);
}

template <typename Y>
__attribute__((target("avx512f,avx512bw"))) void quantize_avx512(const float* x, int64_t count, float scale,
                                                                 float zero_point, Y* y) {
  const __m512 divisor = _mm512_set1_ps(scale), zero = _mm512_set1_ps(zero_point);
  const __m512 lowest = _mm512_set1_ps(static_cast<float>(std::numeric_limits<Y>::lowest()));
  const __m512 highest = _mm512_set1_ps(static_cast<float>(std::numeric_limits<Y>::max()));
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512 rounded = _mm512_add_ps(_mm512_roundscale_ps(_mm512_div_ps(_mm512_loadu_ps(x + i), divisor),
                                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                                         zero);
    const __mmask16 ordered = _mm512_cmp_ps_mask(rounded, rounded, _CMP_ORD_Q);
    const __m512 clamped = _mm512_maskz_mov_ps(ordered, _mm512_min_ps(_mm512_max_ps(rounded, lowest), highest));
    const __m512i integers = _mm512_cvtps_epi32(clamped);  // exact: already integers in range
    const __m128i bytes =
        std::is_same_v<Y, int8_t> ? _mm512_cvtsepi32_epi8(integers) : _mm512_cvtusepi32_epi8(integers);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), bytes);
  }
  quantize_scalar(x + i, count - i, scale, zero_point, y + i);
}

template <typename Y>
void quantize(const float* x, int64_t count, float scale, float zero_point, Y* y) {
  if (has_avx512()) return quantize_avx512(x, count, scale, zero_point, y);
  quantize_scalar(x, count, scale, zero_point, y);
}

template <typename X>
__attribute__((target("avx512f,avx512bw"))) void dequantize_avx512(const X* x, int64_t count, float scale,
                                                                   int32_t zero_point, float* y) {
  const __m512 factor = _mm512_set1_ps(scale);
  const __m512i zero = _mm512_set1_epi32(zero_point);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m512i wide = std::is_same_v<X, int8_t> ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
    _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(wide, zero)), factor));
  }
  for (; i < count; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
}

template <typename X>
void dequantize(const X* x, int64_t count, float scale, int32_t zero_point, float* y) {
  if (has_avx512()) return dequantize_avx512(x, count, scale, zero_point, y);
  for (int64_t i = 0; i < count; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
}

// min(0, x...) and max(0, x...) as the scalar loop takes them (NaN never replaces).
__attribute__((target("avx512f"))) void range_avx512(const float* x, int64_t count, float& low, float& high) {
  __m512 lows = _mm512_setzero_ps(), highs = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    lows = _mm512_min_ps(v, lows);  // the second operand where v is NaN
    highs = _mm512_max_ps(v, highs);
  }
  low = _mm512_reduce_min_ps(lows);
  high = _mm512_reduce_max_ps(highs);
  for (; i < count; ++i) {
    low = std::min(low, x[i]);
    high = std::max(high, x[i]);
  }
}

void range(const float* x, int64_t count, float& low, float& high) {
  if (has_avx512()) return range_avx512(x, count, low, high);
  low = 0.0f;
  high = 0.0f;
  for (int64_t i = 0; i < count; ++i) {
    low = std::min(low, x[i]);
    high = std::max(high, x[i]);
  }
}

}  // namespace quantize_rows

// QuantizeLinear of float32 x with a float32 scale to int8/uint8, per tensor or per axis.
template <typename Y>
int quantize_float_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* x = static_cast<const float*>(args.inputs[0]);
  const auto* scale = static_cast<const float*>(args.inputs[1]);
  const auto* zero_point = p.has_zero_point ? static_cast<const Y*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<Y*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_zero_point && zero_point == nullptr)) {
    return kKernelMissingAddress;
  }
  if (!p.per_axis) {
    const float zero = zero_point != nullptr ? static_cast<float>(zero_point[0]) : 0.0f;
    quantize_rows::quantize(x, p.outer * p.channels * p.inner, scale[0], zero, y);
    return kKernelOk;
  }
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (o * p.channels + c) * p.inner, k = c;
      const float zero = zero_point != nullptr ? static_cast<float>(zero_point[k]) : 0.0f;
      quantize_rows::quantize(x + base, p.inner, scale[k], zero, y + base);
    }
  }
  return kKernelOk;
}

// DequantizeLinear of int8/uint8 x with a float32 scale to float32, per tensor or per axis.
template <typename X>
int dequantize_float_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* x = static_cast<const X*>(args.inputs[0]);
  const auto* scale = static_cast<const float*>(args.inputs[1]);
  const auto* zero_point = p.has_zero_point ? static_cast<const X*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<float*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_zero_point && zero_point == nullptr)) {
    return kKernelMissingAddress;
  }
  if (!p.per_axis) {
    const int32_t zero = zero_point != nullptr ? static_cast<int32_t>(zero_point[0]) : 0;
    quantize_rows::dequantize(x, p.outer * p.channels * p.inner, scale[0], zero, y);
    return kKernelOk;
  }
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (o * p.channels + c) * p.inner, k = c;
      const int32_t zero = zero_point != nullptr ? static_cast<int32_t>(zero_point[k]) : 0;
      quantize_rows::dequantize(x + base, p.inner, scale[k], zero, y + base);
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
  quantize_rows::range(x, count, low, high);
  const float scale = high == low ? 1.0f : (high - low) / 255.0f;
  const float initial = 0.0f - low / scale;
  const auto zero_point = static_cast<uint8_t>(std::nearbyint(std::clamp(initial, 0.0f, 255.0f)));
  quantize_rows::quantize(x, count, scale, static_cast<float>(zero_point), y);
  if (y_scale != nullptr) *y_scale = scale;
  if (y_zero_point != nullptr) *y_zero_point = zero_point;
  return kKernelOk;
}

// Reads `axis`, `block_size` (opset 21) and the shapes of the scale (input 1) and zero
// point (input 2) against X.
Result<QuantizeParams> read_layout(const KernelContext& context, const std::vector<int64_t>& x_dims) {
  QuantizeParams p;
  p.scale_dtype = input_dtype(context, 1);
  if (p.scale_dtype != DataType::kFloat32 && p.scale_dtype != DataType::kFloat16 &&
      p.scale_dtype != DataType::kBFloat16) {
    return unsupported_feature(context, "a scale of dtype " + std::string(data_type_name(p.scale_dtype)) +
                                            " (supported: float32, float16, bfloat16)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> scale_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(
      check_scale_values(context, 1, context.node.op_type() == "QuantizeLinear" ? "y_scale" : "x_scale"));
  GE_ASSIGN_OR_RETURN(int64_t block_size, int_attribute(context, "block_size", 0));
  if (block_size < 0) {
    return invalid_attribute(context, "block_size", "is " + std::to_string(block_size) + ", must be >= 0");
  }
  if (block_size > 0 && context.opset < 21) {
    return invalid_attribute(
        context, "block_size",
        "blocked quantization needs opset 21 (the node has opset " + std::to_string(context.opset) + ")");
  }
  p.has_zero_point = has_input(context, 2);
  p.outer = product(x_dims);
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (block_size > 0) {
    // Blocked: the scale is X's shape with ceil(dim / block_size) along `axis`.
    GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 1));
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
    std::vector<int64_t> expected = x_dims;
    expected[axis] = (x_dims[axis] + block_size - 1) / block_size;
    if (scale_dims != expected) {
      return invalid_node(context, "scale " + shape_to_string(scale_dims) + " must be " + shape_to_string(expected) +
                                       " for blocked quantization of X " + shape_to_string(x_dims) + " along axis " +
                                       std::to_string(axis) + " with block_size " + std::to_string(block_size));
    }
    p.block_size = block_size;
    p.blocks = expected[axis];
    p.outer = product(x_dims, 0, static_cast<size_t>(axis));
    p.channels = x_dims[axis];
    p.inner = product(x_dims, static_cast<size_t>(axis) + 1, x_dims.size());
  } else if (!(scale_dims.size() <= 1 && product(scale_dims) == 1)) {
    // A one-element scale is per-tensor (per-axis over an extent-1 axis is the same).
    if (context.opset < 13 || scale_dims.size() != 1) {
      return invalid_node(
          context, "scale " + shape_to_string(scale_dims) + " must be a scalar" +
                       (context.opset >= 13 ? std::string(" or 1-D") : std::string()) +
                       (context.opset >= 21 ? std::string(" (or blocked, with block_size > 0)") : std::string()));
    }
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
    const bool matches =
        p.block_size > 0 ? zero_dims == scale_dims : product(zero_dims) == product(scale_dims) && zero_dims.size() <= 1;
    if (!matches) {
      return invalid_node(context, "zero point " + shape_to_string(zero_dims) + " must have the shape of scale " +
                                       shape_to_string(scale_dims));
    }
  }
  return p;
}

// The `output_dtype` attribute as a dtype: kUndefined when absent or 0 (the default).
Result<DataType> output_dtype_attribute(const KernelContext& context, int64_t since_opset) {
  GE_ASSIGN_OR_RETURN(int64_t value, int_attribute(context, "output_dtype", 0));
  if (value == 0) return DataType::kUndefined;
  if (context.opset < since_opset) {
    return invalid_attribute(
        context, "output_dtype",
        "needs opset " + std::to_string(since_opset) + " (the node has opset " + std::to_string(context.opset) + ")");
  }
  if (value < 0 || value > std::numeric_limits<int32_t>::max() || !is_valid_data_type(static_cast<int32_t>(value))) {
    return invalid_attribute(context, "output_dtype", "is " + std::to_string(value) + ", not a known dtype");
  }
  return static_cast<DataType>(value);
}

using QuantizeInputTypes = TypeList<float, int32_t, double, Half, BFloat16>;
using QuantizedTypes = TypeList<uint8_t, int8_t, uint16_t, int16_t>;
using DequantizeInputTypes = TypeList<uint8_t, int8_t, int32_t, uint16_t, int16_t>;
using DequantizeOutputTypes = TypeList<float, Half, BFloat16>;

// DequantizeLinear's x dtypes.
std::vector<DataType> dequantize_types() {
  std::vector<DataType> types = data_types(DequantizeInputTypes{});
  for (DataType narrow : narrow_types()) types.push_back(narrow);
  return types;
}

Result<PreparedKernel> prepare_quantize(const KernelContext& context) {
  const DataType x_dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(QuantizeParams p, read_layout(context, x_dims));
  GE_ASSIGN_OR_RETURN(int64_t precision, int_attribute(context, "precision", 0));
  if (context.opset >= 23) {
    // Without the attribute the division has the scale's precision.
    p.precision = precision == 0 ? p.scale_dtype : static_cast<DataType>(precision);
    if (precision != 0 && precision != static_cast<int64_t>(DataType::kFloat32) &&
        precision != static_cast<int64_t>(DataType::kFloat16) &&
        precision != static_cast<int64_t>(DataType::kBFloat16)) {
      return invalid_attribute(
          context, "precision",
          "is " + std::to_string(precision) + ", must be float (1), float16 (10) or bfloat16 (16)");
    }
  } else if (precision != 0) {
    return invalid_attribute(context, "precision",
                             "needs opset 23 (the node has opset " + std::to_string(context.opset) + ")");
  }
  GE_ASSIGN_OR_RETURN(DataType requested, output_dtype_attribute(context, 21));
  DataType y_dtype = requested == DataType::kUndefined ? DataType::kUInt8 : requested;
  if (p.has_zero_point) {
    const DataType zero_dtype = input_dtype(context, 2);
    if (requested != DataType::kUndefined && requested != zero_dtype) {
      return invalid_attribute(context, "output_dtype",
                               "is " + std::string(data_type_name(requested)) + " but the zero point is " +
                                   std::string(data_type_name(zero_dtype)) + " (they must agree)");
    }
    y_dtype = zero_dtype;
  }
  std::vector<DataType> quantized = data_types(QuantizedTypes{});
  for (DataType narrow : narrow_types()) quantized.push_back(narrow);
  if (std::find(quantized.begin(), quantized.end(), y_dtype) == quantized.end()) {
    return unsupported_dtype(context, y_dtype, quantized);
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, y_dtype, x_dims));
  GE_ASSIGN_OR_RETURN(int64_t saturate, int_attribute(context, "saturate", 1));
  const bool narrow = is_narrow_type(y_dtype);
  if (narrow) p.narrow = NarrowCodec::of(y_dtype, saturate != 0);
  if (x_dtype == DataType::kFloat32 && p.scale_dtype == DataType::kFloat32 && p.block_size == 0 &&
      p.precision == DataType::kFloat32 && (y_dtype == DataType::kUInt8 || y_dtype == DataType::kInt8)) {
    KernelFunction fast =
        y_dtype == DataType::kUInt8 ? &quantize_float_kernel<uint8_t> : &quantize_float_kernel<int8_t>;
    return make_kernel(context, fast, p);
  }
  KernelFunction function = select_kernel(x_dtype, QuantizeInputTypes{}, [&]<typename X>() -> KernelFunction {
    if (narrow) return &quantize_kernel<X, NarrowCode>;
    return select_kernel(y_dtype, QuantizedTypes{},
                         []<typename Y>() -> KernelFunction { return &quantize_kernel<X, Y>; });
  });
  if (function == nullptr) return unsupported_dtype(context, x_dtype, data_types(QuantizeInputTypes{}));
  return make_kernel(context, function, p);
}

Result<PreparedKernel> prepare_dequantize(const KernelContext& context) {
  const DataType x_dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(QuantizeParams p, read_layout(context, x_dims));
  if (p.has_zero_point) GE_RETURN_IF_ERROR(check_input_dtype(context, 2, x_dtype));
  // Without output_dtype the output has the scale's type.
  GE_ASSIGN_OR_RETURN(DataType requested, output_dtype_attribute(context, 23));
  const DataType y_dtype = requested == DataType::kUndefined ? p.scale_dtype : requested;
  const std::vector<DataType> outputs = data_types(DequantizeOutputTypes{});
  if (std::find(outputs.begin(), outputs.end(), y_dtype) == outputs.end()) {
    return invalid_attribute(
        context, "output_dtype",
        "is " + std::string(data_type_name(y_dtype)) + ", must be one of " + data_type_list(outputs));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, y_dtype, x_dims));
  if ((x_dtype == DataType::kUInt8 || x_dtype == DataType::kInt8) && p.scale_dtype == DataType::kFloat32 &&
      p.block_size == 0 && y_dtype == DataType::kFloat32) {
    KernelFunction fast =
        x_dtype == DataType::kUInt8 ? &dequantize_float_kernel<uint8_t> : &dequantize_float_kernel<int8_t>;
    return make_kernel(context, fast, p);
  }
  KernelFunction function = nullptr;
  if (is_narrow_type(x_dtype)) {
    p.narrow = NarrowCodec::of(x_dtype);
    function = select_kernel(y_dtype, DequantizeOutputTypes{},
                             []<typename Y>() -> KernelFunction { return &dequantize_kernel<NarrowCode, Y>; });
  } else {
    function = select_kernel(x_dtype, DequantizeInputTypes{}, [&]<typename X>() -> KernelFunction {
      return select_kernel(y_dtype, DequantizeOutputTypes{},
                           []<typename Y>() -> KernelFunction { return &dequantize_kernel<X, Y>; });
    });
  }
  if (function == nullptr) return unsupported_dtype(context, x_dtype, dequantize_types());
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
  table.push_back({"QuantizeLinear", data_types(QuantizeInputTypes{}), &prepare_quantize});
  table.push_back({"DequantizeLinear", dequantize_types(), &prepare_dequantize});
  table.push_back({"DynamicQuantizeLinear", {DataType::kFloat32}, &prepare_dynamic_quantize});
}

}  // namespace ge::reference_kernels
