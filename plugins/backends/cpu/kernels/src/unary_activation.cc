// Relu (opsets 1-14; integer types from 14), Sigmoid and Tanh (opsets 1-13): one
// function applied to every element of a contiguous tensor.

#include <cmath>

#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

using ReluTypes = TypeList<float, double, int8_t, int16_t, int32_t, int64_t>;

struct UnaryParams {
  int64_t elements = 0;
};

struct ReluOp {
  template <typename T>
  static T apply(T x) {
    return x > T(0) ? x : T(0);
  }
};
struct SigmoidOp {
  // exp(-x) overflows to inf for very negative x, which still gives the right limit 0.
  template <typename T>
  static T apply(T x) {
    return T(1) / (T(1) + std::exp(-x));
  }
};
struct TanhOp {
  template <typename T>
  static T apply(T x) {
    return std::tanh(x);
  }
};

template <typename T, typename Op>
int unary_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const UnaryParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.elements; ++i) y[i] = Op::apply(x[i]);
  return kKernelOk;
}

template <typename Op, typename Types>
Result<PreparedKernel> prepare_unary(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, dims));
  KernelFunction function =
      select_kernel(dtype, Types{}, []<typename T>() -> KernelFunction { return &unary_kernel<T, Op>; });
  return make_kernel(context, function, UnaryParams{product(dims)});
}

}  // namespace

void add_unary_activation_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Relu", data_types(ReluTypes{}), &prepare_unary<ReluOp, ReluTypes>});
  table.push_back({"Sigmoid", data_types(FloatTypes{}), &prepare_unary<SigmoidOp, FloatTypes>});
  table.push_back({"Tanh", data_types(FloatTypes{}), &prepare_unary<TanhOp, FloatTypes>});
}

}  // namespace ge::cpu_kernels
