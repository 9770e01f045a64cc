// ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul on oneDNN's int8 kernels
// (u8/s8 activations x s8 weights, VNNI or AMX), constant weights prepacked once. The
// answer is the reference kernels' (nn_quantized_conv.cc, nn_quantized_matmul.cc) exactly:
//
// - Weights. oneDNN takes s8 weights and no weight zero point. A constant W with zero
//   point wz is stored as s8 exactly: W - wz where a channel's values fit (no
//   compensation), else W itself for int8, W - 128 for uint8, and
//   sum (x - xz)(w - wz) = sum (x - xz) * w_s8 + c * sum (x - xz), c = 128 - wz (uint8)
//   or -wz (int8), per output channel. Where some c != 0 the second term (a window sum of
//   x - xz, padding contributing 0, times c) is added by a host step on the int32 sums.
// - Exactness. oneDNN converts its int32 sums to float before it writes them (even to an
//   s32 destination), exact while |sum| <= 2^24. The bound 255 * max over channels of
//   sum |w_s8| proves that from the weights; a node over it stays on the reference kernel,
//   except a QLinearConv/QLinearMatMul without compensation, which converts its sum (plus
//   bias) to float like the reference: exact without bias, and with a bias the float sum
//   of two roundings may differ from the reference's one in the last place, which moves
//   the requantised result by 1 only when that product lies within an ulp of .5.
// - Requantisation (QLinearConv, QLinearMatMul with constant scales and no compensation):
//   output scales x_scale * w_scale[m] / y_scale computed in float as the reference does,
//   an eltwise_round post-op (half to even) and then the destination zero point, so the
//   zero point is added to an integer (oneDNN adds it in float: without the rounding
//   first, 1 in 5e4 outputs differed), then oneDNN's saturating conversion. Otherwise
//   (runtime scales, compensation) oneDNN writes int32 sums and a host step requantises
//   exactly as the reference.
// - Only on CPUs with VNNI: oneDNN's AVX-512/AVX2 int8 kernels without it saturate pairs
//   of products in int16 (measured: every output of a 64-channel 3x3 layer wrong).
// - Host steps (transposes, compensation, requantisation) split their rows across the
//   launch's OpenMP team (parallel_chunks, dnnl_openmp.h). Each row is computed alone,
//   exactly as serially.
// The backend's int8 = "off" setting (or GE_CPU_INT8=off) turns these fast paths off.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <emmintrin.h>

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
namespace int8_detail {

using dt = dnnl::memory::data_type;
using reference_kernels::SpatialGeometry;

// The weights as s8 and their compensation (see the top of the file). `rows` output
// channels (or columns) of `depth` taps each, element (row, tap) at row * row_step + tap
// * tap_step of `w`.
struct ShiftedWeights {
  std::vector<int8_t> values;         // w's layout
  std::vector<int32_t> compensation;  // per row
  bool compensated = false;
  int64_t bound = 0;  // 255 * max_row sum |w_s8|: the largest |sum| oneDNN converts
};

std::optional<ShiftedWeights> shift_weights(const Tensor& w, const Value* zero_point, int64_t rows, int64_t depth,
                                            int64_t row_step, int64_t tap_step) {
  const std::optional<WeightZeroPoints> zero_of = weight_zero_points(w, zero_point, rows);
  if (!zero_of) return std::nullopt;
  // Each row's w - wz itself where it fits in int8 (weights quantised with a reduced or
  // symmetric range): no compensation for that row. Else the fixed shift.
  std::vector<int32_t> shifts(static_cast<size_t>(rows));
  const int32_t fixed_shift = w.dtype() == DataType::kUInt8 ? 128 : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t wz = (*zero_of)(r);
    bool fits = true;
    for (int64_t k = 0; k < depth && fits; ++k) {
      const int32_t d = element(w, r * row_step + k * tap_step) - wz;
      fits = d >= -128 && d <= 127;
    }
    shifts[r] = fits ? wz : fixed_shift;
  }
  ShiftedWeights out;
  out.values.resize(static_cast<size_t>(w.element_count()));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t i = r * row_step + k * tap_step;
      out.values[i] = static_cast<int8_t>(element(w, i) - shifts[r]);
    }
  }
  out.compensation.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t wz = (*zero_of)(r), shift = shifts[r];
    out.compensation[r] = shift - wz;
    out.compensated = out.compensated || out.compensation[r] != 0;
    int64_t sum = 0;
    for (int64_t k = 0; k < depth; ++k) sum += std::abs(static_cast<int32_t>(out.values[r * row_step + k * tap_step]));
    out.bound = std::max(out.bound, 255 * sum);
  }
  return out;
}

// Host step: the zero-point inputs (8-bit scalars) as the s32 values oneDNN reads.
struct ZeroPointLoads {
  struct Load {
    int input = 0;
    bool is_signed = false;
    size_t offset = 0;  // workspace bytes
  };
  std::vector<Load> loads;
};

int load_zero_points(const KernelArgs& args, const void* params) {
  for (const ZeroPointLoads::Load& load : static_cast<const ZeroPointLoads*>(params)->loads) {
    const void* data = args.inputs[load.input];
    if (data == nullptr || args.workspace == nullptr) return reference_kernels::kKernelMissingAddress;
    const int32_t value = load_8bit(data, load.is_signed);
    std::memcpy(workspace_at(args, load.offset), &value, sizeof value);
  }
  return reference_kernels::kKernelOk;
}

// The requantisation of the reference kernels: y = saturate(round_half_even(float(sum) *
// multiplier) + y_zero_point), multiplier = x_scale * w_scale[channel] / y_scale in float.
struct Requantize {
  int x_scale = -1, w_scale = -1, y_scale = -1, y_zero = -1, bias = -1;  // inputs
  bool w_scale_per_channel = false, y_signed = false;
};

