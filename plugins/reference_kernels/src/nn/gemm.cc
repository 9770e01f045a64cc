// Gemm (opsets 1-13): Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A, B' likewise,
// C optional (opset >= 11) and broadcast unidirectionally to [M, N].

#include <algorithm>
#include <string>

#include "common/strided_loop.h"
#include "nn/gemm_reference.h"
#include "nn/nn_float_bridge.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

struct GemmParams {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f, beta = 1.0f;
  bool use_c = false;
  int64_t c_row_stride = 0, c_col_stride = 0;  // 0 on broadcast axes
};

template <typename T>
int gemm_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GemmParams*>(args.params);
  const auto* a = static_cast<const T*>(args.inputs[0]);
  const auto* b = static_cast<const T*>(args.inputs[1]);
  const T* c = p.use_c ? static_cast<const T*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  // Empty operands are legal and have no address: M or N = 0 leaves nothing to write,
  // K = 0 makes Y = beta * C.
  if (p.m * p.n == 0) return kKernelOk;
  if (y == nullptr || (p.k > 0 && (a == nullptr || b == nullptr)) || (p.use_c && c == nullptr)) {
    return kKernelMissingAddress;
  }
  if (p.trans_b && p.k > 0) {
    // B is [N, K]: lay it out as [K, N] in the workspace so the tiled loop streams its
    // rows (a transposed B would otherwise take the dot-product loop).
    auto* packed = static_cast<T*>(args.workspace);
    if (packed == nullptr && p.k * p.n > 0) return kKernelMissingAddress;
    for (int64_t n = 0; n < p.n; ++n)
      for (int64_t k = 0; k < p.k; ++k) packed[k * p.n + n] = b[n * p.k + k];
    b = packed;
  }
  std::fill(y, y + p.m * p.n, T(0));
  // A is [M, K] or, transposed, [K, M].
  const int64_t a_row = p.trans_a ? 1 : p.k, a_col = p.trans_a ? p.m : 1;
  gemm_accumulate(p.m, p.n, p.k, a, a_row, a_col, b, p.n, 1, y, p.n);
  const T alpha = static_cast<T>(p.alpha);
  const T beta = static_cast<T>(p.beta);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      T value = wrapping_mul(alpha, y[i * p.n + j]);
      if (c != nullptr) value = wrapping_add(value, wrapping_mul(beta, c[i * p.c_row_stride + j * p.c_col_stride]));
      y[i * p.n + j] = value;
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_gemm(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> a_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 1));
  if (a_dims.size() != 2 || b_dims.size() != 2) {
    return invalid_node(
        context, "inputs A " + shape_to_string(a_dims) + " and B " + shape_to_string(b_dims) + " must both be 2-D");
  }
  GemmParams params;
  GE_ASSIGN_OR_RETURN(int64_t trans_a, int_attribute(context, "transA", 0));
  GE_ASSIGN_OR_RETURN(int64_t trans_b, int_attribute(context, "transB", 0));
  GE_ASSIGN_OR_RETURN(params.alpha, float_attribute(context, "alpha", 1.0f));
  GE_ASSIGN_OR_RETURN(params.beta, float_attribute(context, "beta", 1.0f));
  params.trans_a = trans_a != 0;
  params.trans_b = trans_b != 0;
  params.m = params.trans_a ? a_dims[1] : a_dims[0];
  params.k = params.trans_a ? a_dims[0] : a_dims[1];
  params.n = params.trans_b ? b_dims[0] : b_dims[1];
  const int64_t b_k = params.trans_b ? b_dims[1] : b_dims[0];
  if (b_k != params.k) {
    return invalid_node(context, "inner dimensions differ: A " + shape_to_string(a_dims) +
                                     " (transA=" + std::to_string(trans_a) + ") and B " + shape_to_string(b_dims) +
                                     " (transB=" + std::to_string(trans_b) + ")");
  }
  // beta = 0 ignores C entirely, as ONNX Runtime does (no NaN from 0 * inf).
  params.use_c = has_input(context, 2) && params.beta != 0.0f;
  if (has_input(context, 2)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> c_dims, input_dims(context, 2));
    const std::vector<int64_t> target{params.m, params.n};
    std::optional<std::vector<int64_t>> merged = broadcast_shapes(target, c_dims);
    if (c_dims.size() > 2 || !merged || *merged != target) {
      return invalid_node(
          context, "input C " + shape_to_string(c_dims) + " does not broadcast to [M, N] = " + shape_to_string(target));
    }
    std::vector<int64_t> strides = broadcast_strides(c_dims, 2);
    params.c_row_stride = strides[0];
    params.c_col_stride = strides[1];
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, {params.m, params.n}));
  auto make = []<typename T>() -> KernelFunction { return &gemm_kernel<T>; };
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) {
    // The float32 loop on converted copies (float32 accumulation), rounded back once.
    std::vector<int64_t> c_count;
    if (has_input(context, 2)) c_count.push_back(product(input_dims(context, 2).value()));
    nn::FloatBridge bridge{{product(a_dims), product(b_dims)}, {params.m * params.n}};
    bridge.input_counts.insert(bridge.input_counts.end(), c_count.begin(), c_count.end());
    const size_t packed_b = params.trans_b ? static_cast<size_t>(params.k * params.n) * sizeof(float) : 0;
    return nn::prepare_with_bridge<GemmParams, &gemm_kernel<float>>(context, dtype, params, std::move(bridge), packed_b,
                                                                    0, {}, make);
  }
  KernelFunction function = select_kernel(dtype, GemmNativeTypes{}, make);
  const size_t workspace = params.trans_b ? static_cast<size_t>(params.k * params.n) * element_size(dtype) : 0;
  return make_kernel(context, function, params, workspace);
}

}  // namespace

void add_gemm_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Gemm", data_types(GemmTypes{}), &prepare_gemm});
}

}  // namespace ge::reference_kernels
