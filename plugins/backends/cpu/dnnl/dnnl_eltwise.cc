// Softmax (one axis from opset 13; the flattened trailing axes before) and ge::Gelu
// (erf or tanh) on oneDNN, float32, plain tensors: the reference kernels compute these
// in double precision element by element, several times slower on a transformer.

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {
namespace {

std::optional<PreparedKernel> finish(const Node& node, std::string_view backend, const Options& options,
                                     const dnnl::primitive& primitive, const dnnl::memory::desc& md,
                                     const dnnl::memory::desc& scratchpad, const char* implementation) {
  ProgramBuilder builder;
  builder.add(primitive,
              {{DNNL_ARG_SRC, md, {ArgSource::kInput, 0, 0, nullptr}}, {DNNL_ARG_DST, md, {ArgSource::kOutput, 0, 0, nullptr}}},
              scratchpad);
  return std::move(builder).build(fast_kernel_name(backend, node, implementation), options.threads);
}

}  // namespace

std::optional<PreparedKernel> prepare_softmax(const Node& node, std::string_view backend, const Options& options) {
  const Value* x = node.input(0);
  if (!is_float32(x) || !is_float32(node.output(0)) || !x->desc().is_plain()) return std::nullopt;
  Dims dims = dims_of(*x);
  if (dims.empty() || dims.size() > 6) return std::nullopt;
  const int64_t opset = node.graph() != nullptr && node.graph()->opset_version("") > 0 ? node.graph()->opset_version("") : 17;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t axis = node.get_int("axis", opset >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  if (opset < 13) {  // softmax over the flattened [axis, rank) block
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
    for (int64_t i = axis; i < rank; ++i) inner *= dims[i];
    dims = {outer, inner};
    axis = 1;
  }
  for (int64_t d : dims) {
    if (d == 0) return std::nullopt;
  }
  const dnnl::memory::desc md(dims, dnnl::memory::data_type::f32, plain_tag(dims.size()));
  try {
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, static_cast<int>(axis));
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::softmax_forward::primitive_desc pd(desc, attr, cpu_engine());
    return finish(node, backend, options, dnnl::softmax_forward(pd), md, pd.scratchpad_desc(), pd.impl_info_str());
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

std::optional<PreparedKernel> prepare_gelu(const Node& node, std::string_view backend, const Options& options) {
  const Value* x = node.input(0);
  if (!is_float32(x) || !is_float32(node.output(0)) || !x->desc().is_plain()) return std::nullopt;
  const std::string approximate = node.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") return std::nullopt;
  const Dims dims = dims_of(*x);
  if (dims.empty() || dims.size() > 6) return std::nullopt;
  const dnnl::memory::desc md(dims, dnnl::memory::data_type::f32, plain_tag(dims.size()));
  try {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                     approximate == "none" ? dnnl::algorithm::eltwise_gelu_erf
                                                           : dnnl::algorithm::eltwise_gelu_tanh,
                                     md, 0.f, 0.f);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::eltwise_forward::primitive_desc pd(desc, attr, cpu_engine());
    return finish(node, backend, options, dnnl::eltwise_forward(pd), md, pd.scratchpad_desc(), pd.impl_info_str());
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