template <typename Y>
void requantize_rows(const int32_t* sums, int64_t rows, int64_t size, const float* multipliers, bool per_row,
                     float y_offset, Y* y) {
  constexpr float kLowest = static_cast<float>(std::numeric_limits<Y>::lowest());
  constexpr float kHighest = static_cast<float>(std::numeric_limits<Y>::max());
  for (int64_t r = 0; r < rows; ++r) {
    const float multiplier = multipliers[per_row ? r : 0];
    for (int64_t i = 0; i < size; ++i) {
      float value = std::nearbyint(static_cast<float>(sums[r * size + i]) * multiplier) + y_offset;
      value = value < kLowest ? kLowest : (value > kHighest ? kHighest : value);
      y[r * size + i] = static_cast<Y>(value);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Convolutions.

// Host step of a convolution whose oneDNN sums (plain [N, M, spatial]) need the weight
// compensation and/or the requantisation.
struct ConvFinish {
  SpatialGeometry geometry;
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
  bool x_signed = false;
  int x_zero = -1;                    // input
  std::vector<int32_t> compensation;  // per output channel; empty: none
  bool qlinear = false;
  Requantize requantize;
  size_t sums_offset = 0;  // workspace bytes: the int32 sums (qlinear); else the output holds them
  size_t plane_offset = 0, window_offset = 0, multiplier_offset = 0;  // workspace bytes
  size_t partial_offset[2] = {0, 0};                                  // workspace bytes: window_sums' first two passes
  std::array<std::vector<reference_kernels::TapRange>, reference_kernels::kMaxSpatialRank> taps;  // per axis, per output position
};

// window[o] = sum over the taps of output position o of plane[input position], taps
// outside the input skipped (they read x_zero_point: 0 after the shift). Separable: one
// pass per axis (last, middle, first), each summing its taps into a partial buffer
// [in0][in1][out2], then [in0][out1][out2], then the window.
void window_pass(const int32_t* from, int64_t outer, int64_t in, int64_t out, int64_t inner, int64_t stride,
                 int64_t pad, int64_t dilation, const std::vector<reference_kernels::TapRange>& taps, int32_t* to) {
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t o = 0; o < out; ++o) {
      int32_t* row = to + (a * out + o) * inner;
      std::fill(row, row + inner, 0);
      const int64_t start = o * stride - pad;
      for (int64_t k = taps[o].begin; k < taps[o].end; ++k) {
        const int32_t* source = from + (a * in + start + k * dilation) * inner;
        for (int64_t i = 0; i < inner; ++i) row[i] += source[i];
      }
    }
  }
}

void window_sums(const ConvFinish& p, const KernelArgs& args, const int32_t* plane, int32_t* window) {
  const SpatialGeometry& g = p.geometry;
  auto* first = reinterpret_cast<int32_t*>(workspace_at(args, p.partial_offset[0]));
  auto* second = reinterpret_cast<int32_t*>(workspace_at(args, p.partial_offset[1]));
  window_pass(plane, g.input[0] * g.input[1], g.input[2], g.output[2], 1, g.strides[2], g.pads_begin[2], g.dilations[2],
              p.taps[2], first);
  window_pass(first, g.input[0], g.input[1], g.output[1], g.output[2], g.strides[1], g.pads_begin[1], g.dilations[1],
              p.taps[1], second);
  window_pass(second, 1, g.input[0], g.output[0], g.output[1] * g.output[2], g.strides[0], g.pads_begin[0],
              g.dilations[0], p.taps[0], window);
}

// The two passes over whole planes, compiled for AVX-512 too (the compiler vectorises
// these loops; the baseline build has SSE2 only) and picked at launch.
bool has_avx512() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return available;
}

#define GE_INT8_PLANE_LOOPS(SUFFIX)                                                                           \
  template <typename X>                                                                                       \
  void channel_sum_##SUFFIX(const X* x, int64_t channels, int64_t size, int32_t zero, int32_t* plane) {       \
    std::fill(plane, plane + size, -zero * static_cast<int32_t>(channels));                                   \
    for (int64_t c = 0; c < channels; ++c) {                                                                  \
      const X* row = x + c * size;                                                                            \
      for (int64_t i = 0; i < size; ++i) plane[i] += static_cast<int32_t>(row[i]);                            \
    }                                                                                                         \
  }                                                                                                           \
  /* Wrapping int32 arithmetic: the reference's sum modulo 2^32 where it overflows. */                        \
  void add_scaled_##SUFFIX(int32_t* sums, const int32_t* window, int32_t c, int64_t size) {                   \
    auto* row = reinterpret_cast<uint32_t*>(sums);                                                            \
    for (int64_t i = 0; i < size; ++i) row[i] += static_cast<uint32_t>(c) * static_cast<uint32_t>(window[i]); \
  }

GE_INT8_PLANE_LOOPS(baseline)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw")
GE_INT8_PLANE_LOOPS(avx512)
#pragma GCC pop_options
#undef GE_INT8_PLANE_LOOPS

template <typename X>
void channel_sum(const X* x, int64_t channels, int64_t size, int32_t zero, int32_t* plane) {
  if (has_avx512()) return channel_sum_avx512(x, channels, size, zero, plane);
  channel_sum_baseline(x, channels, size, zero, plane);
}

void add_scaled(int32_t* sums, const int32_t* window, int32_t c, int64_t size) {
  if (has_avx512()) return add_scaled_avx512(sums, window, c, size);
  add_scaled_baseline(sums, window, c, size);
}

