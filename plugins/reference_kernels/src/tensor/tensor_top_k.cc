// TopK: the k largest (or, with largest=0, smallest) elements along `axis` and their
// int64 indices, sorted (the order sorted=0 leaves unspecified is the sorted one too).
// Equal values keep the lower index first; NaN counts as larger than every number. k is
// the attribute (opset 1) or input 1, which shape inference already folded into the
// output descs; the kernel checks the input against them.

#include <algorithm>
#include <cmath>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct TopKParams {
  int64_t outer = 0, n = 0, inner = 0;  // input as [outer, n, inner]
  int64_t k = 0;
  bool largest = true;
  bool k_input = false;  // opset 10+: check input 1
};

template <typename T>
bool is_nan(const Compute<T>& value) {
  if constexpr (std::is_floating_point_v<Compute<T>>) {
    return std::isnan(value);
  } else {
    (void)value;
    return false;
  }
}

template <typename T>
int top_k_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const TopKParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* values = static_cast<T*>(args.outputs[0]);
  auto* indices = static_cast<int64_t*>(args.outputs[1]);
  if (p.k_input) {
    if (args.inputs[1] == nullptr) return kKernelMissingAddress;
    if (*static_cast<const int64_t*>(args.inputs[1]) != p.k) return kKernelRuntimeShapeMismatch;
  }
  if (p.outer * p.k * p.inner == 0) return kKernelOk;
  if (x == nullptr || args.workspace == nullptr) return kKernelMissingAddress;
  auto* order = static_cast<int64_t*>(args.workspace);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* line = x + o * p.n * p.inner + i;
      auto at = [&](int64_t j) { return load(line[j * p.inner]); };
      // Whether element a goes before element b: ties (and NaN pairs) by index.
      auto before = [&](int64_t a, int64_t b) {
        const Compute<T> va = at(a);
        const Compute<T> vb = at(b);
        const bool nan_a = is_nan<T>(va);
        const bool nan_b = is_nan<T>(vb);
        if (nan_a || nan_b) {
          if (nan_a && nan_b) return a < b;
          return p.largest ? nan_a : nan_b;
        }
        if (va != vb) return p.largest ? va > vb : va < vb;
        return a < b;
      };
      for (int64_t j = 0; j < p.n; ++j) order[j] = j;
      std::partial_sort(order, order + p.k, order + p.n, before);
      for (int64_t j = 0; j < p.k; ++j) {
        const int64_t out = (o * p.k + j) * p.inner + i;
        if (values != nullptr) values[out] = line[order[j] * p.inner];
        if (indices != nullptr) indices[out] = order[j];
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_top_k(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank == 0) return invalid_node(context, "input 0 must have rank >= 1");
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", -1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  const size_t a = static_cast<size_t>(axis);
  TopKParams params;
  params.outer = product(x_dims, 0, a);
  params.n = x_dims[a];
  params.inner = product(x_dims, a + 1, x_dims.size());
  GE_ASSIGN_OR_RETURN(int64_t largest, int_attribute(context, "largest", 1));
  params.largest = largest != 0;
  if (context.opset >= 10) {
    params.k_input = true;
    GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kInt64));
    GE_ASSIGN_OR_RETURN(int64_t k_count, input_element_count(context, 1));
    if (k_count != 1) return invalid_node(context, "input 1 (K) must hold one element");
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
    params.k = y_dims.size() == x_dims.size() ? y_dims[a] : -1;
  } else {
    GE_ASSIGN_OR_RETURN(params.k, int_attribute(context, "k", -1));
  }
  if (params.k < 0 || params.k > params.n) {
    return invalid_node(context, "k = " + std::to_string(params.k) + " is outside [0, " + std::to_string(params.n) +
                                     "] for input " + shape_to_string(x_dims));
  }
  std::vector<int64_t> y_dims = x_dims;
  y_dims[a] = params.k;
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  GE_RETURN_IF_ERROR(check_output(context, 1, DataType::kInt64, y_dims));
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &top_k_kernel<T>; });
  const size_t workspace = static_cast<size_t>(params.n) * sizeof(int64_t);
  return make_kernel(context, function, params, workspace);
}

}  // namespace

void add_top_k_kernels(std::vector<OpKernel>& table) {
  table.push_back({"TopK", data_types(NumericTypes{}), &prepare_top_k});
}

}  // namespace ge::reference_kernels::tensor
