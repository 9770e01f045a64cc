#pragma once
// Dtype dispatch for every kernel family: lists of element types, the dtypes a list
// stands for, and picking a kernel's instantiation by a dtype known only at prepare.
// Internal to the kernel library.

#include <cstdint>
#include <string>
#include <vector>

#include "ge/data_type.h"
#include "ge/plugin_api/kernel.h"
#include "ge/reference_kernels/half_float.h"  // data_type_of for the float16/bfloat16 element structs

namespace ge {
// String tensors hold constructed std::string elements, so lists may name std::string.
template <>
constexpr DataType data_type_of<std::string>() {
  return DataType::kString;
}
}  // namespace ge

namespace ge::reference_kernels {

/// A compile-time list of element types; each has a data_type_of.
template <typename... Ts>
struct TypeList {};

template <typename... Lists>
struct ConcatTypeLists;
template <typename... As>
struct ConcatTypeLists<TypeList<As...>> {
  using type = TypeList<As...>;
};
template <typename... As, typename... Bs, typename... Rest>
struct ConcatTypeLists<TypeList<As...>, TypeList<Bs...>, Rest...> {
  using type = typename ConcatTypeLists<TypeList<As..., Bs...>, Rest...>::type;
};
/// The types of `Lists` one after the other.
template <typename... Lists>
using Concat = typename ConcatTypeLists<Lists...>::type;

// ---- the shared lists (a list's order is the order messages name its dtypes in) ----

/// For kernels without a 16-bit float path.
using Float32And64Types = TypeList<float, double>;
using FloatingTypes = TypeList<float, double, Float16, BFloat16>;
using SignedIntegerTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntegerTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntegerTypes = Concat<SignedIntegerTypes, UnsignedIntegerTypes>;
/// Every numeric dtype (the 16-bit floats included).
using NumericTypes = Concat<FloatingTypes, IntegerTypes>;
using SignedNumericTypes = Concat<FloatingTypes, SignedIntegerTypes>;
using BoolTypes = TypeList<bool>;
/// Every element type an elementwise kernel may hold.
using AllTypes = Concat<NumericTypes, BoolTypes, TypeList<std::string>>;
/// The types Gemm's and MatMul's loop is instantiated for.
using GemmNativeTypes = TypeList<float, double, int32_t, int64_t, uint32_t, uint64_t>;
/// Gemm and MatMul: float16 and bfloat16 computed in float32 (nn_float_bridge.h).
using GemmTypes = Concat<GemmNativeTypes, TypeList<Float16, BFloat16>>;

// ---- dispatch ----

/// The dtypes of `list`, in its order.
template <typename... Ts>
std::vector<DataType> data_types(TypeList<Ts...>) {
  return {data_type_of<Ts>()...};
}

/// Whether `dtype` is the dtype of a type in `list`.
template <typename... Ts>
constexpr bool contains(TypeList<Ts...>, DataType dtype) {
  return ((dtype == data_type_of<Ts>()) || ...);
}

/// Calls `make.template operator()<T>()` for the T of `list` whose DataType is `dtype`
/// and returns its kernel; null when `dtype` is not in `list`.
template <typename... Ts, typename Make>
KernelFunction select_kernel(DataType dtype, TypeList<Ts...>, Make&& make) {
  KernelFunction function = nullptr;
  (void)((dtype == data_type_of<Ts>() ? (function = make.template operator()<Ts>(), true) : false) || ...);
  return function;
}

}  // namespace ge::reference_kernels