int finish_conv(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const ConvFinish*>(params);
  const SpatialGeometry& g = p.geometry;
  const int64_t in_size = g.input_size(), out_size = g.output_size();
  const int64_t group_in = p.in_channels / p.group, group_out = p.out_channels / p.group;
  const Requantize& q = p.requantize;
  if (args.inputs[0] == nullptr || args.outputs[0] == nullptr || args.workspace == nullptr ||
      (p.x_zero >= 0 && args.inputs[p.x_zero] == nullptr)) {
    return reference_kernels::kKernelMissingAddress;
  }
  const int32_t x_zero = p.x_zero >= 0 ? load_8bit(args.inputs[p.x_zero], p.x_signed) : 0;
  auto* sums = reinterpret_cast<int32_t*>(p.qlinear ? workspace_at(args, p.sums_offset) : args.outputs[0]);
  auto* plane = reinterpret_cast<int32_t*>(workspace_at(args, p.plane_offset));
  auto* window = reinterpret_cast<int32_t*>(workspace_at(args, p.window_offset));
  auto* multipliers = reinterpret_cast<float*>(workspace_at(args, p.multiplier_offset));
  const int32_t* bias = nullptr;
  float y_offset = 0;
  if (p.qlinear) {
    const auto* x_scale = static_cast<const float*>(input_at(args, q.x_scale));
    const auto* w_scale = static_cast<const float*>(input_at(args, q.w_scale));
    const auto* y_scale = static_cast<const float*>(input_at(args, q.y_scale));
    if (x_scale == nullptr || w_scale == nullptr || y_scale == nullptr ||
        (q.y_zero >= 0 && !input_at(args, q.y_zero)) || (q.bias >= 0 && !input_at(args, q.bias))) {
      return reference_kernels::kKernelMissingAddress;
    }
    for (int64_t m = 0; m < p.out_channels; ++m) {
      multipliers[m] = x_scale[0] * w_scale[q.w_scale_per_channel ? m : 0] / y_scale[0];
    }
    bias = static_cast<const int32_t*>(input_at(args, q.bias));
    if (q.y_zero >= 0) y_offset = static_cast<float>(load_8bit(args.inputs[q.y_zero], q.y_signed));
  }
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t gi = 0; gi < p.group; ++gi) {
      const int64_t first = gi * group_out;
      int32_t* group_sums = sums + (n * p.out_channels + first) * out_size;
      if (!p.compensation.empty()) {
        const int64_t x_offset = (n * p.in_channels + gi * group_in) * in_size;
        if (p.x_signed) {
          channel_sum(static_cast<const int8_t*>(args.inputs[0]) + x_offset, group_in, in_size, x_zero, plane);
        } else {
          channel_sum(static_cast<const uint8_t*>(args.inputs[0]) + x_offset, group_in, in_size, x_zero, plane);
        }
        window_sums(p, args, plane, window);
        parallel_chunks(group_out, 1, [&](int64_t begin, int64_t end) {
          for (int64_t m = begin; m < end; ++m) {
            add_scaled(group_sums + m * out_size, window, p.compensation[first + m], out_size);
          }
        });
      }
    }
  }
  if (!p.qlinear) return reference_kernels::kKernelOk;
  // Bias and requantisation: each of the batch x out_channels rows alone.
  parallel_chunks(p.batch * p.out_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t m = r % p.out_channels;
      int32_t* row_sums = sums + r * out_size;
      if (bias != nullptr) {
        auto* row = reinterpret_cast<uint32_t*>(row_sums);
        for (int64_t i = 0; i < out_size; ++i) row[i] += static_cast<uint32_t>(bias[m]);
      }
      if (q.y_signed) {
        requantize_rows(row_sums, 1, out_size, multipliers + m, false, y_offset,
                        static_cast<int8_t*>(args.outputs[0]) + r * out_size);
      } else {
        requantize_rows(row_sums, 1, out_size, multipliers + m, false, y_offset,
                        static_cast<uint8_t*>(args.outputs[0]) + r * out_size);
      }
    }
  });
  return reference_kernels::kKernelOk;
}

// Byte tensors (and int32 sums) between the stored layout [N][C][spatial] and oneDNN's
// channels-last one [N][spatial][C], which its int8 convolutions take and write: oneDNN's
// reorder moves these at about 2 GB/s here (0.49 of the 0.55 ms of a 256 -> 64 channel 1x1 layer at
// 56x56, the convolution 0.06 ms on AMX); 16x16 byte tiles by SSE2 unpacks, four tiles
// down a column at a time so that each written cache line is whole, about 9 GB/s.
void transpose_tile(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride) {
  __m128i r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * src_stride));
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      r[4 * i + 2 * j] = _mm_unpacklo_epi16(t[4 * i + j], t[4 * i + j + 2]);
      r[4 * i + 2 * j + 1] = _mm_unpackhi_epi16(t[4 * i + j], t[4 * i + j + 2]);
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      t[8 * i + 2 * j] = _mm_unpacklo_epi32(r[8 * i + j], r[8 * i + j + 4]);
      t[8 * i + 2 * j + 1] = _mm_unpackhi_epi32(r[8 * i + j], r[8 * i + j + 4]);
    }
  }
  for (int j = 0; j < 8; ++j) {
    r[2 * j] = _mm_unpacklo_epi64(t[j], t[j + 8]);
    r[2 * j + 1] = _mm_unpackhi_epi64(t[j], t[j + 8]);
  }
  for (int i = 0; i < 16; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i * dst_stride), r[i]);
}

// dst[j * rows + i] = src[i * cols + j] for the source rows [begin, end) (begin a
// multiple of kByteRowBlock).
constexpr int64_t kByteRowBlock = 64;
void transpose_bytes(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst, int64_t begin, int64_t end) {
  const int64_t whole_rows = rows / 16 * 16, whole_cols = cols / 16 * 16;
  const int64_t tiled_end = std::min(end, whole_rows);
  for (int64_t i0 = begin; i0 < tiled_end; i0 += kByteRowBlock) {
    const int64_t i1 = std::min(i0 + kByteRowBlock, tiled_end);
    for (int64_t j = 0; j < whole_cols; j += 16) {
      for (int64_t i = i0; i < i1; i += 16) transpose_tile(src + i * cols + j, cols, dst + j * rows + i, rows);
    }
  }
  for (int64_t i = begin; i < end; ++i) {
    for (int64_t j = i < whole_rows ? whole_cols : 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
  }
}

// The same for int32 sums: 4x4 tiles, four down a column at a time (whole cache lines).
void transpose_tile_32(const int32_t* src, int64_t src_stride, int32_t* dst, int64_t dst_stride) {
  const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + src_stride));
  const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * src_stride));
  const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * src_stride));
  const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
  const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_unpacklo_epi64(t0, t2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + dst_stride), _mm_unpackhi_epi64(t0, t2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * dst_stride), _mm_unpacklo_epi64(t1, t3));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * dst_stride), _mm_unpackhi_epi64(t1, t3));
}

