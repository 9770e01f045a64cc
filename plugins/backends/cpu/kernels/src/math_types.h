#pragma once
// Element types of the math kernel family: the shared float16/bfloat16 (half_float.h),
// a dtype trait that covers them (and bool, string), type lists with
// dtype dispatch, and the one value conversion every math kernel stores through.
// Internal to the kernel library.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "float_compute.h"
#include "ge/data_type.h"
#include "ge/kernel.h"
#include "half_float.h"

namespace ge::cpu_kernels::math {

using cpu_kernels::BFloat16;
using cpu_kernels::bfloat16_from_double;
using cpu_kernels::bfloat16_from_float;
using cpu_kernels::bfloat16_to_float;
using cpu_kernels::bfloat16_truncate;
using cpu_kernels::Float16;
using cpu_kernels::float16_from_double;
using cpu_kernels::float16_from_float;
using cpu_kernels::float16_to_float;

// ---- dtype trait ----

template <typename T>
constexpr DataType dtype_of() {
  if constexpr (std::is_same_v<T, Float16>) {
    return DataType::kFloat16;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return DataType::kBFloat16;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return DataType::kString;
  } else {
    return data_type_of<T>();
  }
}

using float_compute::Compute;  // float for the 16-bit floats
using float_compute::is_half_v;
using float_compute::load;

/// Floating point -> integer: truncates toward zero; NaN gives 0 and values outside the
/// target range saturate (C++ leaves both undefined; ONNX leaves them unspecified).
template <typename To, typename From>
To float_to_integer(From value) {
  if (std::isnan(value)) return To(0);
  // The integer limits are exact in double or round up to a power of two, so every
  // truncated value strictly inside them converts without overflow.
  const double truncated = std::trunc(static_cast<double>(value));
  if (truncated <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
  if (truncated >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
  return static_cast<To>(truncated);
}

/// Converts one element between any two non-string element types, numpy's astype
/// semantics: to bool is `!= 0`, integers wrap, floats to 16-bit floats round to nearest
/// even, floats to integers as float_to_integer.
template <typename To, typename From>
To convert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (is_half_v<From>) {
    return convert<To>(load(value));
  } else if constexpr (std::is_same_v<To, Float16>) {
    if constexpr (std::is_same_v<From, float>) {
      return Float16{float16_from_float(value)};
    } else {
      return Float16{float16_from_double(static_cast<double>(value))};
    }
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_same_v<From, float>) {
      return BFloat16{bfloat16_from_float(value)};
    } else {
      return BFloat16{bfloat16_from_double(static_cast<double>(value))};
    }
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return float_to_integer<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

// ---- type lists and dispatch ----

template <typename... Ts>
struct Types {};

template <typename... Lists>
struct ConcatTypes;
template <typename... As>
struct ConcatTypes<Types<As...>> {
  using type = Types<As...>;
};
template <typename... As, typename... Bs, typename... Rest>
struct ConcatTypes<Types<As...>, Types<Bs...>, Rest...> {
  using type = typename ConcatTypes<Types<As..., Bs...>, Rest...>::type;
};
template <typename... Lists>
using Concat = typename ConcatTypes<Lists...>::type;

using FloatingTypes = Types<float, double, Float16, BFloat16>;
using SignedIntegerTypes = Types<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntegerTypes = Types<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntegerTypes = Concat<SignedIntegerTypes, UnsignedIntegerTypes>;
using NumericTypes = Concat<FloatingTypes, IntegerTypes>;
using SignedNumericTypes = Concat<FloatingTypes, SignedIntegerTypes>;
using BoolTypes = Types<bool>;
/// Every element type a tensor of the math family may hold.
using AllTypes = Concat<NumericTypes, BoolTypes, Types<std::string>>;

template <typename... Ts>
std::vector<DataType> dtypes(Types<Ts...>) {
  return {dtype_of<Ts>()...};
}

template <typename... Ts>
constexpr bool contains(Types<Ts...>, DataType dtype) {
  return ((dtype == dtype_of<Ts>()) || ...);
}

/// Calls `make.template operator()<T>()` for the T of `list` whose dtype is `dtype` and
/// returns its kernel; null when `dtype` is not in `list`.
template <typename... Ts, typename Make>
KernelFunction select(DataType dtype, Types<Ts...>, Make&& make) {
  KernelFunction function = nullptr;
  (void)((dtype == dtype_of<Ts>() ? (function = make.template operator()<Ts>(), true) : false) || ...);
  return function;
}

}  // namespace ge::cpu_kernels::math
