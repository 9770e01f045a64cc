// MaxPool (one output, storage_order 0), AveragePool, GlobalAveragePool and GlobalMaxPool
// on oneDNN's pooling primitive, float32, 1-D to 3-D, any stored format (blocked
// activations stay blocked). ceil_mode becomes the right padding oneDNN needs; an
// AveragePool that counts pads and whose ceil_mode window overhangs the pads stays on
// the reference kernel (ONNX cuts that window at the pads, oneDNN would not).

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"
#include "kernel_util.h"
#include "spatial_geometry.h"

namespace ge::cpu_dnnl {

std::optional<PreparedKernel> prepare_pool(const Node& node, std::string_view backend, const Options& options) {
  using cpu_kernels::kMaxSpatialRank;
  const Value* x = node.input(0);
  const Value* y = node.output(0);
  if (!is_float32(x) || !is_float32(y) || node.output_count() != 1) return std::nullopt;
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
    cpu_kernels::KernelContext context{node, backend, 17};
    const Dims kernel_shape = node.get_ints("kernel_shape");
    if (static_cast<int>(kernel_shape.size()) != spatial) return std::nullopt;
    Result<cpu_kernels::SpatialGeometry> geometry = cpu_kernels::compute_spatial_geometry(
        context, Dims(x_dims.begin() + 2, x_dims.end()), kernel_shape, node.get_int("ceil_mode", 0) != 0);
    if (!geometry.is_ok()) return std::nullopt;
    const cpu_kernels::SpatialGeometry& g = geometry.value();
    include_pad = !max && node.get_int("count_include_pad", 0) != 0;
    for (int i = 0; i < spatial; ++i) {
      const int a = kMaxSpatialRank - spatial + i;
      if (g.output[a] != y_dims[2 + i]) return std::nullopt;
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
    const dnnl::memory::desc y_any(y_dims, dnnl::memory::data_type::f32, Tag::any);
    dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, *x_stored, y_any, strides, kernel,
                                        dilations, pads_l, pads_r);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::pooling_v2_forward::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    const ArgSource dst = builder.output_or_workspace(pd.dst_desc(), *y_stored);
    builder.add(dnnl::pooling_v2_forward(pd),
                {{DNNL_ARG_SRC, *x_stored, {ArgSource::kInput, 0, 0, nullptr}}, {DNNL_ARG_DST, pd.dst_desc(), dst}},
                pd.scratchpad_desc());
    builder.finish_output(pd.dst_desc(), dst, *y_stored);
    return std::move(builder).build(fast_kernel_name(backend, node, pd.impl_info_str()), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
