// MatMul / ge::FusedMatMul(A, B, [bias]) {activation} and Gemm / ge::FusedGemm(A, B, [C])
// {transA, transB, activation} on oneDNN's matmul primitive, float32/float16/bfloat16 (as Conv). A constant B is
// prepacked once into the layout oneDNN prefers; batch dims broadcast as numpy does
// (the shorter operand gets leading unit dims). A bias that varies along the last axis
// only is the primitive's bias; other bias shapes, Gemm's alpha != 1 and beta != 1 stay
// on the reference kernel.

#include <string>

#include "ge/logging.h"

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {
namespace {

using dt = dnnl::memory::data_type;

Dims with_leading_ones(Dims dims, size_t rank) {
  dims.insert(dims.begin(), rank - dims.size(), 1);
  return dims;
}

// A constant bias of dims (after leading ones) [1, ..., 1, N]: the primitive's bias, as
// float32 (prepacked from the bias's own type).
std::optional<dnnl::memory::desc> bias_desc(const Value& bias, const Dims& y_dims) {
  if (bias.constant() == nullptr || !is_float(&bias)) return std::nullopt;
  Dims dims = dims_of(bias);
  if (dims.size() > y_dims.size()) return std::nullopt;
  dims = with_leading_ones(dims, y_dims.size());
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    if (dims[i] != 1) return std::nullopt;
  }
  if (dims.back() != y_dims.back()) return std::nullopt;
  return dnnl::memory::desc(dims, dt::f32, plain_tag(dims.size()));
}

// The types a GEMM of `node` computes in (see Conv's): its storage, the primitive's src
// and weights, its dst; and the precision mode's bfloat16 arithmetic.
struct GemmTypesOf {
  DnnlType storage = DnnlType::undef, src = DnnlType::undef, dst = DnnlType::undef;
  bool bf16_mode = false;
};

GemmTypesOf gemm_types(const Node& node, const Options& options) {
  GemmTypesOf types;
  types.storage = storage_type(node.input(0));
  types.bf16_mode = computes_in_bf16(node, options);
  types.src = types.bf16_mode ? DnnlType::bf16 : compute_type(types.storage);
  types.dst = compute_type(types.storage);
  return types;
}

// A prepacked copy of a constant bias as `to` (float32), from its own type.
void* prepack_bias(ProgramBuilder& builder, const Value& bias, const dnnl::memory::desc& to) {
  return prepack(builder, *bias.constant(), with_type(to, storage_type(&bias)), to);
}

// A [.., M, K] x constant B [K, N] (or stored transposed) as a 1x1 convolution over
// an [1, K, 1, M] image in nhwc, whose memory is A's rows: oneDNN's jit 1x1 convolution
// runs this GEMM shape 2-2.6x faster than its sgemm on AVX2 (measured: 52-66 against 24
// GFLOP/s, one thread, M=128..256, K, N = 768..3072).
std::optional<PreparedKernel> build_as_convolution(const Node& node, std::string_view backend, const Options& options,
                                                   int64_t m, int64_t k, int64_t n, const Value& b, bool b_transposed,
                                                   const Value* bias, bool fused) {
  const Value& y = *node.output(0);
  const GemmTypesOf types = gemm_types(node, options);
  const dnnl::memory::desc src_stored({1, k, 1, m}, types.storage, Tag::nhwc),
      dst_stored({1, n, 1, m}, types.storage, Tag::nhwc);
  const dnnl::memory::desc src = with_type(src_stored, types.src), dst = with_type(dst_stored, types.dst);
  // B [K, N] is [I][O] of the 1x1 weights (iohw); stored transposed it is [O][I] (oihw).
  const dnnl::memory::desc weights_user({n, k, 1, 1}, types.storage, b_transposed ? Tag::oihw : Tag::iohw);
  const dnnl::memory::desc weights_any({n, k, 1, 1}, types.src, Tag::any);
  const dnnl::memory::desc bias_md({n}, dt::f32, Tag::a);
  const Dims y_dims = dims_of(y);
  std::optional<dnnl::memory::desc> full_bias;  // a bias that is not [N]: a binary post-op
  bool vector_bias = false;
  if (bias != nullptr) {
    if (bias_desc(*bias, y_dims)) {
      vector_bias = true;
    } else if (dims_of(*bias) == y_dims && storage_type(bias) == types.storage) {
      full_bias = dst;
    } else {
      return std::nullopt;
    }
  }
  try {
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                         weights_any, vector_bias ? bias_md : dnnl::memory::desc(), dst, {1, 1}, {0, 0},
                                         {0, 0});
    dnnl::post_ops ops;
    if (full_bias) ops.append_binary(dnnl::algorithm::binary_add, *full_bias);
    if (fused && !append_activation(node, ops)) return std::nullopt;
    const dnnl::primitive_attr attr = kernel_attributes(ops);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    void* weights = prepack(builder, *b.constant(), weights_user, pd.weights_desc());
    const ArgSource src_source = builder.input(0, src_stored, src);
    const ArgSource dst_source = builder.output_or_workspace(dst, dst_stored);
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, src, src_source},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), {ArgSource::kOwned, 0, 0, weights}},
                                 {DNNL_ARG_DST, dst, dst_source}};
    if (vector_bias) {
      args.push_back({DNNL_ARG_BIAS, bias_md, {ArgSource::kOwned, 0, 0, prepack_bias(builder, *bias, bias_md)}});
    }
    if (full_bias) {
      args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, dst, builder.input(2, dst_stored, dst)});
    }
    builder.add(dnnl::convolution_forward(pd), std::move(args), pd.scratchpad_desc());
    builder.finish_output(dst, dst_source, dst_stored);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + ".1x1" + precision_suffix(types.storage, types.bf16_mode),
        options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN 1x1 convolution for the GEMM: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

