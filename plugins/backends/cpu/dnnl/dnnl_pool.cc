// MaxPool (one output, storage_order 0), AveragePool, GlobalAveragePool and GlobalMaxPool
// on oneDNN's pooling primitive, float32/float16/bfloat16, 1-D to 3-D, any stored format (blocked
// activations stay blocked). ceil_mode becomes the right padding oneDNN needs; an
// AveragePool that counts pads and whose ceil_mode window overhangs the pads stays on
// the reference kernel (ONNX cuts that window at the pads, oneDNN would not).
// oneDNN's max pooling drops NaN (a window [nan, 1, 2] gives 2); the max kernels finish
// with a host step that puts NaN back where a window holds one.

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "dnnl_fast_paths.h"
#include "dnnl_kernels.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"
#include "ge/reference_kernels/kernel_util.h"
#include "ge/reference_kernels/spatial_geometry.h"

namespace ge::cpu_dnnl {
namespace {

// Element offsets of a float32 or bfloat16 tensor stored in one of oneDNN's blocked layouts (plain
// ones included): outer strides, then the inner blocks, innermost last.
// The widest window (per axis) oneDNN pools where it is wider than the input.
constexpr int64_t kMaxTapsPastTheInput = 16;

struct BlockedLayout {
  int rank = 0;
  int64_t offset0 = 0;
  std::array<int64_t, DNNL_MAX_NDIMS> strides{};
  int blocks = 0;
  std::array<int64_t, DNNL_MAX_NDIMS> block_sizes{};
  std::array<int, DNNL_MAX_NDIMS> block_axes{};

  static std::optional<BlockedLayout> of(const dnnl::memory::desc& desc) {
    const dnnl_memory_desc_t& md = desc.data;
    if (md.format_kind != dnnl_blocked || (md.data_type != dnnl_f32 && md.data_type != dnnl_bf16)) return std::nullopt;
    BlockedLayout layout;
    layout.rank = md.ndims;
    layout.offset0 = md.offset0;
    const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
    for (int d = 0; d < md.ndims; ++d) layout.strides[d] = blocking.strides[d];
    layout.blocks = blocking.inner_nblks;
    for (int b = 0; b < blocking.inner_nblks; ++b) {
      layout.block_sizes[b] = blocking.inner_blks[b];
      layout.block_axes[b] = static_cast<int>(blocking.inner_idxs[b]);
    }
    return layout;
  }

