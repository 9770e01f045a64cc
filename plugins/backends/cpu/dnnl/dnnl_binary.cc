// Add, Sub, Mul and Div of a tensor and a per-channel operand ([1 or N, C, 1, ...]: the
// squeeze-excite scale, a folded normalisation) on oneDNN's binary primitive, float32/float16/bfloat16,
// rank 3 to 5, the full operand in any stored format: such a node keeps a blocked chain
// blocked where the reference kernel would need reorders around it. Plain tensors of
// fewer than 16K elements stay on the reference kernel.

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {

std::optional<ChannelBinary> channel_binary(const Node& node) {
  static const std::pair<const char*, dnnl::algorithm> kOps[] = {{"Add", dnnl::algorithm::binary_add},
                                                                 {"Sub", dnnl::algorithm::binary_sub},
                                                                 {"Mul", dnnl::algorithm::binary_mul},
                                                                 {"Div", dnnl::algorithm::binary_div}};
  if (!is_onnx_domain(node) || node.input_count() != 2 || node.output_count() != 1) {
    return std::nullopt;
  }
  std::optional<ChannelBinary> result;
  for (const auto& [op, algorithm] : kOps) {
    if (node.op_type() == op) result = ChannelBinary{0, 1, algorithm};
  }
  const Value* y = node.output(0);
  const DnnlType storage = storage_type(y);
  if (!result || storage == DnnlType::undef || storage_type(node.input(0)) != storage ||
      storage_type(node.input(1)) != storage || !node.input(0)->desc().is_static() ||
      !node.input(1)->desc().is_static() || !y->desc().is_static()) {
    return std::nullopt;
  }
  const Dims y_dims = dims_of(*y);
  if (y_dims.size() < 3 || y_dims.size() > 5) return std::nullopt;
  auto per_channel = [&](const Value& value) {
    const Dims dims = dims_of(value);
    if (dims.size() != y_dims.size() || (dims[0] != 1 && dims[0] != y_dims[0]) || dims[1] != y_dims[1]) return false;
    for (size_t i = 2; i < dims.size(); ++i) {
      if (dims[i] != 1) return false;
    }
    return value.desc().is_plain();
  };
  if (dims_of(*node.input(1)) == y_dims && per_channel(*node.input(0))) {
    // Operand order matters to oneDNN (src0 has the destination's dims), not to Add or Mul.
    if (result->algorithm == dnnl::algorithm::binary_sub || result->algorithm == dnnl::algorithm::binary_div) {
      return std::nullopt;
    }
    std::swap(result->full, result->channel);
  }
  if (dims_of(*node.input(result->full)) != y_dims || !per_channel(*node.input(result->channel))) return std::nullopt;
  return result;
}

namespace {

// Below this many elements of plain tensors the reference loop is as fast as a launch.
constexpr int64_t kPlainElements = 16384;

}  // namespace

std::optional<PreparedKernel> prepare_binary(const Node& node, std::string_view backend, const Options& options) {
  const std::optional<ChannelBinary> operands = channel_binary(node);
  if (!operands) return std::nullopt;
  const Value& full = *node.input(operands->full);
  const Value& y = *node.output(0);
  if (full.desc().is_plain() && y.desc().is_plain() && y.desc().element_count() < kPlainElements) return std::nullopt;
  // The per-channel operand, plain [N, C, 1, ...], has the same bytes in the full
  // operand's channel-blocked format (C is a multiple of the block there), which is the
  // layout oneDNN's jit kernel wants for it.
  const DnnlType storage = storage_type(&y);
  const std::optional<dnnl::memory::desc> x_stored = stored_desc(full), y_md = stored_desc(y),
                                          c_stored = stored_desc(dims_of(*node.input(operands->channel)),
                                                                 full.desc().format, storage);
  if (!x_stored || !y_md || !c_stored) return std::nullopt;
  // bfloat16 natively, float16 in float32 (converted at the boundary).
  const dnnl::memory::desc x_md = with_type(*x_stored, compute_type(storage)),
                           c_md = with_type(*c_stored, compute_type(storage));
  try {
    // The destination in the full operand's layout (oneDNN's jit kernel wants them alike);
    // a reorder writes the stored output format when it differs.
    dnnl::binary::desc desc(operands->algorithm, x_md, c_md, x_md);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::binary::primitive_desc pd(desc, attr, cpu_engine());
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return std::nullopt;
    ProgramBuilder builder;
    const ArgSource x_source = builder.input(operands->full, *x_stored, x_md);
    const ArgSource c_source = builder.input(operands->channel, *c_stored, c_md);
    const ArgSource dst = builder.output_or_workspace(x_md, *y_md);
    builder.add(dnnl::binary(pd),
                {{DNNL_ARG_SRC_0, x_md, x_source}, {DNNL_ARG_SRC_1, c_md, c_source}, {DNNL_ARG_DST, x_md, dst}},
                pd.scratchpad_desc());
    builder.finish_output(x_md, dst, *y_md);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, false), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
