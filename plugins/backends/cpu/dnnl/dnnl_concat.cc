// Concat of channel-blocked tensors on oneDNN's concat primitive, float32/float16/bfloat16, any axis, every
// input and the output in a stored format oneDNN names: layout assignment keeps an FPN's
// Concat of blocked branches blocked. Plain Concat stays on the reference kernel (and on
// the memory planner's in-place slices).

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {

std::optional<PreparedKernel> prepare_concat(const Node& node, std::string_view backend, const Options& options) {
  const Value* y = node.output(0);
  const DnnlType storage = storage_type(y);
  if (node.input_count() == 0 || storage == DnnlType::undef || !y->desc().is_static()) return std::nullopt;
  // A Concat moves elements without arithmetic: float16 moves as bfloat16 (the same 16
  // bits), which oneDNN's jit concat takes (its float16 one is the reference loop).
  const DnnlType moved = storage == DnnlType::f16 ? DnnlType::bf16 : storage;
  bool plain = y->desc().is_plain();
  std::vector<dnnl::memory::desc> sources;
  for (const Value* x : node.inputs()) {
    if (storage_type(x) != storage || !x->desc().is_static() || x->desc().element_count() == 0) return std::nullopt;
    const std::optional<dnnl::memory::desc> md = stored_desc(*x);
    if (!md) return std::nullopt;
    plain = plain && x->desc().is_plain();
    sources.push_back(with_type(*md, moved));
  }
  if (plain) return std::nullopt;
  std::optional<dnnl::memory::desc> y_md = stored_desc(*y);
  if (y_md) y_md = with_type(*y_md, moved);
  const int64_t rank = static_cast<int64_t>(dims_of(*y).size());
  int64_t axis = node.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (!y_md || axis < 0 || axis >= rank) return std::nullopt;
  try {
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::concat::primitive_desc pd(*y_md, static_cast<int>(axis), sources, cpu_engine(), attr);
    std::vector<ProgramArg> args;
    for (size_t i = 0; i < sources.size(); ++i) {
      args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i),
                      sources[i],
                      {ArgSource::kInput, static_cast<int>(i), 0, nullptr}});
    }
    args.push_back({DNNL_ARG_DST, *y_md, {ArgSource::kOutput, 0, 0, nullptr}});
    ProgramBuilder builder;
    builder.add(dnnl::concat(pd), std::move(args), pd.scratchpad_desc());
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, false), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
