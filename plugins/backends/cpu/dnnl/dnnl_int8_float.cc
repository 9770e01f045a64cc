// ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul with constant weights on
// oneDNN's float32 kernels, for CPUs whose int8 kernels are not exact (no VNNI: oneDNN's
// AVX2/AVX-512 int8 kernels saturate pairs of products in int16) and for the nodes the
// VNNI route refuses. The answer is the reference kernels' exactly:
//
// - Integers as floats. x - x_zero_point and w - w_zero_point are integers in [-255, 255],
//   exact in float32, and so is every product (|p| < 2^16) and every partial sum of
//   products while it stays within 2^24 in magnitude, in whatever order a kernel adds them
//   (Winograd is never used: its transforms are not integer). Padding reads 0, which is
//   x_zero_point shifted, as the reference pads.
// - The bound. A partial sum of output channel m over the taps of input channels C is at
//   most max|x - xz| * sum over C of |w[m] - wz[m]|. Input channels (conv) or rows of B
//   (matmul) are cut into consecutive chunks whose bound is within 2^24; each chunk is
//   one float32 primitive writing its own sums, and the host adds the chunks' sums as
//   int32, wrapping as the reference's int32 accumulator does. One chunk for most layers;
//   a 3x3 layer of 512 channels with large weights takes two to four.
// - The finish (a host step, split over the launch's team): the int32 sum of the chunks,
//   then for QLinear* the reference's requantisation, saturate(round_half_even(float(sum +
//   bias) * (x_scale * w_scale[m] / y_scale)) + y_zero_point), scales read at launch.
// - Layouts. The 8-bit input is widened to float32 plain [N, C, spatial] in the workspace
//   (a host step); each chunk's oneDNN kernel reads its channel slice of it in the layout
//   it picks (a reorder where that is blocked) and writes float32 sums, reordered to
//   plain where blocked. The kernel is named "...exact_f32".
// The backend's int8 = "off" setting (or GE_CPU_INT8=off) turns this route off with the VNNI one.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <immintrin.h>

#include "dnnl_fast_paths.h"
#include "dnnl_int8_common.h"
#include "dnnl_kernels.h"
#include "dnnl_openmp.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/reference_kernels/kernel_util.h"
#include "ge/reference_kernels/spatial_geometry.h"