constexpr int64_t kInt32RowBlock = 16;
void transpose_int32(const int32_t* src, int64_t rows, int64_t cols, int32_t* dst, int64_t begin, int64_t end) {
  const int64_t whole_rows = rows / 4 * 4, whole_cols = cols / 4 * 4;
  const int64_t tiled_end = std::min(end, whole_rows);
  for (int64_t i0 = begin; i0 < tiled_end; i0 += kInt32RowBlock) {
    const int64_t i1 = std::min(i0 + kInt32RowBlock, tiled_end);
    for (int64_t j = 0; j < whole_cols; j += 4) {
      for (int64_t i = i0; i < i1; i += 4) transpose_tile_32(src + i * cols + j, cols, dst + j * rows + i, rows);
    }
  }
  for (int64_t i = begin; i < end; ++i) {
    for (int64_t j = i < whole_rows ? whole_cols : 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
  }
}

// Host step: per image, [rows][cols] elements (1 or 4 bytes) at `from` into [cols][rows]
// at `to` (the input, the output or a workspace slice).
struct Transpose {
  int64_t batch = 1, rows = 0, cols = 0;
  int element = 1;  // bytes
  ArgSource from, to;
};

void* locate(const KernelArgs& args, const ArgSource& source) {
  void* base = source.kind == ArgSource::kInput    ? const_cast<void*>(args.inputs[source.index])
               : source.kind == ArgSource::kOutput ? args.outputs[source.index]
                                                   : args.workspace;
  return base == nullptr ? nullptr : static_cast<char*>(base) + source.offset;
}

int transpose_step(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const Transpose*>(params);
  const auto* from = static_cast<const char*>(locate(args, p.from));
  auto* to = static_cast<char*>(locate(args, p.to));
  if (from == nullptr || to == nullptr) return reference_kernels::kKernelMissingAddress;
  const int64_t image = p.rows * p.cols * p.element;
  // Work units: blocks of source rows of every image, split across the team.
  const int64_t block = p.element == 4 ? kInt32RowBlock : kByteRowBlock;
  const int64_t blocks = (p.rows + block - 1) / block;
  parallel_chunks(p.batch * blocks, 1, [&](int64_t first, int64_t last) {
    for (int64_t u = first; u < last; ++u) {
      const int64_t n = u / blocks, begin = u % blocks * block, end = std::min(begin + block, p.rows);
      if (p.element == 4) {
        transpose_int32(reinterpret_cast<const int32_t*>(from + n * image), p.rows, p.cols,
                        reinterpret_cast<int32_t*>(to + n * image), begin, end);
      } else {
        transpose_bytes(reinterpret_cast<const uint8_t*>(from + n * image), p.rows, p.cols,
                        reinterpret_cast<uint8_t*>(to + n * image), begin, end);
      }
    }
  });
  return reference_kernels::kKernelOk;
}

Tag channels_last(size_t rank) { return rank == 3 ? Tag::acb : rank == 4 ? Tag::acdb : Tag::acdeb; }

Dims spatial_tail(const std::array<int64_t, reference_kernels::kMaxSpatialRank>& values, int rank, int64_t minus = 0) {
  Dims out;
  for (int i = reference_kernels::kMaxSpatialRank - rank; i < reference_kernels::kMaxSpatialRank; ++i)
    out.push_back(values[i] - minus);
  return out;
}

// Zero points oneDNN reads at launch, loaded by one host step.
class ZeroPoints {
 public:
  /// Registers the zero point of argument `arg` from 8-bit scalar input `input`.
  void add(dnnl::primitive_attr& attr, ProgramBuilder& builder, int arg, int input, bool is_signed) {
    attr.set_zero_points(arg, 0, {DNNL_RUNTIME_S32_VAL});
    const size_t offset = builder.reserve_workspace(sizeof(int32_t));
    loads_->loads.push_back({input, is_signed, offset});
    args_.push_back({DNNL_ARG_ATTR_ZERO_POINTS | arg,
                     dnnl::memory::desc({1}, dt::s32, Tag::a),
                     {ArgSource::kWorkspace, 0, offset, nullptr}});
  }
  /// Adds the host step (before the primitive that reads them) and returns their args.
  std::vector<ProgramArg> emit(ProgramBuilder& builder) {
    if (!loads_->loads.empty()) builder.add_host(&load_zero_points, loads_);
    return args_;
  }

 private:
  std::shared_ptr<ZeroPointLoads> loads_ = std::make_shared<ZeroPointLoads>();
  std::vector<ProgramArg> args_;
};

// The attributes of an int8 primitive: where oneDNN requantises, the output scales and a
// round-half-to-even post-op (so the destination zero point is added to an integer); a
// user scratchpad; the source zero point from 8-bit input 2 when the node has one, and
// the destination zero point where oneDNN requantises.
dnnl::primitive_attr int8_attributes(ProgramBuilder& builder, ZeroPoints& zero_points, bool onednn_requantizes,
                                     const std::vector<float>& output_scales, bool src_zero, bool src_signed,
                                     const Requantize& requantize) {
  dnnl::post_ops ops;
  dnnl::primitive_attr attr;
  if (onednn_requantizes) {
    attr.set_output_scales(output_scales.size() > 1 ? 1 << 1 : 0, output_scales);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
  }
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (src_zero) zero_points.add(attr, builder, DNNL_ARG_SRC, 2, src_signed);
  if (onednn_requantizes && requantize.y_zero >= 0) {
    zero_points.add(attr, builder, DNNL_ARG_DST, requantize.y_zero, requantize.y_signed);
  }
  return attr;
}

// ---------------------------------------------------------------------------------------
// Matrix products.

// Host step of a product whose oneDNN sums (plain [rows, columns]) need the weight
// compensation (c[column] * the row sum of A - a_zero_point) and/or the requantisation.
struct MatMulFinish {
  int64_t rows = 0, columns = 0, depth = 0;
  bool a_signed = false;
  int a_zero = -1;                    // input
  std::vector<int32_t> compensation;  // per column; empty: none
  bool qlinear = false;
  Requantize requantize;
  size_t sums_offset = 0, multiplier_offset = 0;  // workspace bytes
};

template <typename A>
int32_t row_sum(const A* a, int64_t count, int32_t zero) {
  int32_t sum = 0;
  for (int64_t k = 0; k < count; ++k) sum += static_cast<int32_t>(a[k]);
  return static_cast<int32_t>(static_cast<uint32_t>(sum) - static_cast<uint32_t>(zero) * static_cast<uint32_t>(count));
}

template <typename Y>
void requantize_columns(const int32_t* sums, int64_t rows, int64_t columns, const float* multipliers, float y_offset,
                        Y* y) {
  constexpr float kLowest = static_cast<float>(std::numeric_limits<Y>::lowest());
  constexpr float kHighest = static_cast<float>(std::numeric_limits<Y>::max());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < columns; ++j) {
      float value = std::nearbyint(static_cast<float>(sums[r * columns + j]) * multipliers[j]) + y_offset;
      value = value < kLowest ? kLowest : (value > kHighest ? kHighest : value);
      y[r * columns + j] = static_cast<Y>(value);
    }
  }
}

