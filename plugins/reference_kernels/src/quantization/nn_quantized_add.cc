// ge::QLinearAdd(A, A_scale, [A_zero_point], B, B_scale, [B_zero_point], C_scale,
// [C_zero_point]) {relu}: the QDQ residual add DequantizeLinear(A), DequantizeLinear(B)
// -> Add -> [Relu] -> QuantizeLinear that the QDQ fusion folds into one node. A, B and C
// are uint8 or int8 (one type), numpy-broadcast as Add; scales are float32 scalars and
// zero points scalars of A's type (absent: 0), per tensor only, read at launch.
//
// The result is bit-equal to the unfused float graph through the reference kernels
// (nn_quantize.cc, math_binary.h, unary_activation.cc), doing their float32 operations in
// their order, each rounded once (no multiply-add contraction: see the pragma below):
//   a = float(A - A_zp) * A_scale;  b = float(B - B_zp) * B_scale;  s = a + b;
//   relu: s = s < 0 ? 0 : s  (NaN stays NaN);
//   C = saturate(nearbyint(s / C_scale) + float(C_zp)), NaN to 0.
// A vectorised loop (AVX-512 or AVX2, chosen at launch by what the CPU has) for same-shape A and
// B, a scalar loop over the broadcast strides otherwise and for the tail.

// GCC 12 warns that the AVX-512 intrinsics' own placeholder operands are uninitialised
// (GCC bug 105593, fixed in 13): not about this file's code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "math/math_binary.h"
#include "quantization/nn_quantization.h"
#include "quantization/registration.h"

// No contraction of a product and a sum into one fused multiply-add (GCC does it by
// default, also to intrinsics: a_real + b_real would become fma(B - B_zp, B_scale, a_real),
// rounded once, where the float graph rounds the product first; the sum then lands on a
// .5 tie the graph does not see). The unity build's next sources get the options back.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace ge::reference_kernels {
namespace qlinear_add {

struct QLinearAddParams {
  StridedLoop loop;  ///< operand 0 is A, operand 1 is B
  bool same_shape = false;
  int64_t count = 0;  ///< C's elements
  bool has_a_zero = false, has_b_zero = false, has_c_zero = false;
  bool relu = false;
};

/// The launch-time numbers of one QLinearAdd.
struct Quantisation {
  float a_scale, b_scale, c_scale;
  int32_t a_zero, b_zero;
  float c_zero;
  bool relu;
};

template <typename T>
T add_element(const Quantisation& q, T a, T b) {
  const float a_real = static_cast<float>(static_cast<int32_t>(a) - q.a_zero) * q.a_scale;
  const float b_real = static_cast<float>(static_cast<int32_t>(b) - q.b_zero) * q.b_scale;
  float sum = a_real + b_real;
  if (q.relu) sum = sum < 0.0f ? 0.0f : sum;
  const float quotient = sum / q.c_scale;
  float rounded = std::nearbyint(quotient) + q.c_zero;
  if (std::isnan(rounded)) return T(0);
  constexpr float kLowest = static_cast<float>(std::numeric_limits<T>::lowest());
  constexpr float kHighest = static_cast<float>(std::numeric_limits<T>::max());
  rounded = rounded < kLowest ? kLowest : (rounded > kHighest ? kHighest : rounded);
  return static_cast<T>(rounded);
}

bool has_avx512() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return available;
}

// 16 elements of x widened to int32.
template <typename T>
__attribute__((target("avx512f,avx512bw"))) __m512i widen(const T* x) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
  return std::is_same_v<T, int8_t> ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

// Same-shape A and B, 16 elements per step with add_element's arithmetic exactly.
template <typename T>
__attribute__((target("avx512f,avx512bw"))) int64_t add_avx512(const Quantisation& q, const T* a, const T* b,
                                                               int64_t count, T* c) {
  const __m512 a_scale = _mm512_set1_ps(q.a_scale), b_scale = _mm512_set1_ps(q.b_scale);
  const __m512 c_scale = _mm512_set1_ps(q.c_scale), c_zero = _mm512_set1_ps(q.c_zero);
  const __m512i a_zero = _mm512_set1_epi32(q.a_zero), b_zero = _mm512_set1_epi32(q.b_zero);
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lowest = _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::lowest()));
  const __m512 highest = _mm512_set1_ps(static_cast<float>(std::numeric_limits<T>::max()));
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512 a_real = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(widen(a + i), a_zero)), a_scale);
    const __m512 b_real = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(widen(b + i), b_zero)), b_scale);
    __m512 sum = _mm512_add_ps(a_real, b_real);
    // max returns its second operand where either is NaN: NaN stays, as `s < 0 ? 0 : s`;
    // -0 stays -0 (it quantises as 0 does).
    if (q.relu) sum = _mm512_max_ps(zero, sum);
    const __m512 rounded = _mm512_add_ps(
        _mm512_roundscale_ps(_mm512_div_ps(sum, c_scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), c_zero);
    const __mmask16 ordered = _mm512_cmp_ps_mask(rounded, rounded, _CMP_ORD_Q);
    const __m512 clamped = _mm512_maskz_mov_ps(ordered, _mm512_min_ps(_mm512_max_ps(rounded, lowest), highest));
    const __m512i integers = _mm512_cvtps_epi32(clamped);  // exact: integers in range
    const __m128i bytes =
        std::is_same_v<T, int8_t> ? _mm512_cvtsepi32_epi8(integers) : _mm512_cvtusepi32_epi8(integers);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(c + i), bytes);
  }
  return i;
}