namespace ge::cpu_dnnl {
namespace int8_float_detail {

using int8_detail::constant_floats;
using int8_detail::Int8Operands;
using int8_detail::int8_operands;
using int8_detail::matmul_shape;
using int8_detail::weight_zero_points;
using int8_detail::WeightZeroPoints;
using int8_detail::MatMulShape;
using int8_detail::element;
using int8_detail::input_at;
using int8_detail::is_jit;
using int8_detail::kExactSum;
using int8_detail::load_8bit;
using int8_detail::optional_input;
using int8_detail::workspace_at;

using dt = dnnl::memory::data_type;

// Host step: the 8-bit input 0 minus its zero point (input `zero`, or none) as float32.
struct Widen {
  int64_t count = 0;
  bool is_signed = false;
  int zero = -1;  // input
  size_t offset = 0;  // workspace bytes
};

template <typename X>
void widen_range(const X* x, int64_t begin, int64_t end, float offset, float* to) {
  for (int64_t i = begin; i < end; ++i) to[i] = static_cast<float>(x[i]) - offset;
}

int widen_step(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const Widen*>(params);
  if (args.inputs[0] == nullptr || args.workspace == nullptr || (p.zero >= 0 && args.inputs[p.zero] == nullptr)) {
    return reference_kernels::kKernelMissingAddress;
  }
  const float zero = p.zero >= 0 ? static_cast<float>(load_8bit(args.inputs[p.zero], p.is_signed)) : 0.f;
  auto* to = reinterpret_cast<float*>(workspace_at(args, p.offset));
  parallel_chunks(p.count, 16384, [&](int64_t begin, int64_t end) {
    if (p.is_signed) {
      widen_range(static_cast<const int8_t*>(args.inputs[0]), begin, end, zero, to);
    } else {
      widen_range(static_cast<const uint8_t*>(args.inputs[0]), begin, end, zero, to);
    }
  });
  return reference_kernels::kKernelOk;
}

// Host step: the chunks' float sums (plain, each `count` elements) added as int32, then
// written as int32 (ConvInteger, MatMulInteger) or requantised (QLinear*). The channel of
// element i is (i / inner) % channels: conv [N, M, spatial] has inner = spatial, a matmul
// [rows, N] inner = 1.
struct Finish {
  int64_t count = 0, channels = 0, inner = 1;
  std::vector<size_t> chunk_offsets;  // workspace bytes
  bool qlinear = false;
  int x_scale = -1, w_scale = -1, y_scale = -1, y_zero = -1, bias = -1;  // inputs
  bool w_scale_per_channel = false, y_signed = false;
  size_t multiplier_offset = 0;  // workspace bytes
};

inline int32_t chunk_sum(const float* const* chunks, size_t chunk_count, int64_t i) {
  uint32_t sum = static_cast<uint32_t>(static_cast<int32_t>(chunks[0][i]));
  for (size_t j = 1; j < chunk_count; ++j) sum += static_cast<uint32_t>(static_cast<int32_t>(chunks[j][i]));
  return static_cast<int32_t>(sum);
}

// One span [begin, end) of the output: the reference's requantisation of sum + bias, with
// one multiplier and bias (a conv plane) or one per element (a row of channels: a matmul
// row, or a conv whose output is one pixel: multipliers[i - begin], biases[i - begin]).
// Exact integer sums make the int32 conversions exact; the float steps are the reference's,
// in its order (a product, a rounding half to even, an addition, a clamp).
template <typename Y>
void requantize_span(const float* const* chunks, size_t chunk_count, int64_t begin, int64_t end, int32_t bias,
                     const int32_t* biases, const float* multipliers, float multiplier, float y_offset, Y* y) {
  constexpr float kLowest = static_cast<float>(std::numeric_limits<Y>::lowest());
  constexpr float kHighest = static_cast<float>(std::numeric_limits<Y>::max());
  for (int64_t i = begin; i < end; ++i) {
    const int32_t b = biases != nullptr ? biases[i - begin] : bias;
    const auto sum = static_cast<int32_t>(static_cast<uint32_t>(chunk_sum(chunks, chunk_count, i)) +
                                          static_cast<uint32_t>(b));
    const float m = multipliers != nullptr ? multipliers[i - begin] : multiplier;
    float value = std::nearbyint(static_cast<float>(sum) * m) + y_offset;
    value = value < kLowest ? kLowest : (value > kHighest ? kHighest : value);
    y[i] = static_cast<Y>(value);
  }
}

// The same eight at a time on AVX2 (the baseline build has SSE2 only; picked at launch).
template <typename Y>
__attribute__((target("avx2"))) void requantize_span_avx2(const float* const* chunks, size_t chunk_count,
                                                           int64_t begin, int64_t end, int32_t bias,
                                                           const int32_t* biases, const float* multipliers,
                                                           float multiplier, float y_offset, Y* y) {
  constexpr bool kSigned = std::is_same_v<Y, int8_t>;
  const __m256 lowest = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Y>::lowest()));
  const __m256 highest = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Y>::max()));
  const __m256 offset = _mm256_set1_ps(y_offset), scalar = _mm256_set1_ps(multiplier);
  const __m256i bias_v = _mm256_set1_epi32(bias);
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    const __m256i b =
        biases != nullptr ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(biases + (i - begin))) : bias_v;
    __m256i sum = _mm256_add_epi32(_mm256_cvttps_epi32(_mm256_loadu_ps(chunks[0] + i)), b);
    for (size_t j = 1; j < chunk_count; ++j) sum = _mm256_add_epi32(sum, _mm256_cvttps_epi32(_mm256_loadu_ps(chunks[j] + i)));
    const __m256 m = multipliers != nullptr ? _mm256_loadu_ps(multipliers + (i - begin)) : scalar;
    __m256 value = _mm256_round_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(sum), m), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    value = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(value, offset), lowest), highest);
    const __m256i whole = _mm256_cvtps_epi32(value);
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(whole), _mm256_extracti128_si256(whole, 1));
    const __m128i bytes = kSigned ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), bytes);
  }
  requantize_span(chunks, chunk_count, i, end, bias, biases != nullptr ? biases + (i - begin) : nullptr,
                  multipliers != nullptr ? multipliers + (i - begin) : nullptr, multiplier, y_offset, y);
}

