// CumSum: running sums along the axis given by input 1 (an int32/int64 scalar, read at
// launch), from the end with reverse=1, each excluding its own element with
// exclusive=1. Sums accumulate in the element type (float for float16/bfloat16) like
// numpy.cumsum; integers wrap.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct CumSumParams {
  int rank = 0;
  Index dims{};
  bool axis64 = true;
  bool exclusive = false;
  bool reverse = false;
};

template <typename T>
int cum_sum_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CumSumParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (args.inputs[1] == nullptr) return kKernelMissingAddress;
  int64_t axis = IntList{args.inputs[1], p.axis64, 1}[0];
  if (axis < 0) axis += p.rank;
  if (axis < 0 || axis >= p.rank) return kKernelInvalidRuntimeArgument;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= p.dims[d];
  for (int64_t d = axis + 1; d < p.rank; ++d) inner *= p.dims[d];
  const int64_t n = p.dims[axis];
  if (outer * n * inner == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      Compute<T> sum = Compute<T>(0);
      for (int64_t step = 0; step < n; ++step) {
        const int64_t j = p.reverse ? n - 1 - step : step;
        const int64_t at = (o * n + j) * inner + i;
        const Compute<T> v = load(x[at]);  // read first: y may alias x
        if (p.exclusive) {
          y[at] = store<T>(sum);
          sum = wrapping_add(sum, v);
        } else {
          sum = wrapping_add(sum, v);
          y[at] = store<T>(sum);
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_cum_sum(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  if (x_dims.empty()) return invalid_node(context, "input 0 must have rank >= 1");
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "axis"));
  GE_ASSIGN_OR_RETURN(int64_t axis_count, input_element_count(context, 1));
  if (axis_count != 1) return invalid_node(context, "input 1 (axis) must hold one element");
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  CumSumParams params;
  params.rank = static_cast<int>(x_dims.size());
  params.dims = to_index(x_dims);
  params.axis64 = input_dtype(context, 1) == DataType::kInt64;
  GE_ASSIGN_OR_RETURN(int64_t exclusive, int_attribute(context, "exclusive", 0));
  GE_ASSIGN_OR_RETURN(int64_t reverse, int_attribute(context, "reverse", 0));
  params.exclusive = exclusive != 0;
  params.reverse = reverse != 0;
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &cum_sum_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_cum_sum_kernels(std::vector<OpKernel>& table) {
  table.push_back({"CumSum", data_types(NumericTypes{}), &prepare_cum_sum});
}

}  // namespace ge::reference_kernels::tensor
