// MatMul / ge::FusedMatMul(A, B, [bias]) {activation} and Gemm / ge::FusedGemm(A, B, [C])
// {transA, transB, activation} on oneDNN's matmul primitive, float32. A constant B is
// prepacked once into the layout oneDNN prefers; batch dims broadcast as numpy does
// (the shorter operand gets leading unit dims). A bias that varies along the last axis
// only is the primitive's bias; other bias shapes, Gemm's alpha != 1 and beta != 1 stay
// on the reference kernel.

#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"

namespace ge::cpu_dnnl {
namespace {

using dt = dnnl::memory::data_type;

Dims with_leading_ones(Dims dims, size_t rank) {
  dims.insert(dims.begin(), rank - dims.size(), 1);
  return dims;
}

// A bias of dims (after leading ones) [1, ..., 1, N]: the primitive's bias.
std::optional<dnnl::memory::desc> bias_desc(const Value& bias, const Dims& y_dims) {
  if (bias.constant() == nullptr || !is_float32(&bias)) return std::nullopt;
  Dims dims = dims_of(bias);
  if (dims.size() > y_dims.size()) return std::nullopt;
  dims = with_leading_ones(dims, y_dims.size());
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    if (dims[i] != 1) return std::nullopt;
  }
  if (dims.back() != y_dims.back()) return std::nullopt;
  return dnnl::memory::desc(dims, dt::f32, plain_tag(dims.size()));
}

// a_md / b_md: the operands as stored (plain, possibly transposed views).
std::optional<PreparedKernel> build_matmul(const Node& node, std::string_view backend, const Options& options,
                                           const dnnl::memory::desc& a_md, const Value& b, const dnnl::memory::desc& b_md,
                                           const Value* bias, bool fused) {
  const Value& y = *node.output(0);
  if (!y.desc().is_plain() || !node.input(0)->desc().is_plain() || !b.desc().is_plain()) return std::nullopt;
  const Dims y_dims = dims_of(y);
  const dnnl::memory::desc y_md(y_dims, dt::f32, plain_tag(y_dims.size()));
  std::optional<dnnl::memory::desc> b_bias;
  if (bias != nullptr) {
    b_bias = bias_desc(*bias, y_dims);
    if (!b_bias) return std::nullopt;
  }
  const bool constant_b = b.constant() != nullptr;
  const dnnl::memory::desc b_any = constant_b ? dnnl::memory::desc(b_md.dims(), dt::f32, Tag::any) : b_md;
  try {
    dnnl::matmul::desc desc = b_bias ? dnnl::matmul::desc(a_md, b_any, *b_bias, y_md) : dnnl::matmul::desc(a_md, b_any, y_md);
    dnnl::post_ops ops;
    if (fused && !append_activation(node, ops)) return std::nullopt;
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    ArgSource weights{ArgSource::kInput, 1, 0, nullptr};
    if (constant_b) weights = {ArgSource::kOwned, 0, 0, prepack(builder, b.constant()->raw_data(), b_md, pd.weights_desc())};
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, a_md, {ArgSource::kInput, 0, 0, nullptr}},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), weights},
                                 {DNNL_ARG_DST, y_md, {ArgSource::kOutput, 0, 0, nullptr}}};
    if (b_bias) {
      args.push_back({DNNL_ARG_BIAS, *b_bias, {ArgSource::kOwned, 0, 0, prepack(builder, bias->constant()->raw_data(), *b_bias, *b_bias)}});
    }
    builder.add(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
    return std::move(builder).build(fast_kernel_name(backend, node, pd.impl_info_str()), options.threads);
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<PreparedKernel> prepare_matmul(const Node& node, std::string_view backend, const Options& options) {
  const Value* a = node.input(0);
  const Value* b = node.input(1);
  if (!is_float32(a) || !is_float32(b) || !is_float32(node.output(0))) return std::nullopt;
  Dims a_dims = dims_of(*a), b_dims = dims_of(*b);
  if (a_dims.size() < 2 || b_dims.size() < 2) return std::nullopt;
  const size_t rank = std::max(a_dims.size(), b_dims.size());
  if (rank > 6) return std::nullopt;
  a_dims = with_leading_ones(a_dims, rank);
  b_dims = with_leading_ones(b_dims, rank);
  const Value* bias = node.domain() == "ge" && node.input_count() > 2 ? node.input(2) : nullptr;
  return build_matmul(node, backend, options, dnnl::memory::desc(a_dims, dt::f32, plain_tag(rank)), *b,
                      dnnl::memory::desc(b_dims, dt::f32, plain_tag(rank)), bias, node.domain() == "ge");
}

std::optional<PreparedKernel> prepare_gemm(const Node& node, std::string_view backend, const Options& options) {
  const Value* a = node.input(0);
  const Value* b = node.input(1);
  const Value* c = node.input_count() > 2 ? node.input(2) : nullptr;
  if (!is_float32(a) || !is_float32(b) || !is_float32(node.output(0))) return std::nullopt;
  if (node.get_float("alpha", 1.f) != 1.f) return std::nullopt;
  if (c != nullptr && node.get_float("beta", 1.f) != 1.f) return std::nullopt;
  Dims a_dims = dims_of(*a), b_dims = dims_of(*b);
  if (a_dims.size() != 2 || b_dims.size() != 2) return std::nullopt;
  const bool trans_a = node.get_int("transA", 0) != 0, trans_b = node.get_int("transB", 0) != 0;
  // A transposed operand is the stored matrix read column-major: dims swapped, tag "ba".
  auto operand = [](Dims dims, bool transposed) {
    if (transposed) return dnnl::memory::desc({dims[1], dims[0]}, dt::f32, Tag::ba);
    return dnnl::memory::desc(dims, dt::f32, Tag::ab);
  };
  return build_matmul(node, backend, options, operand(a_dims, trans_a), *b, operand(b_dims, trans_b), c,
                      node.domain() == "ge");
}

}  // namespace ge::cpu_dnnl
