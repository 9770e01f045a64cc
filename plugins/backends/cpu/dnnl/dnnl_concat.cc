// Concat of channel-blocked tensors on oneDNN's concat primitive, float32/float16/bfloat16, any axis, every
// input and the output in a stored format oneDNN names: layout assignment keeps an FPN's
// Concat of blocked branches blocked. Plain Concat stays on the reference kernel (and on
// the memory planner's in-place slices).

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge::cpu_dnnl {

std::optional<PreparedKernel> prepare_concat(const Node& node, std::string_view backend, const Options& options) {
  const Value* y = node.output(0);
  const DnnlType storage = storage_type(y);
  if (node.input_count() == 0 || storage == DnnlType::undef || !y->desc().is_static()) return std::nullopt;
  // A Concat moves elements without arithmetic: float16 moves as bfloat16 (the same 16
  // bits), which oneDNN's jit concat takes (its float16 one is the reference loop). Below
  // AVX512-BF16 oneDNN concatenates neither type but in its reference loop, which converts
  // (NaN payloads and subnormals change): there two channels of 16 bits move as one
  // float32 of a half-width block, the same bytes (nChw16c of C channels is nChw8c of C/2).
  const bool pairs = storage != DnnlType::f32 && !native_bf16();
  const DnnlType moved = pairs ? DnnlType::f32 : storage == DnnlType::f16 ? DnnlType::bf16 : storage;
  auto moved_desc = [&](const Value& value) -> std::optional<dnnl::memory::desc> {
    if (!pairs) {
      std::optional<dnnl::memory::desc> md = stored_desc(value);
      return md ? std::optional(with_type(*md, moved)) : std::nullopt;
    }
    Dims dims = dims_of(value);
    const int64_t block = reference_kernels::channel_block_of_format(value.desc().format, dims.size());
    if (value.desc().is_plain() || dims.size() < 3 || dims[1] % 2 != 0 || block < 2) return std::nullopt;
    dims[1] /= 2;
    const std::string half_block = "nChw" + std::to_string(block / 2) + "c";
    if (dims.size() == 4 && block / 2 == 4) return dnnl::memory::desc(dims, DnnlType::f32, Tag::nChw4c);
    return stored_desc(dims, half_block, DnnlType::f32);
  };
  bool plain = y->desc().is_plain();
  std::vector<dnnl::memory::desc> sources;
  for (const Value* x : node.inputs()) {
    if (storage_type(x) != storage || !x->desc().is_static() || x->desc().element_count() == 0) return std::nullopt;
    plain = plain && x->desc().is_plain();
  }
  if (plain) return std::nullopt;
  for (const Value* x : node.inputs()) {
    const std::optional<dnnl::memory::desc> md = moved_desc(*x);
    if (!md) return std::nullopt;
    sources.push_back(*md);
  }
  std::optional<dnnl::memory::desc> y_md = moved_desc(*y);
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