bool has_avx2() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

// The same 8 elements per step on AVX2 (no FMA in the target: nothing to contract).
template <typename T>
__attribute__((target("avx2"))) int64_t add_avx2(const Quantisation& q, const T* a, const T* b, int64_t count, T* c) {
  const __m256 a_scale = _mm256_set1_ps(q.a_scale), b_scale = _mm256_set1_ps(q.b_scale);
  const __m256 c_scale = _mm256_set1_ps(q.c_scale), c_zero = _mm256_set1_ps(q.c_zero);
  const __m256i a_zero = _mm256_set1_epi32(q.a_zero), b_zero = _mm256_set1_epi32(q.b_zero);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 lowest = _mm256_set1_ps(static_cast<float>(std::numeric_limits<T>::lowest()));
  const __m256 highest = _mm256_set1_ps(static_cast<float>(std::numeric_limits<T>::max()));
  auto widen8 = [](const T* x) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x));
    return std::is_same_v<T, int8_t> ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
  };
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 a_real = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(widen8(a + i), a_zero)), a_scale);
    const __m256 b_real = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(widen8(b + i), b_zero)), b_scale);
    __m256 sum = _mm256_add_ps(a_real, b_real);
    if (q.relu) sum = _mm256_max_ps(zero, sum);  // NaN and -0 stay, as in add_avx512
    const __m256 rounded = _mm256_add_ps(
        _mm256_round_ps(_mm256_div_ps(sum, c_scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), c_zero);
    const __m256 ordered = _mm256_cmp_ps(rounded, rounded, _CMP_ORD_Q);
    const __m256 clamped = _mm256_and_ps(ordered, _mm256_min_ps(_mm256_max_ps(rounded, lowest), highest));
    const __m256i integers = _mm256_cvtps_epi32(clamped);  // exact: integers in range
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(integers), _mm256_extracti128_si256(integers, 1));
    const __m128i bytes = std::is_same_v<T, int8_t> ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(c + i), bytes);
  }
  return i;
}

template <typename T>
int qlinear_add_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QLinearAddParams*>(args.params);
  const auto* a = static_cast<const T*>(args.inputs[0]);
  const auto* a_scale = static_cast<const float*>(args.inputs[1]);
  const auto* a_zero = static_cast<const T*>(args.inputs[2]);
  const auto* b = static_cast<const T*>(args.inputs[3]);
  const auto* b_scale = static_cast<const float*>(args.inputs[4]);
  const auto* b_zero = static_cast<const T*>(args.inputs[5]);
  const auto* c_scale = static_cast<const float*>(args.inputs[6]);
  const auto* c_zero = static_cast<const T*>(args.inputs[7]);
  auto* c = static_cast<T*>(args.outputs[0]);
  if (p.count == 0) return kKernelOk;
  if (a == nullptr || b == nullptr || c == nullptr || a_scale == nullptr || b_scale == nullptr || c_scale == nullptr ||
      (p.has_a_zero && a_zero == nullptr) || (p.has_b_zero && b_zero == nullptr) ||
      (p.has_c_zero && c_zero == nullptr)) {
    return kKernelMissingAddress;
  }
  const Quantisation q{*a_scale,
                       *b_scale,
                       *c_scale,
                       p.has_a_zero ? static_cast<int32_t>(*a_zero) : 0,
                       p.has_b_zero ? static_cast<int32_t>(*b_zero) : 0,
                       p.has_c_zero ? static_cast<float>(*c_zero) : 0.0f,
                       p.relu};
  if (p.same_shape) {
    int64_t i = has_avx512() ? add_avx512(q, a, b, p.count, c) : has_avx2() ? add_avx2(q, a, b, p.count, c) : 0;
    for (; i < p.count; ++i) c[i] = add_element(q, a[i], b[i]);
    return kKernelOk;
  }
  const int64_t inner = p.loop.inner_size();
  const int64_t a_step = p.loop.inner_stride(0), b_step = p.loop.inner_stride(1);
  for_each_run(p.loop, [&](int64_t row, int64_t a_offset, int64_t b_offset) {
    T* out = c + row * inner;
    for (int64_t i = 0; i < inner; ++i) out[i] = add_element(q, a[a_offset + i * a_step], b[b_offset + i * b_step]);
  });
  return kKernelOk;
}

