// MatMul (opsets 1-13): numpy matmul. A 1-D A is a row [1, K] and a 1-D B a column
// [K, 1], the added axis dropped from the result; batch axes broadcast.

#include <algorithm>
#include <string>

#include "common/strided_loop.h"
#include "nn/gemm_reference.h"
#include "nn/nn_float_bridge.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

struct MatMulParams {
  int64_t m = 0, n = 0, k = 0;
  // Per output matrix: which A and B matrices (in units of M*K and K*N elements) it
  // multiplies; the broadcast of the batch axes resolved in prepare.
  std::vector<int64_t> a_matrix, b_matrix;
};

template <typename T>
int matmul_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const MatMulParams*>(args.params);
  const auto* a = static_cast<const T*>(args.inputs[0]);
  const auto* b = static_cast<const T*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  // Empty operands are legal and have no address: M or N = 0 leaves nothing to write,
  // K = 0 a product of zeros.
  if (p.a_matrix.empty() || p.m * p.n == 0) return kKernelOk;
  if (y == nullptr || (p.k > 0 && (a == nullptr || b == nullptr))) return kKernelMissingAddress;
  if (p.k == 0) {
    std::fill(y, y + static_cast<int64_t>(p.a_matrix.size()) * p.m * p.n, T(0));
    return kKernelOk;
  }
  // With N = 1 the B column is contiguous: a column stride of 0 selects the dot-product
  // loop, which suits a matrix-vector product better than streaming length-1 rows.
  const int64_t b_col_stride = p.n == 1 ? 0 : 1;
  for (size_t batch = 0; batch < p.a_matrix.size(); ++batch) {
    T* y_matrix = y + static_cast<int64_t>(batch) * p.m * p.n;
    std::fill(y_matrix, y_matrix + p.m * p.n, T(0));
    gemm_accumulate(p.m, p.n, p.k, a + p.a_matrix[batch] * p.m * p.k, p.k, 1, b + p.b_matrix[batch] * p.k * p.n, p.n,
                    b_col_stride, y_matrix, p.n);
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_matmul(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> a_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 1));
  if (a_dims.empty() || b_dims.empty()) {
    return invalid_node(
        context, "inputs A " + shape_to_string(a_dims) + " and B " + shape_to_string(b_dims) + " must have rank >= 1");
  }
  const bool a_vector = a_dims.size() == 1;
  const bool b_vector = b_dims.size() == 1;
  if (a_vector) a_dims.insert(a_dims.begin(), 1);
  if (b_vector) b_dims.push_back(1);
  MatMulParams params;
  params.m = a_dims[a_dims.size() - 2];
  params.k = a_dims.back();
  params.n = b_dims.back();
  if (b_dims[b_dims.size() - 2] != params.k) {
    return invalid_node(context,
                        "inner dimensions differ: A " + shape_to_string(a_dims) + " and B " + shape_to_string(b_dims));
  }
  const std::vector<int64_t> a_batch(a_dims.begin(), a_dims.end() - 2);
  const std::vector<int64_t> b_batch(b_dims.begin(), b_dims.end() - 2);
  std::optional<std::vector<int64_t>> batch = broadcast_shapes(a_batch, b_batch);
  if (!batch) {
    return invalid_node(context, "batch dimensions of A " + shape_to_string(a_dims) + " and B " +
                                     shape_to_string(b_dims) + " do not broadcast");
  }
  std::vector<int64_t> y_dims = *batch;
  if (!a_vector) y_dims.push_back(params.m);
  if (!b_vector) y_dims.push_back(params.n);
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));

  // Walk the output batch index and map it to the (broadcast) A and B matrix indices.
  const std::vector<int64_t> a_strides = broadcast_strides(a_batch, batch->size());
  const std::vector<int64_t> b_strides = broadcast_strides(b_batch, batch->size());
  const int64_t matrices = product(*batch);
  params.a_matrix.reserve(static_cast<size_t>(matrices));
  params.b_matrix.reserve(static_cast<size_t>(matrices));
  std::vector<int64_t> index(batch->size(), 0);
  for (int64_t i = 0; i < matrices; ++i) {
    int64_t a_offset = 0, b_offset = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      a_offset += index[d] * a_strides[d];
      b_offset += index[d] * b_strides[d];
    }
    params.a_matrix.push_back(a_offset);
    params.b_matrix.push_back(b_offset);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < (*batch)[d]) break;
      index[d] = 0;
    }
  }
  auto make = []<typename T>() -> KernelFunction { return &matmul_kernel<T>; };
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) {
    // The float32 loop on converted copies (float32 accumulation), rounded back once.
    nn::FloatBridge bridge{{product(a_dims), product(b_dims)}, {product(y_dims)}};
    return nn::prepare_with_bridge<MatMulParams, &matmul_kernel<float>>(context, dtype, std::move(params),
                                                                        std::move(bridge), 0, 0, {}, make);
  }
  KernelFunction function = select_kernel(dtype, GemmNativeTypes{}, make);
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_matmul_kernels(std::vector<OpKernel>& table) {
  table.push_back({"MatMul", data_types(GemmTypes{}), &prepare_matmul});
}

}  // namespace ge::reference_kernels
