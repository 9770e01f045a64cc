// Softmax (one axis from opset 13; the flattened trailing axes before; plain tensors) and
// unary activations over at least 16K elements (Sigmoid, Tanh, Exp, HardSwish, Softplus,
// Elu, LeakyRelu, ge::Gelu; any stored format) on oneDNN, float32/float16/bfloat16: the reference kernels
// compute these element by element through libm, several times slower.

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {
namespace {

// The program of a one-input primitive computing on `md` over data stored as `stored`
// (the same layout; float16 storage computed in float32, converted at both ends).
std::optional<PreparedKernel> finish(const Node& node, std::string_view backend, const Options& options,
                                     const dnnl::primitive& primitive, const dnnl::memory::desc& stored,
                                     const dnnl::memory::desc& md, const dnnl::memory::desc& scratchpad,
                                     const char* implementation) {
  ProgramBuilder builder;
  const ArgSource src = builder.input(0, stored, md);
  const ArgSource dst = builder.output_or_workspace(md, stored);
  builder.add(primitive, {{DNNL_ARG_SRC, md, src}, {DNNL_ARG_DST, md, dst}}, scratchpad);
  builder.finish_output(md, dst, stored);
  return std::move(builder).build(
      fast_kernel_name(backend, node, implementation) + precision_suffix(stored.data_type(), false), options.threads);
}

}  // namespace

std::optional<PreparedKernel> prepare_softmax(const Node& node, std::string_view backend, const Options& options) {
  const Value* x = node.input(0);
  const DnnlType storage = storage_type(x);
  if (storage == DnnlType::undef || storage_type(node.output(0)) != storage || !x->desc().is_plain()) {
    return std::nullopt;
  }
  Dims dims = dims_of(*x);
  if (dims.empty() || dims.size() > 6) return std::nullopt;
  const int64_t opset =
      node.graph() != nullptr && node.graph()->opset_version("") > 0 ? node.graph()->opset_version("") : 17;
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
  const dnnl::memory::desc stored(dims, storage, plain_tag(dims.size()));
  const dnnl::memory::desc md = with_type(stored, compute_type(storage));
  try {
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, static_cast<int>(axis));
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::softmax_forward::primitive_desc pd(desc, attr, cpu_engine());
    return finish(node, backend, options, dnnl::softmax_forward(pd), stored, md, pd.scratchpad_desc(),
                  pd.impl_info_str());
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

namespace {

struct EltwiseOp {
  dnnl::algorithm algorithm;
  float alpha = 0, beta = 0;
};

// The oneDNN algorithm computing `node`'s unary op, when there is one.
std::optional<EltwiseOp> eltwise_op(const Node& node) {
  using Alg = dnnl::algorithm;
  const std::string& op = node.op_type();
  if (node.domain() == "ge") {
    // ge::HardSwish (fuse_hard_swish) is ONNX's HardSwish under GE's name (any opset).
    if (op == "HardSwish") return EltwiseOp{Alg::eltwise_hardswish};
    if (op != "Gelu") return std::nullopt;
    const std::string approximate = node.get_string("approximate", "none");
    if (approximate == "none") return EltwiseOp{Alg::eltwise_gelu_erf};
    if (approximate == "tanh") return EltwiseOp{Alg::eltwise_gelu_tanh};
    return std::nullopt;
  }
  if (op == "Sigmoid") return EltwiseOp{Alg::eltwise_logistic};
  if (op == "Tanh") return EltwiseOp{Alg::eltwise_tanh};
  if (op == "Exp") return EltwiseOp{Alg::eltwise_exp};
  if (op == "HardSwish") return EltwiseOp{Alg::eltwise_hardswish};
  if (op == "Softplus") return EltwiseOp{Alg::eltwise_soft_relu};
  if (op == "Elu") return EltwiseOp{Alg::eltwise_elu, node.get_float("alpha", 1.0f)};
  if (op == "LeakyRelu") return EltwiseOp{Alg::eltwise_relu, node.get_float("alpha", 0.01f)};
  return std::nullopt;
}

// Below this many elements the reference loop is as fast as a primitive launch.
constexpr int64_t kEltwiseElements = 16384;

}  // namespace

std::optional<PreparedKernel> prepare_eltwise(const Node& node, std::string_view backend, const Options& options) {
  const Value* x = node.input(0);
  const Value* y = node.output(0);
  if (node.input_count() != 1 || !is_float(x) || storage_type(y) != storage_type(x) ||
      x->desc().format != y->desc().format) {
    return std::nullopt;
  }
  const std::optional<EltwiseOp> op = eltwise_op(node);
  if (!op || x->desc().element_count() < kEltwiseElements) return std::nullopt;
  const std::optional<dnnl::memory::desc> stored = stored_desc(*x);  // any format: elementwise
  if (!stored || dims_of(*x).size() > 6) return std::nullopt;
  const dnnl::memory::desc md = with_type(*stored, compute_type(stored->data_type()));
  try {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, op->algorithm, md, op->alpha, op->beta);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::eltwise_forward::primitive_desc pd(desc, attr, cpu_engine());
    return finish(node, backend, options, dnnl::eltwise_forward(pd), *stored, md, pd.scratchpad_desc(),
                  pd.impl_info_str());
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