/// Scale input `index` must be a float32 scalar (or one-element tensor); zero point input
/// `index` (when present) a scalar of `dtype`.
Status check_per_tensor(const KernelContext& context, size_t index, const char* name, DataType dtype) {
  if (!has_input(context, index)) return Status::ok();
  GE_RETURN_IF_ERROR(check_input_dtype(context, index, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, index));
  if (dims.size() > 1 || product(dims) != 1) {
    return invalid_node(context, std::string(name) + " " + shape_to_string(dims) +
                                     " must be a scalar (QLinearAdd quantises per tensor)");
  }
  return Status::ok();
}

Result<PreparedKernel> prepare_qlinear_add(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  if (dtype != DataType::kUInt8 && dtype != DataType::kInt8) {
    const std::vector<DataType> supported = {DataType::kUInt8, DataType::kInt8};
    return unsupported_dtype(context, dtype, supported);
  }
  if (!has_input(context, 1) || !has_input(context, 3) || !has_input(context, 4) || !has_input(context, 6)) {
    return invalid_node(context, "needs A, A_scale, B, B_scale and C_scale (inputs 0, 1, 3, 4, 6)");
  }
  GE_RETURN_IF_ERROR(check_input_dtype(context, 3, dtype));
  GE_RETURN_IF_ERROR(check_per_tensor(context, 1, "A_scale", DataType::kFloat32));
  GE_RETURN_IF_ERROR(check_per_tensor(context, 2, "A_zero_point", dtype));
  GE_RETURN_IF_ERROR(check_per_tensor(context, 4, "B_scale", DataType::kFloat32));
  GE_RETURN_IF_ERROR(check_per_tensor(context, 5, "B_zero_point", dtype));
  GE_RETURN_IF_ERROR(check_per_tensor(context, 6, "C_scale", DataType::kFloat32));
  GE_RETURN_IF_ERROR(check_per_tensor(context, 7, "C_zero_point", dtype));
  GE_RETURN_IF_ERROR(check_scale_values(context, 1, "A_scale"));
  GE_RETURN_IF_ERROR(check_scale_values(context, 4, "B_scale"));
  GE_RETURN_IF_ERROR(check_scale_values(context, 6, "C_scale"));
  GE_ASSIGN_OR_RETURN(int64_t relu, int_attribute(context, "relu", 0));
  if (relu != 0 && relu != 1)
    return invalid_attribute(context, "relu", "is " + std::to_string(relu) + ", expected 0 or 1");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> a_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 3));
  std::optional<std::vector<int64_t>> c_dims = broadcast_shapes(a_dims, b_dims);
  if (!c_dims) {
    return invalid_node(context,
                        "A " + shape_to_string(a_dims) + " and B " + shape_to_string(b_dims) + " do not broadcast");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, *c_dims));
  QLinearAddParams p;
  p.count = product(*c_dims);
  p.same_shape = a_dims == b_dims;
  p.has_a_zero = has_input(context, 2);
  p.has_b_zero = has_input(context, 5);
  p.has_c_zero = has_input(context, 7);
  p.relu = relu != 0;
  if (!p.same_shape) {
    GE_ASSIGN_OR_RETURN(p.loop, math::broadcast_loop(context, *c_dims, a_dims, b_dims));
  }
  KernelFunction function = dtype == DataType::kUInt8 ? &qlinear_add_kernel<uint8_t> : &qlinear_add_kernel<int8_t>;
  const char* variant = p.same_shape ? "same_shape" : "broadcast";
  return make_kernel(context, function, std::move(p), 0, variant);
}

}  // namespace qlinear_add

void add_nn_quantized_add_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ge::QLinearAdd", {DataType::kUInt8, DataType::kInt8}, &qlinear_add::prepare_qlinear_add});
}

}  // namespace ge::reference_kernels

#pragma GCC pop_options