int finish_matmul(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const MatMulFinish*>(params);
  const Requantize& q = p.requantize;
  if (args.inputs[0] == nullptr || args.outputs[0] == nullptr || args.workspace == nullptr ||
      (p.a_zero >= 0 && args.inputs[p.a_zero] == nullptr)) {
    return reference_kernels::kKernelMissingAddress;
  }
  auto* sums = reinterpret_cast<int32_t*>(p.qlinear ? workspace_at(args, p.sums_offset) : args.outputs[0]);
  if (!p.compensation.empty()) {
    const int32_t a_zero = p.a_zero >= 0 ? load_8bit(args.inputs[p.a_zero], p.a_signed) : 0;
    parallel_chunks(p.rows, 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int32_t sum = p.a_signed
                                ? row_sum(static_cast<const int8_t*>(args.inputs[0]) + r * p.depth, p.depth, a_zero)
                                : row_sum(static_cast<const uint8_t*>(args.inputs[0]) + r * p.depth, p.depth, a_zero);
        auto* row = reinterpret_cast<uint32_t*>(sums + r * p.columns);
        for (int64_t j = 0; j < p.columns; ++j) {
          row[j] += static_cast<uint32_t>(p.compensation[j]) * static_cast<uint32_t>(sum);
        }
      }
    });
  }
  if (!p.qlinear) return reference_kernels::kKernelOk;
  const auto* a_scale = static_cast<const float*>(input_at(args, q.x_scale));
  const auto* b_scale = static_cast<const float*>(input_at(args, q.w_scale));
  const auto* y_scale = static_cast<const float*>(input_at(args, q.y_scale));
  if (a_scale == nullptr || b_scale == nullptr || y_scale == nullptr || (q.y_zero >= 0 && !input_at(args, q.y_zero))) {
    return reference_kernels::kKernelMissingAddress;
  }
  auto* multipliers = reinterpret_cast<float*>(workspace_at(args, p.multiplier_offset));
  for (int64_t j = 0; j < p.columns; ++j) {
    multipliers[j] = a_scale[0] * b_scale[q.w_scale_per_channel ? j : 0] / y_scale[0];
  }
  const float y_offset = q.y_zero >= 0 ? static_cast<float>(load_8bit(args.inputs[q.y_zero], q.y_signed)) : 0.f;
  parallel_chunks(p.rows, 1, [&](int64_t begin, int64_t end) {
    const int32_t* row_sums = sums + begin * p.columns;
    if (q.y_signed) {
      requantize_columns(row_sums, end - begin, p.columns, multipliers, y_offset,
                         static_cast<int8_t*>(args.outputs[0]) + begin * p.columns);
    } else {
      requantize_columns(row_sums, end - begin, p.columns, multipliers, y_offset,
                         static_cast<uint8_t*>(args.outputs[0]) + begin * p.columns);
    }
  });
  return reference_kernels::kKernelOk;
}

}  // namespace int8_detail

using namespace int8_detail;

namespace {

// What a QLinearConv/ConvInteger on oneDNN's int8 kernels is, decided from the node
// alone (no primitive yet): format_capability asks it too.
struct Int8ConvPlan {
  Int8Operands operands;
  Dims x_dims, w_dims, y_dims;
  int64_t group = 1, out_channels = 0, group_out = 0;
  SpatialGeometry g;
  const Value* x_zero = nullptr;
  ShiftedWeights weights;
  Requantize requantize;
  std::vector<float> output_scales;  // oneDNN requantises when not empty
  const Value* bias = nullptr;
};

std::optional<Int8ConvPlan> plan_int8_conv(const Node& node) {
  if (!has_vnni()) return std::nullopt;
  const std::optional<Int8Operands> operands = int8_operands(node, "QLinearConv", /*channels_last=*/true);
  if (!operands) return std::nullopt;
  Int8ConvPlan plan;
  plan.operands = *operands;
  const bool qlinear = operands->qlinear;
  const size_t x_zero_index = 2, w_zero_index = operands->w_zero_index;
  const Value *x = operands->x, *w = operands->w;
  plan.x_dims = dims_of(*x), plan.w_dims = dims_of(*w), plan.y_dims = dims_of(*operands->y);
  const Dims &x_dims = plan.x_dims, &w_dims = plan.w_dims;
  const size_t rank = x_dims.size();
  if (rank < 3 || rank > 5 || w_dims.size() != rank) return std::nullopt;
  plan.group = node.get_int("group", 1);
  plan.out_channels = w_dims[0], plan.group_out = plan.out_channels / plan.group;
  const int64_t out_channels = plan.out_channels;
  const reference_kernels::KernelContext context{node, "cpu", 17};
  Result<SpatialGeometry> geometry = reference_kernels::compute_spatial_geometry(
      context, Dims(x_dims.begin() + 2, x_dims.end()), Dims(w_dims.begin() + 2, w_dims.end()), false);
  if (!geometry.is_ok()) return std::nullopt;
  plan.g = geometry.value();
  const int64_t depth = w_dims[1] * plan.g.kernel_size();
  plan.x_zero = optional_input(node, x_zero_index);
  if (plan.x_zero != nullptr &&
      (plan.x_zero->desc().dtype != x->desc().dtype || plan.x_zero->desc().element_count() != 1)) {
    return std::nullopt;
  }
  std::optional<ShiftedWeights> weights =
      shift_weights(*w->constant(), optional_input(node, w_zero_index), out_channels, depth, depth, 1);
  if (!weights) return std::nullopt;
  plan.weights = std::move(*weights);

  // Requantisation by oneDNN: constant scales, no compensation.
  plan.bias = qlinear ? optional_input(node, 8) : nullptr;
  if (qlinear) {
    plan.requantize = {1,
                       4,
                       6,
                       optional_input(node, 7) != nullptr ? 7 : -1,
                       plan.bias != nullptr ? 8 : -1,
                       optional_input(node, 4)->desc().element_count() > 1,
                       operands->y->desc().dtype == DataType::kInt8};
    const auto x_scale = constant_floats(node, 1, 1), w_scale = constant_floats(node, 4, out_channels),
               y_scale = constant_floats(node, 6, 1);
    if (x_scale && w_scale && y_scale && !plan.weights.compensated) {
      for (int64_t m = 0; m < out_channels; ++m) {
        plan.output_scales.push_back((*x_scale)[0] * (*w_scale)[w_scale->size() == 1 ? 0 : m] / (*y_scale)[0]);
      }
    }
  }
  // The int32 sums oneDNN writes are exact under the bound; a requantised sum is converted
  // to float like the reference's (see the top of the file).
  if (plan.output_scales.empty() && plan.weights.bound > kExactSum) {
    GE_LOG_DEBUG("{}: int8 sums may exceed 2^24 (bound {}): reference kernel", node.describe(), plan.weights.bound);
    return std::nullopt;
  }
  // Channels-last tensors only where oneDNN reads and writes them with no host step (the
  // host steps read [N][C][spatial]): format_capability offers exactly these.
  const bool channels_last = !x->desc().is_plain() || !operands->y->desc().is_plain();
  if (channels_last && (plan.output_scales.empty() || rank != 4)) return std::nullopt;
  return plan;
}

}  // namespace

