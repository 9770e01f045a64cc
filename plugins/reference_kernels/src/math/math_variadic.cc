// Sum, Mean (floating types) and Min, Max (every numeric type): any number of inputs of
// one dtype, numpy-broadcast together (opset 8+; equal shapes before). The inputs are
// folded left to right, each step rounding to the element type like numpy's chained
// binary ops; with three or more inputs the partial result lives in the workspace, so
// the output may share storage with any input. Min/Max propagate NaN as numpy does.

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "ge/tensor_desc.h"
#include "math/math_binary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct VariadicParams {
  int64_t inputs = 0;
  int64_t elements = 0;  ///< of the output
  /// steps[0] combines inputs 0 and 1; steps[k - 1] (k >= 2) the partial result (of the
  /// output's shape) and input k.
  std::vector<StridedLoop> steps;
};

struct SumOp {
  template <typename T>
  static T apply(T a, T b) {
    return wrapping_add(a, b);
  }
};
struct MaxOp {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};
struct MinOp {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

template <typename T, typename Op, bool kMean>
int variadic_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const VariadicParams*>(args.params);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (y == nullptr) return kKernelMissingAddress;
  for (int64_t k = 0; k < p.inputs; ++k) {
    if (args.inputs[k] == nullptr) return kKernelMissingAddress;
  }
  auto input = [&](int64_t k) { return static_cast<const T*>(args.inputs[k]); };
  if (p.elements == 0) return kKernelOk;  // no workspace is planned for an empty output
  if (p.inputs == 1) {
    if (input(0) != y) std::copy(input(0), input(0) + p.elements, y);
    return kKernelOk;
  }
  T* partial = p.inputs == 2 ? y : static_cast<T*>(args.workspace);
  if (partial == nullptr) return kKernelMissingAddress;
  run_binary<T, T, T, Op>(p.steps[0], input(0), input(1), partial);
  for (int64_t k = 2; k < p.inputs; ++k) {
    run_binary<T, T, T, Op>(p.steps[k - 1], partial, input(k), k + 1 == p.inputs ? y : partial);
  }
  if constexpr (kMean) {
    const auto count = static_cast<Compute<T>>(p.inputs);
    for (int64_t i = 0; i < p.elements; ++i) y[i] = convert<T>(load(y[i]) / count);
  }
  return kKernelOk;
}

template <typename Op, typename List, bool kMean = false>
Result<PreparedKernel> prepare_variadic(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  const size_t count = context.node.input_count();
  std::vector<std::vector<int64_t>> dims(count);
  std::vector<int64_t> y_dims;
  for (size_t k = 0; k < count; ++k) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, k, dtype));
    GE_ASSIGN_OR_RETURN(dims[k], input_dims(context, k));
    std::optional<std::vector<int64_t>> joined = broadcast_shapes(y_dims, dims[k]);
    if (!joined) {
      return invalid_node(context, "input " + std::to_string(k) + " shape " + shape_to_string(dims[k]) +
                                       " does not broadcast with " + shape_to_string(y_dims));
    }
    y_dims = *joined;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  VariadicParams params;
  params.inputs = static_cast<int64_t>(count);
  params.elements = product(y_dims);
  if (count == 1 && dims[0] != y_dims) return invalid_node(context, "output shape differs from the single input's");
  for (size_t k = 1; k < count; ++k) {
    GE_ASSIGN_OR_RETURN(StridedLoop loop, broadcast_loop(context, y_dims, k == 1 ? dims[0] : y_dims, dims[k]));
    params.steps.push_back(loop);
  }
  KernelFunction function =
      select_kernel(dtype, List{}, []<typename T>() -> KernelFunction { return &variadic_kernel<T, Op, kMean>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(List{}));
  const size_t workspace = count > 2 ? static_cast<size_t>(params.elements) * element_size(dtype) : 0;
  return make_kernel(context, function, std::move(params), workspace);
}

}  // namespace

void add_variadic_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Sum", data_types(FloatingTypes{}), &prepare_variadic<SumOp, FloatingTypes>});
  table.push_back({"Mean", data_types(FloatingTypes{}), &prepare_variadic<SumOp, FloatingTypes, true>});
  table.push_back({"Max", data_types(NumericTypes{}), &prepare_variadic<MaxOp, NumericTypes>});
  table.push_back({"Min", data_types(NumericTypes{}), &prepare_variadic<MinOp, NumericTypes>});
}

}  // namespace ge::reference_kernels::math
