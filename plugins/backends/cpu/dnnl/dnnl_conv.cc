// Conv and ge::FusedConv(X, W, [B], [Z]) {activation} on oneDNN: 1-D to 3-D, grouped and
// depthwise, float32/float16/bfloat16 (dnnl_util.h: compute_type), constant weights
// (prepacked once) and bias. oneDNN picks the activation layout it runs fastest (`any`);
// where the value's stored format differs, the program reorders through the workspace,
// so every stored format gives the right answer and layout assignment only removes
// reorders. Z (the residual) is a binary-add post-op before the activation:
// y = act(conv(x) + b + z).
//
// 3x3 stride-1 ungrouped 2-D convolutions with 16 or more input and output channels (not
// both 16) run oneDNN's Winograd kernels (F(2x2,3x3) or F(4x4,3x3), its pick; AVX-512),
// on the stored layouts or with reorders: 1.3-2.6x faster than its direct kernels on
// ResNet-style layers here. Its only residual form is the `sum` post-op, which accumulates
// into the destination: Z is copied (or reordered) there first, nothing to copy when the
// plan put Y on Z's bytes. the backend's `winograd = false` turns it off, as the AVX2 Winograd.

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dnnl_fast_paths.h"
#include "dnnl_kernels.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"
#include "ge/reference_kernels/kernel_util.h"
#include "ge/reference_kernels/spatial_geometry.h"
#include "winograd_conv.h"

namespace ge::cpu_dnnl {
namespace {

using reference_kernels::KernelContext;
using reference_kernels::SpatialGeometry;

// The geometry's arrays hold rank 1-3 padded with leading unit axes: the node's axes
// are the last `rank` entries.
Dims tail(const std::array<int64_t, reference_kernels::kMaxSpatialRank>& values, int rank, int64_t minus = 0) {
  Dims out;
  for (int i = reference_kernels::kMaxSpatialRank - rank; i < reference_kernels::kMaxSpatialRank; ++i)
    out.push_back(values[i] - minus);
  return out;
}

// Enough channels for the Winograd transforms to pay: measured on AVX-512 over 16-96
// input and output channels at 20x20 to 160x160 (nChw16c), Winograd ran 1.1-2.5x the
// speed of the direct kernel everywhere but 16 -> 16 (0.74-0.94x below 160x160).
bool winograd_shape(const Dims& w_dims, int64_t group, const Dims& strides, const Dims& dilations) {
  if (w_dims.size() != 4 || group != 1 || w_dims[2] != 3 || w_dims[3] != 3) return false;
  if (std::min(w_dims[0], w_dims[1]) < 16 || std::max(w_dims[0], w_dims[1]) < 24) return false;
  return std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 1; }) &&
         std::all_of(dilations.begin(), dilations.end(), [](int64_t d) { return d == 0; });
}

/// The node's fused activation as oneDNN eltwise steps in place on `data` (what
/// append_activation would add as post-ops); throws dnnl::error where it has none.
void add_activation_steps(ProgramBuilder& builder, const Node& node, const dnnl::memory::desc& desc,
                          const ArgSource& data) {
  dnnl::post_ops ops;
  if (!append_activation(node, ops)) throw dnnl::error(dnnl_unimplemented, "activation");
  for (int i = 0; i < ops.len(); ++i) {
    float scale = 1, alpha = 0, beta = 0;
    dnnl::algorithm algorithm = dnnl::algorithm::undef;
    ops.get_params_eltwise(i, scale, algorithm, alpha, beta);
    const dnnl::eltwise_forward::desc step(dnnl::prop_kind::forward_inference, algorithm, desc, alpha, beta);
    const dnnl::eltwise_forward::primitive_desc pd(step, kernel_attributes(dnnl::post_ops()), cpu_engine());
    builder.add(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, desc, data}, {DNNL_ARG_DST, desc, data}},
                pd.scratchpad_desc());
  }
}

/// Host step: output 0 = input 3 (the residual the `sum` post-op accumulates onto).
int copy_residual_to_output(const KernelArgs& args, const void* params) {
  const size_t bytes = *static_cast<const size_t*>(params);
  if (args.outputs[0] != args.inputs[3]) std::memcpy(args.outputs[0], args.inputs[3], bytes);
  return 0;
}

enum class Residual { kNone, kBinary, kSum };

}  // namespace