bool int8_conv_takes_channels_last(const Node& node, const Options& options) {
  if (options.int8 != Options::Int8::kAuto || !is_onnx_domain(node) || node.op_type() != "QLinearConv") return false;
  const std::optional<Int8ConvPlan> plan = plan_int8_conv(node);
  return plan && plan->x_dims.size() == 4 && !plan->output_scales.empty();
}

std::optional<PreparedKernel> prepare_int8_conv(const Node& node, std::string_view backend, const Options& options) {
  const std::optional<Int8ConvPlan> plan = plan_int8_conv(node);
  if (!plan) return std::nullopt;
  const bool qlinear = plan->operands.qlinear;
  const Value *x = plan->operands.x, *y = plan->operands.y;
  const DataType y_dtype = y->desc().dtype;
  const Dims &x_dims = plan->x_dims, &w_dims = plan->w_dims, &y_dims = plan->y_dims;
  const size_t rank = x_dims.size();
  const int64_t group = plan->group, out_channels = plan->out_channels, group_out = plan->group_out;
  const SpatialGeometry& g = plan->g;
  const int spatial = static_cast<int>(rank - 2);
  const Value* x_zero = plan->x_zero;
  const ShiftedWeights* weights = &plan->weights;
  const Requantize& requantize = plan->requantize;
  const std::vector<float>& output_scales = plan->output_scales;
  const Value* bias = plan->bias;
  const bool onednn_requantizes = !output_scales.empty();
  const bool x_last = !x->desc().is_plain(), y_last = !y->desc().is_plain();

  Dims weight_dims = w_dims;
  Tag weight_tag = plain_tag(rank);
  if (group > 1) {
    weight_dims = {group, group_out};
    weight_dims.insert(weight_dims.end(), w_dims.begin() + 1, w_dims.end());
    weight_tag = plain_tag(rank + 1);
  }
  const dnnl::memory::desc weight_user(weight_dims, dt::s8, weight_tag);
  const dnnl::memory::desc weight_any(weight_dims, dt::s8, Tag::any);
  const dnnl::memory::desc x_plain(x_dims, dnnl_type(x->desc().dtype), plain_tag(rank));
  const dt sum_type = onednn_requantizes ? dnnl_type(y_dtype) : dt::s32;
  const dnnl::memory::desc y_plain(y_dims, sum_type, plain_tag(rank));
  // Where the tensors are stored: plain, or channels-last ("nhwc": layout assignment kept
  // them so between int8 convolutions, format_capability).
  const dnnl::memory::desc x_channels_last(x_dims, x_plain.data_type(), channels_last(rank));
  const dnnl::memory::desc y_channels_last(y_dims, sum_type, channels_last(rank));
  const dnnl::memory::desc y_stored = y_last ? y_channels_last : y_plain;
  const dnnl::memory::desc bias_md = onednn_requantizes && bias != nullptr
                                         ? dnnl::memory::desc({out_channels}, dt::s32, Tag::a)
                                         : dnnl::memory::desc();
  const Dims strides = spatial_tail(g.strides, spatial), dilations = spatial_tail(g.dilations, spatial, 1);
  const Dims pads_l = spatial_tail(g.pads_begin, spatial), pads_r = spatial_tail(g.pads_end, spatial);
  std::array<std::vector<reference_kernels::TapRange>, reference_kernels::kMaxSpatialRank> taps;
  for (int axis = 0; axis < reference_kernels::kMaxSpatialRank; ++axis) {
    for (int64_t o = 0; o < g.output[axis]; ++o) {
      taps[axis].push_back(reference_kernels::taps_within(o * g.strides[axis] - g.pads_begin[axis], g.kernel[axis],
                                                    g.dilations[axis], 0, g.input[axis]));
    }
  }
  try {
    ProgramBuilder builder;
    ZeroPoints zero_points;
    const dnnl::primitive_attr attr =
        int8_attributes(builder, zero_points, onednn_requantizes, output_scales, x_zero != nullptr,
                        x->desc().dtype == DataType::kInt8, requantize);
    // The stored (plain) layouts when oneDNN has a JIT kernel for them, else its pick.
    auto make_pd = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
      dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                           weight_any, bias_md, dst, strides, dilations, pads_l, pads_r);
      return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    };
    const dnnl::memory::desc x_any(x_dims, x_plain.data_type(), Tag::any), y_any(y_dims, sum_type, Tag::any);
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    if (x_last || y_last) {
      // A channels-last side is fixed; whatever implementation takes it (always a JIT
      // one with VNNI) runs, since no other kernel reads that format.
      pd = make_pd(x_last ? x_channels_last : x_any, y_last ? y_channels_last : y_any);
    } else {
      try {
        pd = make_pd(x_plain, y_plain);
        if (!is_jit(pd->impl_info_str())) pd.reset();
      } catch (const dnnl::error&) {
        pd.reset();
      }
      if (!pd) pd = make_pd(x_any, y_any);
      if (!is_jit(pd->impl_info_str())) return std::nullopt;  // a reference int8 kernel is no faster than ours
    }

    std::vector<ProgramArg> args = zero_points.emit(builder);
    ArgSource src{ArgSource::kInput, 0, 0, nullptr};
    const int64_t x_spatial = g.input_size(), y_spatial = g.output_size();
    if (x_last) {
      // Read as stored.
    } else if (pd->src_desc() == x_channels_last) {
      src = {ArgSource::kWorkspace, 0, builder.reserve_workspace(x_plain.get_size()), nullptr};
      builder.add_host(&transpose_step,
                       std::make_shared<const Transpose>(
                           Transpose{x_dims[0], x_dims[1], x_spatial, 1, {ArgSource::kInput, 0, 0, nullptr}, src}));
    } else if (pd->src_desc() != x_plain) {
      src = builder.reorder_to_workspace(x_plain, src, pd->src_desc());
    }
    // The plain result: the output, or (QLinearConv requantised by the host) int32 sums
    // in the workspace; oneDNN's layout reordered into it where they differ.
    const bool host_finish = !onednn_requantizes && (weights->compensated || qlinear);
    ArgSource result{ArgSource::kOutput, 0, 0, nullptr};
    if (qlinear && !onednn_requantizes) {
      result = {ArgSource::kWorkspace, 0, builder.reserve_workspace(y_plain.get_size()), nullptr};
    }
    auto finish = std::make_shared<ConvFinish>();
    finish->geometry = g;
    finish->batch = x_dims[0];
    finish->in_channels = x_dims[1];
    finish->out_channels = out_channels;
    finish->group = group;
    finish->x_signed = x->desc().dtype == DataType::kInt8;
    finish->x_zero = x_zero != nullptr ? 2 : -1;
    if (weights->compensated) finish->compensation = weights->compensation;
    finish->qlinear = qlinear;
    finish->requantize = requantize;
    finish->sums_offset = result.offset;
    finish->taps = taps;
    if (host_finish) {
      finish->plane_offset = builder.reserve_workspace(static_cast<size_t>(g.input_size()) * sizeof(int32_t));
      finish->window_offset = builder.reserve_workspace(static_cast<size_t>(g.output_size()) * sizeof(int32_t));
      finish->partial_offset[0] =
          builder.reserve_workspace(static_cast<size_t>(g.input[0] * g.input[1] * g.output[2]) * sizeof(int32_t));
      finish->partial_offset[1] =
          builder.reserve_workspace(static_cast<size_t>(g.input[0] * g.output[1] * g.output[2]) * sizeof(int32_t));
      finish->multiplier_offset = builder.reserve_workspace(static_cast<size_t>(out_channels) * sizeof(float));
    }
    ArgSource dst = result;
    if (pd->dst_desc() != y_stored)
      dst = {ArgSource::kWorkspace, 0, builder.reserve_workspace(pd->dst_desc().get_size()), nullptr};
    const Tensor shifted = Tensor::from_vector<int8_t>(w_dims, weights->values);
    void* packed = prepack(builder, shifted, weight_user, pd->weights_desc());
    args.push_back({DNNL_ARG_SRC, pd->src_desc(), src});
    args.push_back({DNNL_ARG_WEIGHTS, pd->weights_desc(), {ArgSource::kOwned, 0, 0, packed}});
    args.push_back({DNNL_ARG_DST, pd->dst_desc(), dst});
    if (bias_md.get_size() > 0) {
      ArgSource bias_source{ArgSource::kInput, 8, 0, nullptr};
      if (bias->constant() != nullptr) {
        bias_source = {ArgSource::kOwned, 0, 0, prepack(builder, *bias->constant(), bias_md, bias_md)};
      }
      args.push_back({DNNL_ARG_BIAS, bias_md, bias_source});
    }
    builder.add(dnnl::convolution_forward(*pd), std::move(args), pd->scratchpad_desc());
    if (dst.kind != result.kind || dst.offset != result.offset) {
      if (!y_last && pd->dst_desc() == y_channels_last) {
        const int element = sum_type == dt::s32 ? 4 : 1;
        builder.add_host(&transpose_step, std::make_shared<const Transpose>(
                                              Transpose{y_dims[0], y_spatial, out_channels, element, dst, result}));
      } else {
        builder.add_reorder(pd->dst_desc(), dst, y_stored, result);
      }
    }
    std::string name = fast_kernel_name(backend, node, pd->impl_info_str());
    if (host_finish) {
      builder.add_host(&finish_conv, std::move(finish));
      name += weights->compensated ? ".compensated" : ".requantized";
    }
    return std::move(builder).build(std::move(name), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN int8 fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

std::optional<PreparedKernel> prepare_int8_matmul(const Node& node, std::string_view backend, const Options& options) {
  if (!has_vnni()) return std::nullopt;
  const std::optional<Int8Operands> operands = int8_operands(node, "QLinearMatMul");
  if (!operands) return std::nullopt;
  const bool qlinear = operands->qlinear;
  const size_t a_zero_index = 2, b_zero_index = operands->w_zero_index;
  const Value *a = operands->x, *b = operands->w, *y = operands->y;
  const DataType y_dtype = y->desc().dtype;
  const std::optional<MatMulShape> shape = matmul_shape(*a, *b);
  if (!shape) return std::nullopt;
  const int64_t k = shape->k, n = shape->n, rows = shape->rows;
  const Value* a_zero = optional_input(node, a_zero_index);
  if (a_zero != nullptr && (a_zero->desc().dtype != a->desc().dtype || a_zero->desc().element_count() != 1)) {
    return std::nullopt;  // per-row zero points stay on the reference kernel
  }
  std::optional<ShiftedWeights> weights = shift_weights(*b->constant(), optional_input(node, b_zero_index), n, k, 1, n);
  if (!weights) return std::nullopt;

  Requantize requantize;
  std::vector<float> output_scales;
  if (qlinear) {
    for (size_t index : {size_t{1}, size_t{4}, size_t{6}}) {
      if (optional_input(node, index) == nullptr || node.input(index)->desc().dtype != DataType::kFloat32) {
        return std::nullopt;  // float16/bfloat16 scales (opset 21)
      }
    }
    requantize = {1,
                  4,
                  6,
                  optional_input(node, 7) != nullptr ? 7 : -1,
                  -1,
                  node.input(4)->desc().element_count() > 1,
                  y_dtype == DataType::kInt8};
    const auto a_scale = constant_floats(node, 1, 1), b_scale = constant_floats(node, 4, n),
               y_scale = constant_floats(node, 6, 1);
    if (a_scale && b_scale && y_scale && !weights->compensated) {
      for (int64_t j = 0; j < n; ++j) {
        output_scales.push_back((*a_scale)[0] * (*b_scale)[b_scale->size() == 1 ? 0 : j] / (*y_scale)[0]);
      }
      if (b_scale->size() == 1) output_scales.resize(1);
    }
  }
  const bool onednn_requantizes = !output_scales.empty();
  if (!onednn_requantizes && weights->bound > kExactSum) {
    GE_LOG_DEBUG("{}: int8 sums may exceed 2^24 (bound {}): reference kernel", node.describe(), weights->bound);
    return std::nullopt;
  }
  const dt sum_type = onednn_requantizes ? dnnl_type(y_dtype) : dt::s32;
  const dnnl::memory::desc a_md({rows, k}, dnnl_type(a->desc().dtype), Tag::ab);
  const dnnl::memory::desc b_user({k, n}, dt::s8, Tag::ab), b_any({k, n}, dt::s8, Tag::any);
  const dnnl::memory::desc y_md({rows, n}, sum_type, Tag::ab);
  try {
    ProgramBuilder builder;
    ZeroPoints zero_points;
    const dnnl::primitive_attr attr =
        int8_attributes(builder, zero_points, onednn_requantizes, output_scales, a_zero != nullptr,
                        a->desc().dtype == DataType::kInt8, requantize);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, y_md), attr, cpu_engine());
    if (!is_jit(pd.impl_info_str()) && std::string_view(pd.impl_info_str()).find("gemm") == std::string_view::npos) {
      return std::nullopt;
    }
    std::vector<ProgramArg> args = zero_points.emit(builder);
    const bool host_finish = !onednn_requantizes && (weights->compensated || qlinear);
    ArgSource result{ArgSource::kOutput, 0, 0, nullptr};
    if (qlinear && !onednn_requantizes) {
      result = {ArgSource::kWorkspace, 0, builder.reserve_workspace(y_md.get_size()), nullptr};
    }
    const Tensor shifted = Tensor::from_vector<int8_t>({k, n}, weights->values);
    void* packed = prepack(builder, shifted, b_user, pd.weights_desc());
    args.push_back({DNNL_ARG_SRC, a_md, {ArgSource::kInput, 0, 0, nullptr}});
    args.push_back({DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, packed}});
    args.push_back({DNNL_ARG_DST, y_md, result});
    builder.add(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
    std::string name = fast_kernel_name(backend, node, pd.impl_info_str());
    if (host_finish) {
      auto finish = std::make_shared<MatMulFinish>();
      finish->rows = rows;
      finish->columns = n;
      finish->depth = k;
      finish->a_signed = a->desc().dtype == DataType::kInt8;
      finish->a_zero = a_zero != nullptr ? 2 : -1;
      if (weights->compensated) finish->compensation = weights->compensation;
      finish->qlinear = qlinear;
      finish->requantize = requantize;
      finish->sums_offset = result.offset;
      finish->multiplier_offset = builder.reserve_workspace(static_cast<size_t>(n) * sizeof(float));
      builder.add_host(&finish_matmul, std::move(finish));
      name += weights->compensated ? ".compensated" : ".requantized";
    }
    return std::move(builder).build(std::move(name), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN int8 fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

std::optional<PreparedKernel> prepare_int8(const Node& node, std::string_view backend, const Options& options) {
  // The backend's `int8` setting: off leaves these ops to the reference kernels (to
  // compare, or to bisect); f32 takes the float32 route even where VNNI is.
  if (options.int8 == Options::Int8::kOff || !is_onnx_domain(node)) return std::nullopt;
  const std::string& op = node.op_type();
  const bool conv = op == "ConvInteger" || op == "QLinearConv";
  if (!conv && op != "MatMulInteger" && op != "QLinearMatMul") return std::nullopt;
  if (options.int8 == Options::Int8::kAuto) {
    std::optional<PreparedKernel> kernel =
        conv ? prepare_int8_conv(node, backend, options) : prepare_int8_matmul(node, backend, options);
    if (kernel) return kernel;
  }
  return conv ? prepare_int8_conv_float(node, backend, options) : prepare_int8_matmul_float(node, backend, options);
}

std::optional<double> int8_work(const Node& node) {
  const std::string& op = node.op_type();
  const bool conv = op == "ConvInteger" || op == "QLinearConv", matmul = op == "MatMulInteger" || op == "QLinearMatMul";
  if (!is_onnx_domain(node) || (!conv && !matmul)) return std::nullopt;
  const Value* y = node.output(0);
  const Value* w = optional_input(node, op[0] == 'Q' ? 3 : 1);
  if (y == nullptr || w == nullptr || !y->desc().is_static() || !w->desc().is_static()) return 0.0;
  const std::vector<int64_t> dims = w->desc().static_dims();
  double per_output = 1;  // W [M, C/g, k...]: its taps; B [.., K, N]: K
  if (conv) {
    for (size_t i = 1; i < dims.size(); ++i) per_output *= static_cast<double>(dims[i]);
  } else if (dims.size() >= 2) {
    per_output = static_cast<double>(dims[dims.size() - 2]);
  }
  return 2 * static_cast<double>(y->desc().element_count()) * per_output;
}

}  // namespace ge::cpu_dnnl
