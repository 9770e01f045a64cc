// Softmax. Opsets 1 and 11 coerce the input to 2-D at `axis` (default 1): each row
// [prod(dims[:axis]), prod(dims[axis:])] is normalised as a whole. Opset 13 normalises
// along the single axis `axis` (default -1). Both are an (outer, n, inner) walk: the old
// one with inner = 1. The maximum is subtracted first so exp never overflows.

#include <algorithm>
#include <cmath>
#include <string>

#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

struct SoftmaxParams {
  int64_t outer = 0;
  int64_t n = 0;      // elements normalised together
  int64_t inner = 0;  // stride between them
};

template <typename T>
int softmax_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SoftmaxParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if (p.n == 0) return kKernelOk;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* x_line = x + o * p.n * p.inner + i;
      T* y_line = y + o * p.n * p.inner + i;
      double maximum = static_cast<double>(x_line[0]);
      for (int64_t j = 1; j < p.n; ++j) maximum = std::max(maximum, static_cast<double>(x_line[j * p.inner]));
      double sum = 0.0;  // double keeps the float32 reference accurate
      for (int64_t j = 0; j < p.n; ++j) sum += std::exp(static_cast<double>(x_line[j * p.inner]) - maximum);
      for (int64_t j = 0; j < p.n; ++j) {
        y_line[j * p.inner] = static_cast<T>(std::exp(static_cast<double>(x_line[j * p.inner]) - maximum) / sum);
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_softmax(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  const bool coerced = context.opset < 13;
  SoftmaxParams params;
  if (rank == 0) {
    params = {1, 1, 1};  // a scalar normalises to 1
  } else {
    GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", coerced ? 1 : -1));
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
    const size_t split = static_cast<size_t>(axis);
    params.outer = product(x_dims, 0, split);
    if (coerced) {
      params.n = product(x_dims, split, x_dims.size());
      params.inner = 1;
    } else {
      params.n = x_dims[split];
      params.inner = product(x_dims, split + 1, x_dims.size());
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  KernelFunction function =
      select_kernel(dtype, FloatTypes{}, []<typename T>() -> KernelFunction { return &softmax_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_softmax_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Softmax", data_types(FloatTypes{}), &prepare_softmax});
}

}  // namespace ge::cpu_kernels
