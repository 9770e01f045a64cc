#pragma once
// The engine every one-input elementwise op of the math family shares (Neg ... Erf,
// IsNaN, Not, the activations): one function applied to each element of a contiguous
// tensor. An op is a struct with
//   template <typename C> static auto apply(const UnaryParams& p, C x);
// over the compute type (float for float16/bfloat16); the kernel converts the result to
// the output type. An op with attributes also has
//   static Status read_attributes(const KernelContext& context, UnaryParams& p);

#include <type_traits>
#include <utility>
#include <vector>

#include "math/math_types.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {

/// What a one-input kernel needs at launch: the element count and up to three attribute
/// values (their meaning is the op's).
struct UnaryParams {
  int64_t elements = 0;
  float alpha = 0.0f;
  float beta = 0.0f;
  float gamma = 0.0f;
};

template <typename TX, typename TY, typename Op>
int unary_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const UnaryParams*>(args.params);
  const auto* x = static_cast<const TX*>(args.inputs[0]);
  auto* y = static_cast<TY*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if constexpr (std::is_same_v<TX, Float16>) {
    float_compute::map_float16(
        p.elements, y, [&p](float value) { return Op::apply(p, value); },
        [](auto value) { return convert<TY>(value); }, std::pair{x, int64_t{1}});
    return kKernelOk;
  }
  for (int64_t i = 0; i < p.elements; ++i) y[i] = convert<TY>(Op::apply(p, load(x[i])));
  return kKernelOk;
}

template <typename Op>
Result<UnaryParams> unary_params(const KernelContext& context, int64_t elements) {
  UnaryParams params;
  params.elements = elements;
  if constexpr (requires { Op::read_attributes(context, params); }) {
    GE_RETURN_IF_ERROR(Op::read_attributes(context, params));
  }
  return params;
}

/// y = Op(x) with x and y of one dtype from `List`.
template <typename Op, typename List>
Result<PreparedKernel> prepare_same_type_unary(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, dims));
  GE_ASSIGN_OR_RETURN(UnaryParams params, unary_params<Op>(context, product(dims)));
  KernelFunction function =
      select_kernel(dtype, List{}, []<typename T>() -> KernelFunction { return &unary_kernel<T, T, Op>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(List{}));
  return make_kernel(context, function, params);
}

/// bool y = Op(x) with x of a dtype from `List`.
template <typename Op, typename List>
Result<PreparedKernel> prepare_predicate_unary(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kBool, dims));
  GE_ASSIGN_OR_RETURN(UnaryParams params, unary_params<Op>(context, product(dims)));
  KernelFunction function =
      select_kernel(dtype, List{}, []<typename T>() -> KernelFunction { return &unary_kernel<T, bool, Op>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(List{}));
  return make_kernel(context, function, params);
}

/// Reads float attribute `name` (default `fallback`) into `out`.
inline Status read_float(const KernelContext& context, const char* name, float fallback, float& out) {
  GE_ASSIGN_OR_RETURN(out, float_attribute(context, name, fallback));
  return Status::ok();
}

}  // namespace ge::reference_kernels::math
