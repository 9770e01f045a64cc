// LayerNormalization (ai.onnx opset 17, and ge::LayerNormalization for older opsets) on
// oneDNN's layer normalization, float32/float16/bfloat16, plain tensors: X viewed as [outer, inner] with
// inner the product of the dims from `axis` on, constant Scale (and B) of the inner
// shape; output Y only (Mean and InvStdDev outputs stay on the reference kernel).

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {

std::optional<PreparedKernel> prepare_layer_norm(const Node& node, std::string_view backend, const Options& options) {
  const Value* x = node.input(0);
  const Value* scale = node.input_count() > 1 ? node.input(1) : nullptr;
  const Value* bias = node.input_count() > 2 ? node.input(2) : nullptr;
  const DnnlType storage = storage_type(x);
  if (storage == DnnlType::undef || storage_type(node.output(0)) != storage || !x->desc().is_plain() ||
      scale == nullptr) {
    return std::nullopt;
  }
  for (size_t i = 1; i < node.output_count(); ++i) {
    if (!node.output(i)->name().empty() && node.output(i)->has_uses()) return std::nullopt;
  }
  if (!is_float(scale) || scale->constant() == nullptr) return std::nullopt;
  if (bias != nullptr && (!is_float(bias) || bias->constant() == nullptr)) return std::nullopt;
  if (node.get_int("stash_type", 1) != 1) return std::nullopt;
  const Dims dims = dims_of(*x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t axis = node.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank) return std::nullopt;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
  for (int64_t i = axis; i < rank; ++i) inner *= dims[i];
  if (outer == 0 || inner == 0 || scale->desc().element_count() != inner ||
      (bias != nullptr && bias->desc().element_count() != inner)) {
    return std::nullopt;  // a broadcast Scale or B: the reference kernel's case
  }
  using dt = dnnl::memory::data_type;
  // bfloat16 natively, float16 in float32; statistics, Scale and B in float32.
  const dnnl::memory::desc stored({outer, inner}, storage, Tag::ab), vector({inner}, dt::f32, Tag::a);
  const dnnl::memory::desc md = with_type(stored, compute_type(storage));
  auto vector_of = [&](const Value& v) { return dnnl::memory::desc({inner}, storage_type(&v), Tag::a); };
  try {
    auto flags = dnnl::normalization_flags::use_scale;
    if (bias != nullptr) flags = flags | dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md,
                                                 node.get_float("epsilon", 1e-5f), flags);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::layer_normalization_forward::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    const ArgSource dst = builder.output_or_workspace(md, stored);
    std::vector<ProgramArg> args{
        {DNNL_ARG_SRC, md, builder.input(0, stored, md)},
        {DNNL_ARG_DST, md, dst},
        {DNNL_ARG_SCALE,
         vector,
         {ArgSource::kOwned, 0, 0, prepack(builder, *scale->constant(), vector_of(*scale), vector)}}};
    if (bias != nullptr) {
      args.push_back({DNNL_ARG_SHIFT,
                      vector,
                      {ArgSource::kOwned, 0, 0, prepack(builder, *bias->constant(), vector_of(*bias), vector)}});
    }
    builder.add(dnnl::layer_normalization_forward(pd), std::move(args), pd.scratchpad_desc());
    builder.finish_output(md, dst, stored);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, false), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
