// Trilu (opset 14): keeps the upper (upper=1: column - row >= k) or lower (upper=0:
// column - row <= k) triangle of each matrix in the last two axes and zeroes the rest.
// k is the optional int64 scalar input 1, read at launch.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct TriluParams {
  int64_t matrices = 0, rows = 0, columns = 0;
  bool upper = true;
  bool has_k = false;
};

template <typename T>
int trilu_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const TriluParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  int64_t k = 0;
  if (p.has_k) {
    if (args.inputs[1] == nullptr) return kKernelMissingAddress;
    k = *static_cast<const int64_t*>(args.inputs[1]);
  }
  if (p.matrices * p.rows * p.columns == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  int64_t at = 0;
  for (int64_t m = 0; m < p.matrices; ++m) {
    for (int64_t r = 0; r < p.rows; ++r) {
      for (int64_t c = 0; c < p.columns; ++c, ++at) {
        const bool keep = p.upper ? c - r >= k : c - r <= k;
        y[at] = keep ? x[at] : T{};
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_trilu(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) return invalid_node(context, "input " + shape_to_string(x_dims) + " must have rank >= 2");
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  TriluParams params;
  params.rows = x_dims[x_dims.size() - 2];
  params.columns = x_dims.back();
  params.matrices = product(x_dims, 0, x_dims.size() - 2);
  GE_ASSIGN_OR_RETURN(int64_t upper, int_attribute(context, "upper", 1));
  params.upper = upper != 0;
  params.has_k = has_input(context, 1);
  if (params.has_k) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kInt64));
    GE_ASSIGN_OR_RETURN(int64_t k_count, input_element_count(context, 1));
    if (k_count != 1) return invalid_node(context, "input 1 (k) must hold one element");
  }
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &trilu_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_trilu_kernels(std::vector<OpKernel>& table) { table.push_back({"Trilu", copy_types(), &prepare_trilu}); }

}  // namespace ge::reference_kernels::tensor
