// ConvTranspose on oneDNN's deconvolution, float32, 1-D to 3-D, grouped, constant
// weights (prepacked once) and bias, explicit pads (or none) and output_padding; the
// output extents come from the node's output desc, so output_padding becomes extra
// right padding. auto_pad and output_shape stay on the reference kernel.

#include <cstring>
#include <memory>
#include <string>

#include "ge/cpu_kernels/kernel_library.h"

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {
namespace {

// ConvTranspose whose kernel equals its stride (no pads, dilation or output_padding):
// the windows do not overlap, so it is a 1x1 convolution to C_out * kh * kw channels
// followed by a depth-to-space scatter. oneDNN's deconvolution runs these (upsampling
// heads, often with one output channel) at a fraction of its convolution speed.
struct ScatterParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0, kh = 0, kw = 0;
  int64_t block = 0;       // output channel block, 0: plain
  size_t products = 0;     // workspace offset of the [N, H, W, C_out * kh * kw] products
  const float* bias = nullptr;
  std::shared_ptr<void> bias_storage;
};

int scatter(const KernelArgs& args, const void* raw) {
  const auto& p = *static_cast<const ScatterParams*>(raw);
  const auto* t = reinterpret_cast<const float*>(static_cast<const char*>(args.workspace) + p.products);
  auto* y = static_cast<float*>(args.outputs[0]);
  if (y == nullptr) return 2;
  const int64_t out_h = p.height * p.kh, out_w = p.width * p.kw, plane = out_h * out_w;
  const int64_t per_pixel = p.channels * p.kh * p.kw;
  for (int64_t n = 0; n < p.batch; ++n) {
    float* image = y + n * p.channels * plane;
    for (int64_t h = 0; h < p.height; ++h) {
      for (int64_t w = 0; w < p.width; ++w) {
        const float* pixel = t + ((n * p.height + h) * p.width + w) * per_pixel;
        for (int64_t c = 0; c < p.channels; ++c) {
          const float bias = p.bias != nullptr ? p.bias[c] : 0.f;
          for (int64_t i = 0; i < p.kh; ++i) {
            for (int64_t j = 0; j < p.kw; ++j) {
              const int64_t spatial = (h * p.kh + i) * out_w + (w * p.kw + j);
              const int64_t offset = p.block == 0 ? c * plane + spatial
                                                  : ((c / p.block) * plane + spatial) * p.block + c % p.block;
              image[offset] = pixel[(c * p.kh + i) * p.kw + j] + bias;
            }
          }
        }
      }
    }
  }
  return 0;
}

std::optional<PreparedKernel> prepare_depth_to_space(const Node& node, std::string_view backend, const Options& options,
                                                     const dnnl::memory::desc& x_md, const Dims& x_dims,
                                                     const Dims& w_dims, const Dims& y_dims) {
  using dt = dnnl::memory::data_type;
  const Value* b = node.input_count() > 2 ? node.input(2) : nullptr;
  const int64_t out_channels = w_dims[1], kh = w_dims[2], kw = w_dims[3], expanded = out_channels * kh * kw;
  const std::string& y_format = node.output(0)->desc().format;
  const int64_t block = y_format.empty() ? 0 : cpu_kernels::channel_block_of_format(y_format, y_dims.size());
  if (!y_format.empty() && (block == 0 || out_channels % block != 0)) return std::nullopt;
  const dnnl::memory::desc products({x_dims[0], expanded, x_dims[2], x_dims[3]}, dt::f32, Tag::nhwc);
  // W [C_in, C_out, kh, kw] is [I][O * kh * kw] of the 1x1 weights.
  const dnnl::memory::desc weight_user({expanded, w_dims[0], 1, 1}, dt::f32, Tag::iohw);
  const dnnl::memory::desc weight_any({expanded, w_dims[0], 1, 1}, dt::f32, Tag::any);
  try {
    // oneDNN's jit 1x1 kernel wants source and destination both nhwc: reorder the source.
    const dnnl::memory::desc x_any(x_dims, dt::f32, Tag::nhwc);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_any,
                                         weight_any, dnnl::memory::desc(), products, {1, 1}, {0, 0}, {0, 0});
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return std::nullopt;
    ProgramBuilder builder;
    ArgSource src{ArgSource::kInput, 0, 0, nullptr};
    if (pd.src_desc() != x_md) src = builder.reorder_to_workspace(x_md, src, pd.src_desc());
    const ArgSource t{ArgSource::kWorkspace, 0, builder.reserve_workspace(products.get_size()), nullptr};
    void* weights = prepack(builder, *node.input(1)->constant(), weight_user, pd.weights_desc());
    builder.add(dnnl::convolution_forward(pd),
                {{DNNL_ARG_SRC, pd.src_desc(), src},
                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, weights}},
                 {DNNL_ARG_DST, products, t}},
                pd.scratchpad_desc());
    auto params = std::make_shared<ScatterParams>();
    *params = {x_dims[0], out_channels, x_dims[2], x_dims[3], kh, kw, block, t.offset, nullptr, nullptr};
    if (b != nullptr) {
      params->bias_storage = aligned_buffer(static_cast<size_t>(out_channels) * sizeof(float));
      std::memcpy(params->bias_storage.get(), b->constant()->raw_data(), static_cast<size_t>(out_channels) * sizeof(float));
      params->bias = static_cast<const float*>(params->bias_storage.get());
    }
    builder.add_host(&scatter, std::move(params));
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
  if (!is_float32(x) || !is_float32(w) || !is_float32(y) || w->constant() == nullptr) return std::nullopt;
  if (b != nullptr && (!is_float32(b) || b->constant() == nullptr)) return std::nullopt;
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
  bool depth_to_space = rank == 4 && group == 1;
  for (int i = 0; i < spatial && depth_to_space; ++i) {
    depth_to_space = strides[i] == w_dims[2 + i] && dilations[i] == 1 && pads[i] == 0 && pads[spatial + i] == 0 &&
                     y_dims[2 + i] == x_dims[2 + i] * strides[i];
  }
  if (depth_to_space) {
    if (auto kernel = prepare_depth_to_space(node, backend, options, *x_md, x_dims, w_dims, y_dims)) return kernel;
  }
  using dt = dnnl::memory::data_type;
  // ONNX W is [C_in, C_out / group, k...]: oneDNN's [O, I, k...] read as "io".
  Dims weight_dims{w_dims[1] * group, w_dims[0]};
  Tag weight_tag = rank == 3 ? Tag::bac : rank == 4 ? Tag::bacd : Tag::bacde;  // iow, iohw, iodhw
  if (group > 1) {
    weight_dims = {group, w_dims[1], w_dims[0] / group};
    weight_tag = rank == 3 ? Tag::acbd : rank == 4 ? Tag::acbde : Tag::acbdef;  // giow, giohw, giodhw
  }
  weight_dims.insert(weight_dims.end(), w_dims.begin() + 2, w_dims.end());
  const dnnl::memory::desc weight_user(weight_dims, dt::f32, weight_tag), weight_any(weight_dims, dt::f32, Tag::any);
  const dnnl::memory::desc bias_md = b != nullptr ? dnnl::memory::desc({y_dims[1]}, dt::f32, Tag::a)
                                                  : dnnl::memory::desc();
  try {
    // oneDNN picks the activation layouts it runs fastest; reorders bridge the stored ones.
    const dnnl::memory::desc x_any(x_dims, dt::f32, Tag::any), y_any(y_dims, dt::f32, Tag::any);
    dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                           dnnl::algorithm::deconvolution_direct, x_any, weight_any, bias_md, y_any,
                                           strides, dnnl_dilations, pads_l, pads_r);
    const dnnl::primitive_attr attr = kernel_attributes();
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
      args.push_back({DNNL_ARG_BIAS, bias_md, {ArgSource::kOwned, 0, 0, prepack(builder, *b->constant(), bias_md, bias_md)}});
    }
    builder.add(dnnl::deconvolution_forward(pd), std::move(args), pd.scratchpad_desc());
    builder.finish_output(pd.dst_desc(), dst, *y_md);
    return std::move(builder).build(fast_kernel_name(backend, node, pd.impl_info_str()), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