bool has_avx2() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

template <typename Y>
void requantize_any(const float* const* chunks, size_t chunk_count, int64_t begin, int64_t end, int32_t bias,
                    const int32_t* biases, const float* multipliers, float multiplier, float y_offset, Y* y) {
  if (has_avx2()) {
    return requantize_span_avx2(chunks, chunk_count, begin, end, bias, biases, multipliers, multiplier, y_offset, y);
  }
  requantize_span(chunks, chunk_count, begin, end, bias, biases, multipliers, multiplier, y_offset, y);
}

int finish_step(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const Finish*>(params);
  if (args.outputs[0] == nullptr || args.workspace == nullptr) return reference_kernels::kKernelMissingAddress;
  std::vector<const float*> chunks;
  for (size_t offset : p.chunk_offsets) chunks.push_back(reinterpret_cast<const float*>(workspace_at(args, offset)));
  const size_t chunk_count = chunks.size();
  if (!p.qlinear) {
    auto* y = static_cast<int32_t*>(args.outputs[0]);
    parallel_chunks(p.count, 16384, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = chunk_sum(chunks.data(), chunk_count, i);
    });
    return reference_kernels::kKernelOk;
  }
  const auto* x_scale = static_cast<const float*>(input_at(args, p.x_scale));
  const auto* w_scale = static_cast<const float*>(input_at(args, p.w_scale));
  const auto* y_scale = static_cast<const float*>(input_at(args, p.y_scale));
  const auto* bias = static_cast<const int32_t*>(input_at(args, p.bias));
  if (x_scale == nullptr || w_scale == nullptr || y_scale == nullptr || (p.y_zero >= 0 && !input_at(args, p.y_zero)) ||
      (p.bias >= 0 && bias == nullptr)) {
    return reference_kernels::kKernelMissingAddress;
  }
  auto* multipliers = reinterpret_cast<float*>(workspace_at(args, p.multiplier_offset));
  for (int64_t m = 0; m < p.channels; ++m) {
    multipliers[m] = x_scale[0] * w_scale[p.w_scale_per_channel ? m : 0] / y_scale[0];
  }
  const float y_offset = p.y_zero >= 0 ? static_cast<float>(load_8bit(args.inputs[p.y_zero], p.y_signed)) : 0.f;
  // Spans: a plane of one channel (conv: inner = spatial size), or a row of channels
  // (matmul, or a conv of one output pixel: inner = 1, a multiplier and a bias per column).
  const bool columns = p.inner == 1;
  const int64_t span = columns ? p.channels : p.inner, spans = p.count / span;
  parallel_chunks(spans, std::max<int64_t>(1, 16384 / span), [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const int64_t m = r % p.channels, begin = r * span, end = begin + span;
      const int32_t b = bias != nullptr && !columns ? bias[m] : 0;
      const int32_t* biases = columns ? bias : nullptr;
      const float* per_element = columns ? multipliers : nullptr;
      if (p.y_signed) {
        requantize_any(chunks.data(), chunk_count, begin, end, b, biases, per_element, multipliers[m], y_offset,
                       static_cast<int8_t*>(args.outputs[0]));
      } else {
        requantize_any(chunks.data(), chunk_count, begin, end, b, biases, per_element, multipliers[m], y_offset,
                       static_cast<uint8_t*>(args.outputs[0]));
      }
    }
  });
  return reference_kernels::kKernelOk;
}

// The largest |x - x_zero_point|: from a constant zero point, else 255.
int64_t activation_reach(const Value& x, const Value* zero) {
  const bool s8 = x.desc().dtype == DataType::kInt8;
  const int64_t low = s8 ? -128 : 0, high = s8 ? 127 : 255;
  if (zero == nullptr) return std::max(-low, high);
  if (zero->constant() == nullptr) return 255;
  const int64_t z = element(*zero->constant(), 0);
  return std::max(z - low, high - z);
}