  int64_t offset(std::array<int64_t, DNNL_MAX_NDIMS> index) const {
    int64_t result = offset0, block_stride = 1;
    for (int b = blocks - 1; b >= 0; --b) {
      const int axis = block_axes[b];
      result += index[axis] % block_sizes[b] * block_stride;
      index[axis] /= block_sizes[b];
      block_stride *= block_sizes[b];
    }
    for (int d = 0; d < rank; ++d) result += index[d] * strides[d];
    return result;
  }
};

struct NanPropagation {
  BlockedLayout x, y;
  Dims y_dims, x_dims, strides, kernel, dilations, pads_begin;  // dilations as oneDNN's (0: dense)
  int64_t x_elements = 0;                                       // the pooled input, padding included
  ArgSource x_source, y_source;  // what the primitive read and wrote (float32, or bfloat16 when `bf16`)
  bool bf16 = false;
};

// A bfloat16 NaN: all exponent bits and a non-zero fraction.
bool is_nan_bf16(uint16_t bits) { return (bits & 0x7FFF) > 0x7F80; }

// Whether the window of output position `index` (its N, C and spatial indices) holds a NaN.
template <typename T>
bool window_has_nan(const NanPropagation& p, const T* x, const std::array<int64_t, DNNL_MAX_NDIMS>& index) {
  const int spatial = static_cast<int>(p.y_dims.size()) - 2;
  std::array<int64_t, DNNL_MAX_NDIMS> tap{}, at = index;
  for (;;) {
    bool inside = true;
    for (int i = 0; i < spatial; ++i) {
      at[2 + i] = index[2 + i] * p.strides[i] - p.pads_begin[i] + tap[i] * (p.dilations[i] + 1);
      inside = inside && at[2 + i] >= 0 && at[2 + i] < p.x_dims[2 + i];
    }
    if (inside) {
      if constexpr (std::is_same_v<T, float>) {
        if (std::isnan(x[p.x.offset(at)])) return true;
      } else {
        if (is_nan_bf16(x[p.x.offset(at)])) return true;
      }
    }
    int i = spatial - 1;
    while (i >= 0 && ++tap[i] == p.kernel[i]) tap[i--] = 0;
    if (i < 0) return false;
  }
}

// Compiled for AVX-512 and AVX2 as well, picked at load time (the baseline is SSE2). The
// pass is bound by memory bandwidth: ResNet's pool input [1,64,112,112] takes about
// 0.1 ms on one AVX-512 EPYC core, where the whole ge-run of that MaxPool went from 0.31
// to 0.44 ms (0.3% of ResNet-50): the price of NaN semantics on oneDNN's pooling.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool contains_nan(const float* x, int64_t count) {
  unsigned found = 0;
  for (int64_t i = 0; i < count; ++i) found |= static_cast<unsigned>(x[i] != x[i]);
  return found != 0;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool contains_nan_bf16(const uint16_t* x, int64_t count) {
  unsigned found = 0;
  for (int64_t i = 0; i < count; ++i) found |= static_cast<unsigned>((x[i] & 0x7FFF) > 0x7F80);
  return found != 0;
}

template <typename T>
int propagate_nan_of(const NanPropagation& p, const T* x, T* y, T nan) {
  const int rank = static_cast<int>(p.y_dims.size());
  std::array<int64_t, DNNL_MAX_NDIMS> index{};
  for (;;) {
    if (window_has_nan(p, x, index)) y[p.y.offset(index)] = nan;
    int d = rank - 1;
    while (d >= 0 && ++index[d] == p.y_dims[d]) index[d--] = 0;
    if (d < 0) return reference_kernels::kKernelOk;
  }
}

// The host step after a max pooling: where a window holds a NaN, the output is NaN. A
// NaN is rare, so one vectorised pass over the stored input decides first (a NaN in
// block padding only costs the exact walk).
int propagate_nan(const KernelArgs& args, const void* params) {
  const auto& p = *static_cast<const NanPropagation*>(params);
  const void* x = resolve(args, p.x_source);
  void* y = resolve(args, p.y_source);
  if (x == nullptr || y == nullptr) return reference_kernels::kKernelMissingAddress;
  if (p.bf16) {
    const auto* x16 = static_cast<const uint16_t*>(x);
    if (!contains_nan_bf16(x16, p.x_elements)) return reference_kernels::kKernelOk;
    return propagate_nan_of<uint16_t>(p, x16, static_cast<uint16_t*>(y), uint16_t{0x7FC0});
  }
  const auto* x32 = static_cast<const float*>(x);
  if (!contains_nan(x32, p.x_elements)) return reference_kernels::kKernelOk;
  return propagate_nan_of<float>(p, x32, static_cast<float*>(y), std::numeric_limits<float>::quiet_NaN());
}

}  // namespace

std::optional<PreparedKernel> prepare_pool(const Node& node, std::string_view backend, const Options& options) {
  using reference_kernels::kMaxSpatialRank;
  const Value* x = node.input(0);
  const Value* y = node.output(0);
  const DnnlType storage = storage_type(x);
  if (storage == DnnlType::undef || storage_type(y) != storage || node.output_count() != 1) return std::nullopt;
  const std::string& op = node.op_type();
  const bool global = op == "GlobalAveragePool" || op == "GlobalMaxPool";
  const bool max = op == "MaxPool" || op == "GlobalMaxPool";
  if (op == "MaxPool" && node.get_int("storage_order", 0) != 0) return std::nullopt;
  const Dims x_dims = dims_of(*x), y_dims = dims_of(*y);
  const size_t rank = x_dims.size();
  if (rank < 3 || rank > 5) return std::nullopt;
  const int spatial = static_cast<int>(rank - 2);
  Dims strides(spatial, 1), kernel(x_dims.begin() + 2, x_dims.end()), dilations(spatial, 0), pads_l(spatial, 0),
      pads_r(spatial, 0);
  bool include_pad = false;
  if (!global) {
    reference_kernels::KernelContext context{node, backend, 17};
    const Dims kernel_shape = node.get_ints("kernel_shape");
    if (static_cast<int>(kernel_shape.size()) != spatial) return std::nullopt;
    Result<reference_kernels::SpatialGeometry> geometry = reference_kernels::compute_spatial_geometry(
        context, Dims(x_dims.begin() + 2, x_dims.end()), kernel_shape, node.get_int("ceil_mode", 0) != 0);
    if (!geometry.is_ok()) return std::nullopt;
    const reference_kernels::SpatialGeometry& g = geometry.value();
    include_pad = !max && node.get_int("count_include_pad", 0) != 0;
    for (int i = 0; i < spatial; ++i) {
      const int a = kMaxSpatialRank - spatial + i;
      if (g.output[a] != y_dims[2 + i]) return std::nullopt;
      // A window far wider than the input (kernel_shape 2^62 under auto_pad SAME is legal):
      // oneDNN walks every tap of it, the reference kernel only those inside. A few taps
      // over the edge (S3D's 3x3x3 MaxPool over 2 frames) cost oneDNN nothing.
      if (g.kernel[a] > g.input[a] && g.kernel[a] > kMaxTapsPastTheInput) return std::nullopt;
      strides[i] = g.strides[a];
      kernel[i] = g.kernel[a];
      dilations[i] = g.dilations[a] - 1;
      pads_l[i] = g.pads_begin[a];
      const int64_t reach = (g.output[a] - 1) * g.strides[a] + (g.kernel[a] - 1) * g.dilations[a] + 1;
      pads_r[i] = reach - g.input[a] - g.pads_begin[a];
      if (pads_r[i] < 0 || (include_pad && pads_r[i] > g.pads_end[a])) return std::nullopt;
    }
  }
  std::optional<dnnl::memory::desc> x_stored = stored_desc(*x), y_stored = stored_desc(*y);
  if (!x_stored || !y_stored) return std::nullopt;
  const dnnl::algorithm algorithm = max           ? dnnl::algorithm::pooling_max
                                    : include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  try {
    // bfloat16 natively, float16 in float32 (converted at the boundary).
    const DnnlType type = compute_type(storage);
    // A plain 4-D or 5-D input pools in the CPU's channel blocks, behind reorders: oneDNN's
    // plain kernel (simple_nchw) is a plain loop: 13.4 ms per run for ResNet-50's stem
    // MaxPool [1,64,112,112] on one AVX2 core, where the reorders and the jit kernel take
    // 1.3 ms (measured on QDQ ResNet-50, -v); S3D's [1,64,8,112,112] MaxPool 85 ms against
    // 3.3 ms (AVX-512).
    dnnl::memory::desc x_md = with_type(*x_stored, type);
    if ((rank == 4 || rank == 5) && x->desc().is_plain()) {
      const bool wide = native_block() == 16;
      const Tag blocked = rank == 4 ? (wide ? Tag::nChw16c : Tag::nChw8c) : (wide ? Tag::nCdhw16c : Tag::nCdhw8c);
      x_md = dnnl::memory::desc(x_dims, type, blocked);
    }
    const dnnl::memory::desc y_any(y_dims, type, Tag::any);
    dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, x_md, y_any, strides, kernel,
                                        dilations, pads_l, pads_r);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::pooling_v2_forward::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    const ArgSource src = builder.input(0, *x_stored, x_md);
    const ArgSource dst = builder.output_or_workspace(pd.dst_desc(), *y_stored);
    builder.add(dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, x_md, src}, {DNNL_ARG_DST, pd.dst_desc(), dst}},
                pd.scratchpad_desc());
    if (max) {
      std::optional<BlockedLayout> x_layout = BlockedLayout::of(x_md), y_layout = BlockedLayout::of(pd.dst_desc());
      if (!x_layout || !y_layout) return std::nullopt;
      auto nan = std::make_shared<NanPropagation>();
      nan->x = *x_layout;
      nan->y = *y_layout;
      nan->x_dims = x_dims;
      nan->y_dims = y_dims;
      nan->strides = strides;
      nan->kernel = kernel;
      nan->dilations = dilations;
      nan->pads_begin = pads_l;
      nan->bf16 = type == DnnlType::bf16;
      nan->x_elements = static_cast<int64_t>(x_md.get_size() / (nan->bf16 ? 2 : sizeof(float)));
      nan->x_source = src;
      nan->y_source = dst;
      builder.add_host(&propagate_nan, std::move(nan));
    }
    builder.finish_output(pd.dst_desc(), dst, *y_stored);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, false), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