std::optional<PreparedKernel> prepare_conv(const Node& node, std::string_view backend, const Options& options) {
  const bool fused = node.domain() == "ge";
  const Value* x = node.input(0);
  const Value* w = node.input(1);
  const Value* b = node.input_count() > 2 ? node.input(2) : nullptr;
  const Value* z = fused && node.input_count() > 3 ? node.input(3) : nullptr;
  const Value* y = node.output(0);
  const DnnlType storage = storage_type(x);
  if (storage == DnnlType::undef || storage_type(w) != storage || storage_type(y) != storage ||
      w->constant() == nullptr) {
    return std::nullopt;
  }
  if (b != nullptr && (!is_float(b) || b->constant() == nullptr)) return std::nullopt;
  if (z != nullptr && (storage_type(z) != storage || z->desc().shape != y->desc().shape)) return std::nullopt;
  // The primitive's types: bfloat16 tensors natively (f32 accumulation, bf16 output), the
  // precision mode's float32 ones with bf16 src and weights (the program rounds the src)
  // and a float32 output, float16 ones in float32 (converted at the kernel's boundary).
  const bool bf16_mode = computes_in_bf16(node, options);
  const DnnlType src_type = bf16_mode ? DnnlType::bf16 : compute_type(storage);
  const DnnlType dst_type = compute_type(storage);
  const Dims x_dims = dims_of(*x), w_dims = dims_of(*w), y_dims = dims_of(*y);
  const size_t rank = x_dims.size();
  if (rank < 3 || rank > 5) return std::nullopt;
  const int64_t group = node.get_int("group", 1);
  KernelContext context{node, backend, 17};
  Result<SpatialGeometry> geometry = reference_kernels::compute_spatial_geometry(
      context, Dims(x_dims.begin() + 2, x_dims.end()), Dims(w_dims.begin() + 2, w_dims.end()), false);
  if (!geometry.is_ok()) return std::nullopt;
  const SpatialGeometry& g = geometry.value();
  const int spatial = static_cast<int>(rank - 2);

  std::optional<dnnl::memory::desc> x_stored = stored_desc(*x), y_stored = stored_desc(*y);
  std::optional<dnnl::memory::desc> z_stored = z != nullptr ? stored_desc(*z) : std::nullopt;
  if (!x_stored || !y_stored || (z != nullptr && !z_stored)) return std::nullopt;

  Dims weight_dims = w_dims;
  Tag weight_tag = plain_tag(rank);
  if (group > 1) {
    weight_dims = {group, w_dims[0] / group};
    weight_dims.insert(weight_dims.end(), w_dims.begin() + 1, w_dims.end());
    weight_tag = plain_tag(rank + 1);
  }
  const dnnl::memory::desc weight_user(weight_dims, storage, weight_tag);
  const dnnl::memory::desc weight_any(weight_dims, src_type, Tag::any);
  // The bias in float32 whatever the tensors' type (converted once when prepacked).
  const dnnl::memory::desc bias_md =
      b != nullptr ? dnnl::memory::desc({y_dims[1]}, DnnlType::f32, Tag::a) : dnnl::memory::desc();
  const dnnl::memory::desc bias_user =
      b != nullptr ? dnnl::memory::desc({y_dims[1]}, storage_type(b), Tag::a) : dnnl::memory::desc();
  const Dims strides = tail(g.strides, spatial), dilations = tail(g.dilations, spatial, 1);
  const Dims pads_l = tail(g.pads_begin, spatial), pads_r = tail(g.pads_end, spatial);
  auto make_pd = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst, Residual residual,
                     dnnl::algorithm algorithm = dnnl::algorithm::convolution_direct, bool with_activation = true) {
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, src, weight_any, bias_md, dst,
                                         strides, dilations, pads_l, pads_r);
    dnnl::post_ops ops;
    if (residual == Residual::kBinary) ops.append_binary(dnnl::algorithm::binary_add, dst);
    if (residual == Residual::kSum) ops.append_sum(1.0f);
    if (fused && with_activation && !append_activation(node, ops)) throw dnnl::error(dnnl_unimplemented, "activation");
    const dnnl::primitive_attr attr = kernel_attributes(ops);
    return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
  };
  try {
    // Winograd first (see the top of the file): on the stored layouts, else on its own
    // (channel-blocked) with reorders around it, which cost far less than it saves.
    // oneDNN's Winograd takes few activations as post-ops (not Swish, Gelu, ...): one it
    // refuses runs after it, as eltwise steps in place on what it wrote.
    std::optional<dnnl::convolution_forward::primitive_desc> winograd;
    bool activation_after = false;
    const dnnl::memory::desc src_any(x_dims, src_type, Tag::any), dst_any(y_dims, dst_type, Tag::any);
    const dnnl::memory::desc x_typed = with_type(*x_stored, src_type), y_typed = with_type(*y_stored, dst_type);
    // oneDNN's Winograd convolutions are float32 only.
    if (spatial == 2 && src_type == DnnlType::f32 && winograd_shape(w_dims, group, strides, dilations) &&
        options.winograd) {
      const Residual sum = z != nullptr ? Residual::kSum : Residual::kNone;
      for (const bool with_activation : {true, false}) {
        if (!with_activation && (!fused || node.get_string("activation", "").empty())) break;
        for (const auto& [src, dst] : {std::pair{x_typed, y_typed}, std::pair{src_any, dst_any}}) {
          try {
            winograd = make_pd(src, dst, sum, dnnl::algorithm::convolution_winograd, with_activation);
            // A transient plan takes Winograd only where its weight transform exists: one
            // made for a compiled signature whose blocking these shapes share.
            const bool transform_paid =
                !options.transient || prepacked(*w->constant(), weight_user, winograd->weights_desc());
            if (is_jit(winograd->impl_info_str()) && transform_paid) break;
          } catch (const dnnl::error&) {
            // none for this shape or these layouts
          }
          winograd.reset();
        }
        activation_after = winograd && !with_activation;
        if (winograd) break;
      }
    }
    // Else a direct JIT convolution on the stored layouts when oneDNN has one: it needs no
    // reorder. Else (2-D) one on the native channel blocks, padded where the channels do
    // not fill them, with reorders to and from the stored layouts: oneDNN's own pick for a
    // plain value on AVX-512 is nhwc, and its reorder from nchw to nhwc is a slow
    // transposition (4.0 ms for [1,72,160,160] here, 0.55 ms to nChw16c). Else oneDNN's
    // choice of activation layout (`any`), with reorders. Then the final primitive with the
    // layouts fixed (the residual post-op needs a concrete layout).
    std::optional<dnnl::convolution_forward::primitive_desc> direct;
    std::vector<std::pair<dnnl::memory::desc, dnnl::memory::desc>> direct_layouts{{x_typed, y_typed}};
    if (spatial == 2) {
      const Tag native = native_block() == 16 ? Tag::nChw16c : Tag::nChw8c;
      direct_layouts.emplace_back(dnnl::memory::desc(x_dims, src_type, native),
                                  dnnl::memory::desc(y_dims, dst_type, native));
    }
    // bfloat16 arithmetic: oneDNN's brgemm convolutions where it picks one for `any` (nhwc,
    // on AMX here), with reorders: measured on ResNet-50's layers, one thread, 10-20x its
    // AVX512-BF16 direct kernels on the blocked layouts (jit_bf16: 0.93-2.1 ms, slower than
    // float32's 0.57-1.35 ms) against 0.04-0.19 ms, reorders 0.01-0.13 ms.
    if (src_type == DnnlType::bf16) {
      try {
        direct = make_pd(src_any, dst_any, Residual::kNone);
        if (!std::string_view(direct->impl_info_str()).starts_with("brg")) direct.reset();
      } catch (const dnnl::error&) {
        direct.reset();  // none for this shape
      }
    }
    for (const auto& [src, dst] : direct_layouts) {
      if (winograd || direct) break;
      try {
        direct = make_pd(src, dst, Residual::kNone);
        if (!is_jit(direct->impl_info_str())) direct.reset();
      } catch (const dnnl::error&) {
        direct.reset();  // none on these layouts
      }
    }
    dnnl::convolution_forward::primitive_desc pd = winograd ? *winograd
                                                   : direct ? *direct
                                                            : make_pd(src_any, dst_any, Residual::kNone);
    if (z != nullptr && !winograd) pd = make_pd(pd.src_desc(), pd.dst_desc(), Residual::kBinary);
    ProgramBuilder builder;
    ArgSource src{ArgSource::kInput, 0, 0, nullptr};
    if (pd.src_desc() != *x_stored) src = builder.reorder_to_workspace(*x_stored, src, pd.src_desc());
    ArgSource residual{ArgSource::kInput, 3, 0, nullptr};
    ArgSource dst{ArgSource::kOutput, 0, 0, nullptr};
    if (z != nullptr && winograd) {
      // The sum post-op accumulates onto Z where the convolution writes.
      if (pd.dst_desc() == *y_stored && *z_stored == *y_stored) {
        builder.add_host(copy_residual_to_output, std::make_shared<const size_t>(y_stored->get_size()));
      } else {
        dst = builder.reorder_to_workspace(*z_stored, residual, pd.dst_desc());
      }
    } else {
      if (z != nullptr && pd.dst_desc() != *z_stored) {
        residual = builder.reorder_to_workspace(*z_stored, residual, pd.dst_desc());
      }
      dst = builder.output_or_workspace(pd.dst_desc(), *y_stored);
    }
    void* weights = prepack(builder, *w->constant(), weight_user, pd.weights_desc());
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, pd.src_desc(), src},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, weights}},
                                 {DNNL_ARG_DST, pd.dst_desc(), dst}};
    if (b != nullptr) {
      void* bias = prepack(builder, *b->constant(), bias_user, bias_md);
      args.push_back({DNNL_ARG_BIAS, bias_md, {ArgSource::kOwned, 0, 0, bias}});
    }
    if (z != nullptr && !winograd) {
      args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, pd.dst_desc(), residual});
    }
    builder.add(dnnl::convolution_forward(pd), std::move(args), pd.scratchpad_desc());
    if (activation_after) add_activation_steps(builder, node, pd.dst_desc(), dst);
    builder.finish_output(pd.dst_desc(), dst, *y_stored);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, bf16_mode), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