// Weights minus their zero point, as float32 in W's layout: `rows` output channels (or
// columns of B) of `depth` taps each, element (row, tap) at row * row_step + tap * tap_step.
std::optional<std::vector<float>> shifted_weights(const Tensor& w, const Value* zero_point, int64_t rows, int64_t depth,
                                                  int64_t row_step, int64_t tap_step) {
  const std::optional<WeightZeroPoints> zero_of = weight_zero_points(w, zero_point, rows);
  if (!zero_of) return std::nullopt;
  std::vector<float> out(static_cast<size_t>(w.element_count()));
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t wz = (*zero_of)(r);
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t i = r * row_step + k * tap_step;
      out[static_cast<size_t>(i)] = static_cast<float>(element(w, i) - wz);
    }
  }
  return out;
}

/// Cuts `slices` consecutive slices of the reduction (input channels of `taps` taps each,
/// or rows of B with taps 1) into chunks [begin, end) whose partial sums stay exact:
/// reach * sum over the chunk's taps of |w(row, tap)| <= 2^24 for every row. Empty when a
/// single slice is over the bound (a weight of 255 times a reach of 255 over 258 taps).
std::vector<std::pair<int64_t, int64_t>> exact_chunks(const std::vector<float>& w, int64_t rows, int64_t slices,
                                                      int64_t taps, int64_t row_step, int64_t tap_step,
                                                      int64_t reach) {
  const double limit = static_cast<double>(kExactSum) / static_cast<double>(std::max<int64_t>(reach, 1));
  std::vector<double> running(static_cast<size_t>(rows), 0.0), slice(static_cast<size_t>(rows), 0.0);
  std::vector<std::pair<int64_t, int64_t>> chunks;
  int64_t begin = 0;
  for (int64_t s = 0; s < slices; ++s) {
    bool over = false, alone_over = false;
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t t = 0; t < taps; ++t) sum += std::fabs(w[static_cast<size_t>(r * row_step + (s * taps + t) * tap_step)]);
      slice[r] = sum;
      over = over || running[r] + sum > limit;
      alone_over = alone_over || sum > limit;
    }
    if (alone_over) return {};
    if (over) {
      chunks.emplace_back(begin, s);
      begin = s;
      std::fill(running.begin(), running.end(), 0.0);
    }
    for (int64_t r = 0; r < rows; ++r) running[r] += slice[r];
  }
  chunks.emplace_back(begin, slices);
  return chunks;
}

// The QLinear* requantisation inputs (scales must be float32: the reference's too).
bool requantize_inputs(const Node& node, Finish& finish) {
  for (size_t index : {size_t{1}, size_t{4}, size_t{6}}) {
    const Value* v = optional_input(node, index);
    if (v == nullptr || v->desc().dtype != DataType::kFloat32) return false;
  }
  finish.qlinear = true;
  finish.x_scale = 1;
  finish.w_scale = 4;
  finish.y_scale = 6;
  finish.y_zero = optional_input(node, 7) != nullptr ? 7 : -1;
  finish.w_scale_per_channel = node.input(4)->desc().element_count() > 1;
  finish.y_signed = node.output(0)->desc().dtype == DataType::kInt8;
  return true;
}

// The widen step of input 0 (zero point input 2 when present) into a fresh workspace
// slice; returns its offset.
size_t add_widen(ProgramBuilder& builder, const Value& x, bool has_zero) {
  auto widen = std::make_shared<Widen>();
  widen->count = x.desc().element_count();
  widen->is_signed = x.desc().dtype == DataType::kInt8;
  widen->zero = has_zero ? 2 : -1;
  widen->offset = builder.reserve_workspace(static_cast<size_t>(widen->count) * sizeof(float));
  const size_t offset = widen->offset;
  builder.add_host(&widen_step, std::move(widen));
  return offset;
}

// Strides of a dense row-major tensor of `dims`, with dimension 1 taken `channels` wide.
Dims plain_strides(const Dims& dims, int64_t channels) {
  Dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * (i == 1 ? channels : dims[i]);
  return strides;
}

