// ArgMax and ArgMin: the int64 index of the largest / smallest element along `axis`
// (keepdims keeps it as a unit axis). Ties give the first index, or the last with
// select_last_index=1 (opset 12); NaN wins like numpy.argmax/argmin.

#include <cmath>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct ArgParams {
  int64_t outer = 0, n = 0, inner = 0;  // input as [outer, n, inner]
  bool select_last = false;
};

template <typename T, bool kMax>
int arg_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ArgParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<int64_t*>(args.outputs[0]);
  if (p.outer * p.inner == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  auto is_nan = [](Compute<T> v) {
    if constexpr (std::is_floating_point_v<Compute<T>>) {
      return std::isnan(v);
    } else {
      (void)v;
      return false;
    }
  };
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* line = x + o * p.n * p.inner + i;
      int64_t best = 0;
      Compute<T> best_value = load(line[0]);
      for (int64_t j = 1; j < p.n; ++j) {
        const Compute<T> v = load(line[j * p.inner]);
        bool take;
        if (is_nan(best_value)) {
          take = p.select_last && is_nan(v);
        } else if (is_nan(v)) {
          take = true;
        } else {
          take = (kMax ? v > best_value : v < best_value) || (p.select_last && v == best_value);
        }
        if (take) {
          best = j;
          best_value = v;
        }
      }
      y[o * p.inner + i] = best;
    }
  }
  return kKernelOk;
}

template <bool kMax>
Result<PreparedKernel> prepare_arg(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank == 0) return invalid_node(context, "input 0 must have rank >= 1");
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  GE_ASSIGN_OR_RETURN(int64_t keepdims, int_attribute(context, "keepdims", 1));
  GE_ASSIGN_OR_RETURN(int64_t select_last, int_attribute(context, "select_last_index", 0));
  const size_t a = static_cast<size_t>(axis);
  if (x_dims[a] == 0) return invalid_node(context, "cannot take the arg of an empty axis " + std::to_string(axis));
  std::vector<int64_t> y_dims = x_dims;
  if (keepdims != 0) {
    y_dims[a] = 1;
  } else {
    y_dims.erase(y_dims.begin() + axis);
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kInt64, y_dims));
  ArgParams params{product(x_dims, 0, a), x_dims[a], product(x_dims, a + 1, x_dims.size()), select_last != 0};
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &arg_kernel<T, kMax>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_arg_extreme_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ArgMax", data_types(NumericTypes{}), &prepare_arg<true>});
  table.push_back({"ArgMin", data_types(NumericTypes{}), &prepare_arg<false>});
}

}  // namespace ge::reference_kernels::tensor
