// ConvTranspose and ge::FusedConvTranspose (its activation a post-op) on oneDNN's
// deconvolution, float32/float16/bfloat16, 1-D to 3-D, grouped, constant weights (prepacked once) and
// bias, explicit pads (or none) and output_padding; the output extents come from the
// node's output desc, so output_padding becomes extra right padding. auto_pad and
// output_shape stay on the reference kernel.

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "ge/reference_kernels/kernel_library.h"

#include "dnnl_fast_paths.h"
#include "dnnl_openmp.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {
namespace {

// ConvTranspose whose kernel equals its stride (no pads, dilation or output_padding):
// the windows do not overlap, so it is a 1x1 convolution to kh * kw * C_out channels
// (bias and fused activation as the convolution's own) followed by a depth-to-space
// permutation, which is one oneDNN reorder between two strided views of the same tensor
// [N, C_out / B, B, H, kh, W, kw]. oneDNN's deconvolution runs these (upsampling heads,
// often with one output channel) at a fraction of its convolution speed. The permutation
// is a host step (scatter_products), not a oneDNN reorder: between strided 7-D views
// oneDNN runs its generic element-by-element reorder, about 6 ms for a [1,96,160,160]
// product, ten times the convolution.
//
// The products' channel (i, j, c) is (i * kw + j) * C_out + c: each pixel's C_out
// channels of one tap are contiguous, as they are in a channel-blocked output, and in the
// source's blocked format the 1x1 convolution reads the source as stored.

struct DepthToSpace {
  int64_t n, channels, h, w, kh, kw;
};

// The products stored plain (nchw), for a plain source (see prepare_depth_to_space).
constexpr int64_t kPlainProducts = -1;

// Strides of the products [N, E, H, W] (E = kh * kw * C_out) stored as nhwc (block 0),
// nchw (kPlainProducts) or in channel blocks of `block`, over the view
// [N, C / split, split, H, kh, W, kw].
Dims products_strides(const DepthToSpace& d, int64_t block, int64_t split) {
  const int64_t e = d.kh * d.kw * d.channels, hw = d.h * d.w;
  if (block == kPlainProducts) return {e * hw, split * hw, hw, d.w, d.kw * d.channels * hw, 1, d.channels * hw};
  if (block == 0) return {hw * e, split, 1, d.w * e, d.kw * d.channels, e, d.channels};
  // All of a pixel's products in one block (split = C): channel (i, j, c) at its index.
  if (e <= block) return {block * hw, block * hw, 1, d.w * block, d.kw * d.channels, block, d.channels};
  // Channel (i, j, c) sits in block ((i * kw + j) * C + c) / P at (c % P): C % P == 0.
  return {e * hw, hw * block, 1, d.w * block, d.kw * d.channels * hw, block, d.channels * hw};
}

// Strides of the output [N, C, H * kh, W * kw], plain (block 0) or blocked, over the view.
Dims output_strides(const DepthToSpace& d, int64_t block, int64_t split) {
  const int64_t out_w = d.w * d.kw, plane = d.h * d.kh * out_w, unit = block == 0 ? 1 : block;
  const int64_t channel = block == 0 ? plane : 1;
  return {d.channels * plane, split * plane, channel, d.kh * out_w * unit, out_w * unit, d.kw * unit, unit};
}

// The permutation from the products (in the workspace) into output 0: both as strides
// over the view [N, C / split, split, H, kh, W, kw].
struct Scatter {
  std::array<int64_t, 7> dims{}, from{}, to{};
  size_t offset = 0;  // the products' workspace offset
};

// Rows of products at a time: one image row of products (all taps, all channels) stays in
// cache while the kh output rows of every channel it feeds are written.
int scatter_products(const KernelArgs& args, const void* params) {
  const Scatter& s = *static_cast<const Scatter*>(params);
  const float* products = reinterpret_cast<const float*>(static_cast<const char*>(args.workspace) + s.offset);
  float* y = static_cast<float*>(args.outputs[0]);
  const auto& d = s.dims;
  const int64_t rows = d[0] * d[3];
  const bool interleave = s.from[5] == 1 && s.to[6] == 1 && s.to[5] == d[6];
  parallel_chunks(rows, 1, [&](int64_t first, int64_t last) {  // the launch's team
    for (int64_t row = first; row < last; ++row) {
      const int64_t n = row / d[3], h = row % d[3];
      for (int64_t cb = 0; cb < d[1]; ++cb) {
        for (int64_t c = 0; c < d[2]; ++c) {
          for (int64_t i = 0; i < d[4]; ++i) {
            const float* from =
                products + n * s.from[0] + cb * s.from[1] + c * s.from[2] + h * s.from[3] + i * s.from[4];
            float* to = y + n * s.to[0] + cb * s.to[1] + c * s.to[2] + h * s.to[3] + i * s.to[4];
            if (interleave) {  // plain products into a plain output row: kw rows interleaved
              if (d[6] == 2) {
                const float* __restrict left = from;
                const float* __restrict right = from + s.from[6];
                float* __restrict out = to;
                for (int64_t w = 0; w < d[5]; ++w) {
                  out[2 * w] = left[w];
                  out[2 * w + 1] = right[w];
                }
              } else {
                for (int64_t j = 0; j < d[6]; ++j) {
                  for (int64_t w = 0; w < d[5]; ++w) to[w * d[6] + j] = from[j * s.from[6] + w];
                }
              }
              continue;
            }
            for (int64_t w = 0; w < d[5]; ++w) {
              for (int64_t j = 0; j < d[6]; ++j) to[w * s.to[5] + j * s.to[6]] = from[w * s.from[5] + j * s.from[6]];
            }
          }
        }
      }
    }
  });
  return 0;
}

// The 1x1 weights [E, C_in] in the products' channel order, from W [C_in, C_out, kh, kw].
Tensor tap_major_weights(const Tensor& w) {
  const std::vector<int64_t>& dims = w.shape();
  const int64_t in = dims[0], out = dims[1], taps = dims[2] * dims[3];
  Tensor packed = Tensor::zeros(DataType::kFloat32, {taps * out, in, 1, 1});
  const float* source = w.data<float>();
  float* target = packed.data<float>();
  for (int64_t ci = 0; ci < in; ++ci) {
    for (int64_t c = 0; c < out; ++c) {
      for (int64_t t = 0; t < taps; ++t) target[(t * out + c) * in + ci] = source[(ci * out + c) * taps + t];
    }
  }
  return packed;
}

std::optional<PreparedKernel> prepare_depth_to_space(const Node& node, std::string_view backend, const Options& options,
                                                     const dnnl::memory::desc& x_md, const Dims& x_dims,
                                                     const Dims& w_dims, const Dims& y_dims) {
  using dt = dnnl::memory::data_type;
  const Value* b = node.input_count() > 2 ? node.input(2) : nullptr;
  const DepthToSpace d{x_dims[0], w_dims[1], x_dims[2], x_dims[3], w_dims[2], w_dims[3]};
  const int64_t expanded = d.kh * d.kw * d.channels;
  const std::string& x_format = node.input(0)->desc().format;
  const std::string& y_format = node.output(0)->desc().format;
  const int64_t y_block = y_format.empty() ? 0 : reference_kernels::channel_block_of_format(y_format, y_dims.size());
  if (!y_format.empty() && (y_block == 0 || d.channels % y_block != 0)) return std::nullopt;
  // The products in the source's channel blocks where whole taps fill them (or one block
  // holds them all), else nhwc.
  int64_t block = x_format.empty() ? 0 : reference_kernels::channel_block_of_format(x_format, x_dims.size());
  if (block != 8 && block != 16) block = 0;
  const bool whole_taps = block != 0 && d.channels % block == 0 && (y_block == 0 || y_block == block);
  const bool one_block = block != 0 && expanded <= block && y_block == 0;
  if (!whole_taps && !one_block) block = 0;
  const int64_t split = y_block != 0 ? y_block : block == 0 ? 1 : whole_taps ? block : d.channels;
  // A plain source: the convolution reads it as stored and writes the products plain (a
  // GEMM per image), and the permutation interleaves rows. oneDNN's nhwc alternative needs
  // the source transposed first, which costs more than the convolution (24 channels at
  // 320x320: 1.46 ms, the nchw convolution to 4 channels 0.17 ms).
  if (block == 0 && x_format.empty()) block = kPlainProducts;
  const Dims view{d.n, d.channels / split, split, d.h, d.kh, d.w, d.kw};
  const dnnl::memory::desc products({d.n, expanded, d.h, d.w}, dt::f32,
                                    block == kPlainProducts ? Tag::nchw
                                    : block == 0            ? Tag::nhwc
                                    : block == 8            ? Tag::nChw8c
                                                            : Tag::nChw16c);
  const dnnl::memory::desc weight_user({expanded, w_dims[0], 1, 1}, dt::f32, Tag::oihw);
  const dnnl::memory::desc weight_any({expanded, w_dims[0], 1, 1}, dt::f32, Tag::any);
  const dnnl::memory::desc bias_md =
      b != nullptr ? dnnl::memory::desc({expanded}, dt::f32, Tag::a) : dnnl::memory::desc();
  try {
    // oneDNN's jit 1x1 kernel wants source and products alike: nhwc, or both blocked (or,
    // for a plain source, both plain).
    const dnnl::memory::desc x_conv = block != 0 ? x_md : dnnl::memory::desc(x_dims, dt::f32, Tag::nhwc);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         x_conv, weight_any, bias_md, products, {1, 1}, {0, 0}, {0, 0});
    dnnl::post_ops activation;
    if (node.domain() == "ge" && !append_activation(node, activation)) return std::nullopt;
    // On plain products oneDNN's convolution is its GEMM-based one, which applies eltwise
    // post-ops in a scalar loop (the detector's Sigmoid head: 3.2 ms of 3.4): the activation
    // runs as its own eltwise primitives over the products instead.
    const bool separate_activation = block == kPlainProducts && activation.len() > 0;
    const dnnl::primitive_attr attr = kernel_attributes(separate_activation ? dnnl::post_ops() : activation);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return std::nullopt;
    std::vector<dnnl::eltwise_forward::primitive_desc> eltwise;
    for (int i = 0; separate_activation && i < activation.len(); ++i) {
      if (activation.kind(i) != dnnl::primitive::kind::eltwise) return std::nullopt;
      float scale = 1.0f, alpha = 0.0f, beta = 0.0f;
      dnnl::algorithm algorithm = dnnl::algorithm::undef;
      activation.get_params_eltwise(i, scale, algorithm, alpha, beta);
      if (scale != 1.0f) return std::nullopt;
      dnnl::eltwise_forward::desc step(dnnl::prop_kind::forward_inference, algorithm, products, alpha, beta);
      eltwise.emplace_back(step, kernel_attributes(dnnl::post_ops()), cpu_engine());
    }
    ProgramBuilder builder;
    ArgSource src{ArgSource::kInput, 0, 0, nullptr};
    if (pd.src_desc() != x_md) src = builder.reorder_to_workspace(x_md, src, pd.src_desc());
    const ArgSource t{ArgSource::kWorkspace, 0, builder.reserve_workspace(products.get_size()), nullptr};
    void* weights = prepack(builder, tap_major_weights(*node.input(1)->constant()), weight_user, pd.weights_desc());
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, pd.src_desc(), src},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, weights}},
                                 {DNNL_ARG_DST, products, t}};
    if (b != nullptr) {
      // Channel (i, j, c) of the products adds bias[c].
      std::shared_ptr<void> storage = aligned_buffer(static_cast<size_t>(expanded) * sizeof(float));
      const float* bias = static_cast<const float*>(b->constant()->raw_data());
      auto* expanded_bias = static_cast<float*>(storage.get());
      for (int64_t e = 0; e < expanded; ++e) expanded_bias[e] = bias[e % d.channels];
      void* address = builder.own(std::move(storage), expanded_bias);
      args.push_back({DNNL_ARG_BIAS, bias_md, {ArgSource::kOwned, 0, 0, address}});
    }
    builder.add(dnnl::convolution_forward(pd), std::move(args), pd.scratchpad_desc());
    for (const dnnl::eltwise_forward::primitive_desc& step : eltwise) {
      builder.add(dnnl::eltwise_forward(step), {{DNNL_ARG_SRC, products, t}, {DNNL_ARG_DST, products, t}},
                  step.scratchpad_desc());
    }
    auto scatter = std::make_shared<Scatter>();
    const Dims from = products_strides(d, block, split), to = output_strides(d, y_block, split);
    std::copy(view.begin(), view.end(), scatter->dims.begin());
    std::copy(from.begin(), from.end(), scatter->from.begin());
    std::copy(to.begin(), to.end(), scatter->to.begin());
    scatter->offset = t.offset;
    builder.add_host(scatter_products, std::move(scatter));
    return std::move(builder).build(fast_kernel_name(backend, node, pd.impl_info_str()) + ".depth_to_space",
                                    options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN 1x1 convolution for the ConvTranspose: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace

std::optional<PreparedKernel> prepare_deconv(const Node& node, std::string_view backend, const Options& options) {
  const Value* x = node.input(0);
  const Value* w = node.input(1);
  const Value* b = node.input_count() > 2 ? node.input(2) : nullptr;
  const Value* y = node.output(0);
  const DnnlType storage = storage_type(x);
  if (storage == DnnlType::undef || storage_type(w) != storage || storage_type(y) != storage ||
      w->constant() == nullptr) {
    return std::nullopt;
  }
  if (b != nullptr && (!is_float(b) || b->constant() == nullptr)) return std::nullopt;
  // The primitive's types, as Conv's (dnnl_conv.cc).
  const bool bf16_mode = computes_in_bf16(node, options);
  const DnnlType src_type = bf16_mode ? DnnlType::bf16 : compute_type(storage);
  const DnnlType dst_type = compute_type(storage);
  const std::string auto_pad = node.get_string("auto_pad", "NOTSET");
  if ((auto_pad != "NOTSET" && auto_pad != "VALID") || node.has_attribute("output_shape")) return std::nullopt;
  const Dims x_dims = dims_of(*x), w_dims = dims_of(*w), y_dims = dims_of(*y);
  const size_t rank = x_dims.size();
  if (rank < 3 || rank > 5 || w_dims.size() != rank) return std::nullopt;
  const int spatial = static_cast<int>(rank - 2);
  const int64_t group = node.get_int("group", 1);
  if (group < 1 || x_dims[1] % group != 0) return std::nullopt;
  Dims strides = node.get_ints("strides", Dims(spatial, 1)), dilations = node.get_ints("dilations", Dims(spatial, 1));
  Dims pads = node.get_ints("pads", Dims(2 * spatial, 0));
  if (static_cast<int>(strides.size()) != spatial || static_cast<int>(dilations.size()) != spatial ||
      static_cast<int>(pads.size()) != 2 * spatial) {
    return std::nullopt;
  }
  Dims pads_l(spatial), pads_r(spatial), dnnl_dilations(spatial);
  for (int i = 0; i < spatial; ++i) {
    pads_l[i] = pads[i];
    const int64_t reach = (x_dims[2 + i] - 1) * strides[i] + (w_dims[2 + i] - 1) * dilations[i] + 1;
    pads_r[i] = reach - pads_l[i] - y_dims[2 + i];  // output_padding shows as less right padding
    dnnl_dilations[i] = dilations[i] - 1;
  }
  std::optional<dnnl::memory::desc> x_md = stored_desc(*x), y_md = stored_desc(*y);
  if (!x_md || !y_md) return std::nullopt;
  // The depth-to-space form is float32 throughout (its scatter and weight permutation).
  bool depth_to_space = rank == 4 && group == 1 && storage == DnnlType::f32 && !bf16_mode;
  for (int i = 0; i < spatial && depth_to_space; ++i) {
    depth_to_space = strides[i] == w_dims[2 + i] && dilations[i] == 1 && pads[i] == 0 && pads[spatial + i] == 0 &&
                     y_dims[2 + i] == x_dims[2 + i] * strides[i];
  }
  if (depth_to_space) {
    if (auto kernel = prepare_depth_to_space(node, backend, options, *x_md, x_dims, w_dims, y_dims)) return kernel;
  }
  // ONNX W is [C_in, C_out / group, k...]: oneDNN's [O, I, k...] read as "io".
  Dims weight_dims{w_dims[1] * group, w_dims[0]};
  Tag weight_tag = rank == 3 ? Tag::bac : rank == 4 ? Tag::bacd : Tag::bacde;  // iow, iohw, iodhw
  if (group > 1) {
    weight_dims = {group, w_dims[1], w_dims[0] / group};
    weight_tag = rank == 3 ? Tag::acbd : rank == 4 ? Tag::acbde : Tag::acbdef;  // giow, giohw, giodhw
  }
  weight_dims.insert(weight_dims.end(), w_dims.begin() + 2, w_dims.end());
  const dnnl::memory::desc weight_user(weight_dims, storage, weight_tag), weight_any(weight_dims, src_type, Tag::any);
  const dnnl::memory::desc bias_md =
      b != nullptr ? dnnl::memory::desc({y_dims[1]}, DnnlType::f32, Tag::a) : dnnl::memory::desc();
  try {
    // oneDNN picks the activation layouts it runs fastest; reorders bridge the stored ones.
    const dnnl::memory::desc x_any(x_dims, src_type, Tag::any), y_any(y_dims, dst_type, Tag::any);
    dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
                                           x_any, weight_any, bias_md, y_any, strides, dnnl_dilations, pads_l, pads_r);
    dnnl::post_ops ops;
    if (node.domain() == "ge" && !append_activation(node, ops)) return std::nullopt;
    const dnnl::primitive_attr attr = kernel_attributes(ops);
    dnnl::deconvolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    void* weights = prepack(builder, *w->constant(), weight_user, pd.weights_desc());
    ArgSource src{ArgSource::kInput, 0, 0, nullptr};
    if (pd.src_desc() != *x_md) src = builder.reorder_to_workspace(*x_md, src, pd.src_desc());
    const ArgSource dst = builder.output_or_workspace(pd.dst_desc(), *y_md);
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, pd.src_desc(), src},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, weights}},
                                 {DNNL_ARG_DST, pd.dst_desc(), dst}};
    if (b != nullptr) {
      const dnnl::memory::desc bias_user = with_type(bias_md, storage_type(b));
      args.push_back(
          {DNNL_ARG_BIAS, bias_md, {ArgSource::kOwned, 0, 0, prepack(builder, *b->constant(), bias_user, bias_md)}});
    }
    builder.add(dnnl::deconvolution_forward(pd), std::move(args), pd.scratchpad_desc());
    builder.finish_output(pd.dst_desc(), dst, *y_md);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, bf16_mode), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