// A [rows, depth] slice (rows `k` apart) times [depth, n], float32, as oneDNN's jit 1x1
// convolution over the nhwc image [1, depth, 1, rows] (A's memory) into nhwc [1, n, 1, rows]
// (Y's): on AVX2 its sgemm-based matmul runs these shapes 2-2.6x slower (dnnl_matmul.cc,
// build_as_convolution). Nullopt when oneDNN has no jit kernel for it.
std::optional<dnnl::convolution_forward::primitive_desc> pointwise_form(int64_t rows, int64_t depth, int64_t k,
                                                                        int64_t n) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      dnnl::memory::desc({1, depth, 1, rows}, dt::f32, Dims{rows * k, 1, rows * k, k}),
      dnnl::memory::desc({n, depth, 1, 1}, dt::f32, Tag::any),
      dnnl::memory::desc(), dnnl::memory::desc({1, n, 1, rows}, dt::f32, Tag::nhwc), {1, 1}, {0, 0}, {0, 0});
  try {
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    if (!is_jit(pd.impl_info_str())) return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

std::string chunk_suffix(size_t chunks) {
  return chunks > 1 ? ".exact_f32x" + std::to_string(chunks) : ".exact_f32";
}

}  // namespace int8_float_detail

std::optional<PreparedKernel> prepare_int8_conv_float(const Node& node, std::string_view backend,
                                                      const Options& options) {
  using namespace int8_float_detail;
  const std::optional<Int8Operands> operands = int8_operands(node, "QLinearConv");
  if (!operands || !operands->x->desc().is_static()) return std::nullopt;
  const bool qlinear = operands->qlinear;
  const size_t w_zero_index = operands->w_zero_index;
  const Value *x = operands->x, *w = operands->w, *y = operands->y;
  const Dims x_dims = dims_of(*x), w_dims = dims_of(*w), y_dims = dims_of(*y);
  const size_t rank = x_dims.size();
  if (rank < 3 || rank > 5 || w_dims.size() != rank) return std::nullopt;
  const int64_t group = node.get_int("group", 1);
  const int64_t out_channels = w_dims[0], in_channels = x_dims[1];
  if (group < 1 || in_channels % group != 0 || out_channels % group != 0 || w_dims[1] * group != in_channels) {
    return std::nullopt;
  }
  const reference_kernels::KernelContext context{node, backend, 17};
  Result<reference_kernels::SpatialGeometry> geometry = reference_kernels::compute_spatial_geometry(
      context, Dims(x_dims.begin() + 2, x_dims.end()), Dims(w_dims.begin() + 2, w_dims.end()), false);
  if (!geometry.is_ok()) return std::nullopt;
  const reference_kernels::SpatialGeometry& g = geometry.value();
  const int spatial = static_cast<int>(rank - 2);
  const int64_t taps = g.kernel_size(), depth = w_dims[1] * taps;
  const Value* x_zero = optional_input(node, 2);
  if (x_zero != nullptr && (x_zero->desc().dtype != x->desc().dtype || x_zero->desc().element_count() != 1)) {
    return std::nullopt;
  }
  Finish finish;
  if (qlinear && !requantize_inputs(node, finish)) return std::nullopt;
  if (qlinear && optional_input(node, 8) != nullptr) finish.bias = 8;
  std::optional<std::vector<float>> weights =
      shifted_weights(*w->constant(), optional_input(node, w_zero_index), out_channels, depth, depth, 1);
  if (!weights) return std::nullopt;
  const auto chunks =
      exact_chunks(*weights, out_channels, w_dims[1], taps, depth, 1, activation_reach(*x, x_zero));
  if (chunks.empty() || (group > 1 && chunks.size() > 1)) {
    GE_LOG_DEBUG("{}: int8 sums cannot be cut into float-exact chunks: reference kernel", node.describe());
    return std::nullopt;
  }
  auto spatial_tail = [&](const std::array<int64_t, reference_kernels::kMaxSpatialRank>& values, int64_t minus) {
    Dims out;
    for (int i = reference_kernels::kMaxSpatialRank - spatial; i < reference_kernels::kMaxSpatialRank; ++i)
      out.push_back(values[i] - minus);
    return out;
  };
  const Dims strides = spatial_tail(g.strides, 0), dilations = spatial_tail(g.dilations, 1);
  const Dims pads_l = spatial_tail(g.pads_begin, 0), pads_r = spatial_tail(g.pads_end, 0);
  const int64_t in_size = g.input_size();
  try {
    ProgramBuilder builder;
    const size_t widened = add_widen(builder, *x, x_zero != nullptr);
    const dnnl::memory::desc y_plain(y_dims, dt::f32, plain_tag(rank));
    std::string implementation;
    for (const auto& [first, last] : chunks) {
      const int64_t channels = last - first;
      // Chunks count the weights' input channels; a grouped layer (one chunk) reads all of x.
      Dims src_dims = x_dims;
      src_dims[1] = group > 1 ? in_channels : channels;
      const dnnl::memory::desc src_slice(src_dims, dt::f32, plain_strides(src_dims, in_channels));
      Dims weight_dims = w_dims;
      weight_dims[1] = channels;
      // This chunk's weights [M, channels, k...] (grouped: [G, M/G, C/G, k...]; one chunk).
      std::vector<float> chunk_weights;
      chunk_weights.reserve(static_cast<size_t>(out_channels * channels * taps));
      for (int64_t m = 0; m < out_channels; ++m) {
        const float* row = weights->data() + m * depth + first * taps;
        chunk_weights.insert(chunk_weights.end(), row, row + channels * taps);
      }
      Dims packed_dims = weight_dims;
      Tag weight_tag = plain_tag(rank);
      if (group > 1) {
        packed_dims = {group, out_channels / group};
        packed_dims.insert(packed_dims.end(), weight_dims.begin() + 1, weight_dims.end());
        weight_tag = plain_tag(rank + 1);
      }
      const dnnl::memory::desc weight_user(packed_dims, dt::f32, weight_tag);
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
          dnnl::memory::desc(src_dims, dt::f32, Tag::any), dnnl::memory::desc(packed_dims, dt::f32, Tag::any),
          dnnl::memory::desc(), dnnl::memory::desc(y_dims, dt::f32, Tag::any), strides, dilations, pads_l, pads_r);
      dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
      const std::string_view impl = pd.impl_info_str();
      if (!is_jit(pd.impl_info_str()) && impl.find("gemm") == std::string_view::npos) return std::nullopt;
      implementation = pd.impl_info_str();
      ArgSource src{ArgSource::kWorkspace, 0, widened + static_cast<size_t>(first * in_size) * sizeof(float), nullptr};
      if (pd.src_desc() != src_slice) src = builder.reorder_to_workspace(src_slice, src, pd.src_desc());
      const Tensor chunk_tensor = Tensor::from_vector<float>(weight_dims, chunk_weights);
      void* packed = prepack(builder, chunk_tensor, weight_user, pd.weights_desc());
      const ArgSource sums{ArgSource::kWorkspace, 0, builder.reserve_workspace(y_plain.get_size()), nullptr};
      ArgSource dst = sums;
      if (pd.dst_desc() != y_plain) {
        dst = {ArgSource::kWorkspace, 0, builder.reserve_workspace(pd.dst_desc().get_size()), nullptr};
      }
      builder.add(dnnl::convolution_forward(pd),
                  {{DNNL_ARG_SRC, pd.src_desc(), src},
                   {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, packed}},
                   {DNNL_ARG_DST, pd.dst_desc(), dst}},
                  pd.scratchpad_desc());
      if (pd.dst_desc() != y_plain) builder.add_reorder(pd.dst_desc(), dst, y_plain, sums);
      finish.chunk_offsets.push_back(sums.offset);
    }
    finish.count = y->desc().element_count();
    finish.channels = out_channels;
    finish.inner = g.output_size();
    if (qlinear) finish.multiplier_offset = builder.reserve_workspace(static_cast<size_t>(out_channels) * sizeof(float));
    builder.add_host(&finish_step, std::make_shared<const Finish>(std::move(finish)));
    std::string name = fast_kernel_name(backend, node, implementation.c_str()) + chunk_suffix(chunks.size());
    return std::move(builder).build(std::move(name), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN float32 route for int8: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

std::optional<PreparedKernel> prepare_int8_matmul_float(const Node& node, std::string_view backend,
                                                        const Options& options) {
  using namespace int8_float_detail;
  const std::optional<Int8Operands> operands = int8_operands(node, "QLinearMatMul");
  if (!operands || !operands->x->desc().is_static()) return std::nullopt;
  const bool qlinear = operands->qlinear;
  const size_t b_zero_index = operands->w_zero_index;
  const Value *a = operands->x, *b = operands->w;
  const std::optional<MatMulShape> shape = matmul_shape(*a, *b);
  if (!shape || shape->k == 0 || shape->rows == 0 || shape->n == 0) return std::nullopt;
  const int64_t k = shape->k, n = shape->n, rows = shape->rows;
  const Value* a_zero = optional_input(node, 2);
  if (a_zero != nullptr && (a_zero->desc().dtype != a->desc().dtype || a_zero->desc().element_count() != 1)) {
    return std::nullopt;  // per-row zero points stay on the reference kernel
  }
  Finish finish;
  if (qlinear && !requantize_inputs(node, finish)) return std::nullopt;
  std::optional<std::vector<float>> weights =
      shifted_weights(*b->constant(), optional_input(node, b_zero_index), n, k, 1, n);
  if (!weights) return std::nullopt;
  const auto chunks = exact_chunks(*weights, n, k, 1, 1, n, activation_reach(*a, a_zero));
  if (chunks.empty()) return std::nullopt;
  try {
    ProgramBuilder builder;
    const size_t widened = add_widen(builder, *a, a_zero != nullptr);
    const dnnl::memory::desc y_md({rows, n}, dt::f32, Tag::ab);
    std::string implementation;
    for (const auto& [first, last] : chunks) {
      const int64_t depth = last - first;
      const dnnl::memory::desc a_slice({rows, depth}, dt::f32, Dims{k, 1});
      const dnnl::memory::desc b_user({depth, n}, dt::f32, Tag::ab);
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::matmul::primitive_desc pd(
          dnnl::matmul::desc(a_slice, dnnl::memory::desc({depth, n}, dt::f32, Tag::any), y_md), attr, cpu_engine());
      const std::string_view impl = pd.impl_info_str();
      if (!is_jit(pd.impl_info_str()) && impl.find("gemm") == std::string_view::npos) return std::nullopt;
      implementation = pd.impl_info_str();
      const Tensor chunk_tensor = Tensor::from_vector<float>(
          {depth, n}, std::vector<float>(weights->begin() + first * n, weights->begin() + last * n));
      const ArgSource sums{ArgSource::kWorkspace, 0, builder.reserve_workspace(y_md.get_size()), nullptr};
      const ArgSource a_source{ArgSource::kWorkspace, 0, widened + static_cast<size_t>(first) * sizeof(float), nullptr};
      if (std::optional<dnnl::convolution_forward::primitive_desc> conv =
              impl.starts_with("gemm") ? pointwise_form(rows, depth, k, n) : std::nullopt) {
        // The sgemm-based matmul (AVX2) as a 1x1 convolution: A's slice is an nhwc image
        // [1, depth, 1, rows], B's rows [depth, n] its iohw weights, Y [rows, n] the output.
        implementation = conv->impl_info_str();
        const dnnl::memory::desc w_user({n, depth, 1, 1}, dt::f32, Tag::iohw);
        void* packed = prepack(builder, chunk_tensor, w_user, conv->weights_desc());
        builder.add(dnnl::convolution_forward(*conv),
                    {{DNNL_ARG_SRC, conv->src_desc(), a_source},
                     {DNNL_ARG_WEIGHTS, conv->weights_desc(), {ArgSource::kOwned, 0, 0, packed}},
                     {DNNL_ARG_DST, conv->dst_desc(), sums}},
                    conv->scratchpad_desc());
        finish.chunk_offsets.push_back(sums.offset);
        continue;
      }
      void* packed = prepack(builder, chunk_tensor, b_user, pd.weights_desc());
      builder.add(dnnl::matmul(pd),
                  {{DNNL_ARG_SRC, a_slice, a_source},
                   {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, packed}},
                   {DNNL_ARG_DST, y_md, sums}},
                  pd.scratchpad_desc());
      finish.chunk_offsets.push_back(sums.offset);
    }
    finish.count = rows * n;
    finish.channels = n;
    finish.inner = 1;
    if (qlinear) finish.multiplier_offset = builder.reserve_workspace(static_cast<size_t>(n) * sizeof(float));
    builder.add_host(&finish_step, std::make_shared<const Finish>(std::move(finish)));
    std::string name = fast_kernel_name(backend, node, implementation.c_str()) + chunk_suffix(chunks.size());
    return std::move(builder).build(std::move(name), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN float32 route for int8: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
