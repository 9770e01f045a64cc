// ConvTranspose on oneDNN's deconvolution, float32, 1-D to 3-D, grouped, constant
// weights (prepacked once) and bias, explicit pads (or none) and output_padding; the
// output extents come from the node's output desc, so output_padding becomes extra
// right padding. auto_pad and output_shape stay on the reference kernel.

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {

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
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::deconvolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    void* weights = prepack(builder, w->constant()->raw_data(), weight_user, pd.weights_desc());
    ArgSource src{ArgSource::kInput, 0, 0, nullptr};
    if (pd.src_desc() != *x_md) src = builder.reorder_to_workspace(*x_md, src, pd.src_desc());
    const ArgSource dst = builder.output_or_workspace(pd.dst_desc(), *y_md);
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, pd.src_desc(), src},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, weights}},
                                 {DNNL_ARG_DST, pd.dst_desc(), dst}};
    if (b != nullptr) {
      args.push_back({DNNL_ARG_BIAS, bias_md, {ArgSource::kOwned, 0, 0, prepack(builder, b->constant()->raw_data(), bias_md, bias_md)}});
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