// a_md / b_md: the operands as stored (plain, possibly transposed views).
std::optional<PreparedKernel> build_matmul(const Node& node, std::string_view backend, const Options& options,
                                           const dnnl::memory::desc& a_md, const Value& b,
                                           const dnnl::memory::desc& b_md, const Value* bias, bool fused) {
  const Value& y = *node.output(0);
  if (!y.desc().is_plain() || !node.input(0)->desc().is_plain() || !b.desc().is_plain()) return std::nullopt;
  const GemmTypesOf types = gemm_types(node, options);
  const Dims y_dims = dims_of(y);
  const dnnl::memory::desc y_stored(y_dims, types.storage, plain_tag(y_dims.size()));
  const dnnl::memory::desc y_md = with_type(y_stored, types.dst);
  const dnnl::memory::desc a_compute = with_type(a_md, types.src);
  const bool constant_b = b.constant() != nullptr;
  const dnnl::memory::desc b_compute = with_type(b_md, types.src);
  std::optional<dnnl::memory::desc> b_bias, post_bias;  // the primitive's bias, or a binary post-op
  if (bias != nullptr) {
    b_bias = bias_desc(*bias, y_dims);
    if (!b_bias) {
      if (storage_type(bias) != types.storage || !bias->desc().is_plain() || dims_of(*bias).size() > y_dims.size()) {
        return std::nullopt;
      }
      const Dims dims = with_leading_ones(dims_of(*bias), y_dims.size());
      post_bias = dnnl::memory::desc(dims, types.dst, plain_tag(dims.size()));
    }
  }
  const dnnl::memory::desc b_any = constant_b ? dnnl::memory::desc(b_md.dims(), types.src, Tag::any) : b_compute;
  try {
    dnnl::matmul::desc desc =
        b_bias ? dnnl::matmul::desc(a_compute, b_any, *b_bias, y_md) : dnnl::matmul::desc(a_compute, b_any, y_md);
    dnnl::post_ops ops;
    if (post_bias) ops.append_binary(dnnl::algorithm::binary_add, *post_bias);
    if (fused && !append_activation(node, ops)) return std::nullopt;
    const dnnl::primitive_attr attr = kernel_attributes(ops);
    dnnl::matmul::primitive_desc pd(desc, attr, cpu_engine());
    ProgramBuilder builder;
    ArgSource weights =
        constant_b ? ArgSource{ArgSource::kOwned, 0, 0, prepack(builder, *b.constant(), b_md, pd.weights_desc())}
                   : builder.input(1, b_md, b_compute);
    const ArgSource dst = builder.output_or_workspace(y_md, y_stored);
    std::vector<ProgramArg> args{{DNNL_ARG_SRC, a_compute, builder.input(0, a_md, a_compute)},
                                 {DNNL_ARG_WEIGHTS, pd.weights_desc(), weights},
                                 {DNNL_ARG_DST, y_md, dst}};
    if (b_bias) {
      args.push_back({DNNL_ARG_BIAS, *b_bias, {ArgSource::kOwned, 0, 0, prepack_bias(builder, *bias, *b_bias)}});
    }
    if (post_bias) {
      const dnnl::memory::desc bias_stored = with_type(*post_bias, types.storage);
      ArgSource source =
          bias->constant() != nullptr
              ? ArgSource{ArgSource::kOwned, 0, 0, prepack(builder, *bias->constant(), bias_stored, *post_bias)}
              : builder.input(2, bias_stored, *post_bias);
      args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, *post_bias, source});
    }
    builder.add(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
    builder.finish_output(y_md, dst, y_stored);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(types.storage, types.bf16_mode),
        options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace

std::optional<PreparedKernel> prepare_matmul(const Node& node, std::string_view backend, const Options& options) {
  const Value* a = node.input(0);
  const Value* b = node.input(1);
  const DnnlType storage = storage_type(a);
  if (storage == DnnlType::undef || storage_type(b) != storage || storage_type(node.output(0)) != storage) {
    return std::nullopt;
  }
  Dims a_dims = dims_of(*a), b_dims = dims_of(*b);
  // A vector A [K] (a pooled row) is the matrix [1, K]: its product [N] has the bytes of
  // [1, N]. Only as the 1x1 convolution below, which sees M, K and N alone.
  const bool vector_a = a_dims.size() == 1 && b_dims.size() == 2;
  if (vector_a) a_dims.insert(a_dims.begin(), 1);
  if (a_dims.size() < 2 || b_dims.size() < 2) return std::nullopt;
  const size_t rank = std::max(a_dims.size(), b_dims.size());
  if (rank > 6) return std::nullopt;
  a_dims = with_leading_ones(a_dims, rank);
  b_dims = with_leading_ones(b_dims, rank);
  const Value* bias = node.domain() == "ge" && node.input_count() > 2 ? node.input(2) : nullptr;
  const bool fused = node.domain() == "ge";
  // A constant 2-D B (after unit batch dims) and a plain A: the GEMM as a 1x1 convolution.
  bool b_matrix = b->constant() != nullptr && a->desc().is_plain() && node.output(0)->desc().is_plain();
  for (size_t i = 0; i + 2 < rank; ++i) b_matrix = b_matrix && b_dims[i] == 1;
  if (b_matrix) {
    int64_t m = 1;
    for (size_t i = 0; i + 1 < rank; ++i) m *= a_dims[i];
    if (auto kernel = build_as_convolution(node, backend, options, m, a_dims[rank - 1], b_dims[rank - 1], *b, false,
                                           bias, fused)) {
      return kernel;
    }
  }
  if (vector_a) return std::nullopt;
  std::optional<PreparedKernel> kernel =
      build_matmul(node, backend, options, dnnl::memory::desc(a_dims, storage, plain_tag(rank)), *b,
                   dnnl::memory::desc(b_dims, storage, plain_tag(rank)), bias, fused);
  // Products of two activations (attention's batched QK^T and PV) only on oneDNN's brgemm
  // kernel (AVX-512): 225 GFLOP/s on BERT-base's [12,128,64] x [12,64,128], one thread,
  // against about 35 for the reference kernel. Its sgemm-based one (AVX2) ran these 4x
  // slower than the reference kernel (a BERT-base layer: 12.6 against 2.9 ms per run).
  if (kernel && b->constant() == nullptr && kernel->name.find(".dnnl:brg") == std::string::npos) return std::nullopt;
  return kernel;
}

std::optional<PreparedKernel> prepare_gemm(const Node& node, std::string_view backend, const Options& options) {
  const Value* a = node.input(0);
  const Value* b = node.input(1);
  const Value* c = node.input_count() > 2 ? node.input(2) : nullptr;
  const DnnlType storage = storage_type(a);
  if (storage == DnnlType::undef || storage_type(b) != storage || storage_type(node.output(0)) != storage) {
    return std::nullopt;
  }
  if (node.get_float("alpha", 1.f) != 1.f) return std::nullopt;
  if (c != nullptr && node.get_float("beta", 1.f) != 1.f) return std::nullopt;
  Dims a_dims = dims_of(*a), b_dims = dims_of(*b);
  if (a_dims.size() != 2 || b_dims.size() != 2) return std::nullopt;
  const bool trans_a = node.get_int("transA", 0) != 0, trans_b = node.get_int("transB", 0) != 0;
  if (!trans_a && b->constant() != nullptr) {
    const int64_t n = trans_b ? b_dims[0] : b_dims[1];
    if (auto kernel = build_as_convolution(node, backend, options, a_dims[0], a_dims[1], n, *b, trans_b, c,
                                           node.domain() == "ge")) {
      return kernel;
    }
  }
  // A transposed operand is the stored matrix read column-major: dims swapped, tag "ba".
  auto operand = [&](Dims dims, bool transposed) {
    if (transposed) return dnnl::memory::desc({dims[1], dims[0]}, storage, Tag::ba);
    return dnnl::memory::desc(dims, storage, Tag::ab);
  };
  return build_matmul(node, backend, options, operand(a_dims, trans_a), *b, operand(b_dims, trans_b), c,
                      node.domain() == "ge");
}

}  // namespace ge::cpu_dnnl
