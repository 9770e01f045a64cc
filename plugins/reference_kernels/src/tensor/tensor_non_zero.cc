// NonZero: the coordinates of the non-zero elements, as int64 [rank, count] in row-major
// order (numpy.nonzero; a scalar counts as rank 1). The count depends on the data: the
// output desc must come from run-time shape inference (or a kernel-computed shape);
// the kernel checks it against the data.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct NonZeroParams {
  int rank = 0;  // as walked: at least 1
  Index dims{};
  int64_t count = 0;     // input elements
  int64_t non_zero = 0;  // output columns
};

template <typename T>
bool is_non_zero(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return !value.empty();
  } else if constexpr (is_half_v<T>) {
    return (value.bits & 0x7fffu) != 0;  // +0 and -0 are zero; NaN is not
  } else {
    return value != T(0);
  }
}

template <typename T>
int non_zero_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const NonZeroParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<int64_t*>(args.outputs[0]);
  if (p.count > 0 && x == nullptr) return kKernelMissingAddress;
  int64_t found = 0;
  for (int64_t i = 0; i < p.count; ++i) found += is_non_zero(x[i]) ? 1 : 0;
  if (found != p.non_zero) return kKernelRuntimeShapeMismatch;
  if (found == 0) return kKernelOk;
  if (y == nullptr) return kKernelMissingAddress;
  Index index{};
  int64_t column = 0;
  for (int64_t i = 0; i < p.count; ++i) {
    if (is_non_zero(x[i])) {
      for (int d = 0; d < p.rank; ++d) y[d * p.non_zero + column] = index[d];
      ++column;
    }
    for (int d = p.rank - 1; d >= 0; --d) {
      if (++index[d] < p.dims[d]) break;
      index[d] = 0;
    }
  }
  return kKernelOk;
}

using NonZeroTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                              uint32_t, uint64_t, bool, std::string>;

Result<PreparedKernel> prepare_non_zero(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  if (x_dims.empty()) x_dims = {1};
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  if (y_dims.size() != 2) return invalid_node(context, "output " + shape_to_string(y_dims) + " must be 2-D");
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kInt64, {static_cast<int64_t>(x_dims.size()), y_dims[1]}));
  NonZeroParams params{static_cast<int>(x_dims.size()), to_index(x_dims), product(x_dims), y_dims[1]};
  KernelFunction function =
      select_kernel(dtype, NonZeroTypes{}, []<typename T>() -> KernelFunction { return &non_zero_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_non_zero_kernels(std::vector<OpKernel>& table) {
  table.push_back({"NonZero", data_types(NonZeroTypes{}), &prepare_non_zero});
}

}  // namespace ge::reference_kernels::tensor
