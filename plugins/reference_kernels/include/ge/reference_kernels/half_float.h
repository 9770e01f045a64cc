#pragma once
// The 16-bit floating-point element types every kernel family shares: float16 and
// bfloat16 as bit-pattern structs, computed in float, with their dtypes and an element
// reader. Their conversions are core's (ge/minifloat.h, inline), named here for the
// kernels. Internal to the kernel library.

#include <cstdint>
#include <type_traits>

#include "ge/data_type.h"
#include "ge/minifloat.h"

namespace ge::reference_kernels {

/// IEEE binary16 as stored in tensors: the bit pattern, computed in float.
struct Float16 {
  uint16_t bits = 0;
};
/// bfloat16 (the upper half of a float32) as stored in tensors.
struct BFloat16 {
  uint16_t bits = 0;
};
static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

using ge::bfloat16_from_double;
using ge::bfloat16_from_float;
using ge::bfloat16_to_float;
using ge::bfloat16_truncate;
using ge::float16_from_double;
using ge::float16_from_float;
using ge::float16_to_float;

}  // namespace ge::reference_kernels

namespace ge {
// The element structs have dtypes like the arithmetic types, so that data_type_of,
// data_types and select_kernel (dtype_dispatch.h) dispatch over them too.
template <>
constexpr DataType data_type_of<reference_kernels::Float16>() {
  return DataType::kFloat16;
}
template <>
constexpr DataType data_type_of<reference_kernels::BFloat16>() {
  return DataType::kBFloat16;
}
}  // namespace ge

namespace ge::reference_kernels::element {

/// An element's value as double: float16/bfloat16 decoded (exactly), other types cast.
/// Families that compute in double bring it in with `using element::load;`.
template <typename T>
double load(const T& value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return static_cast<double>(float16_to_float(value.bits));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<double>(bfloat16_to_float(value.bits));
  } else {
    return static_cast<double>(value);
  }
}

}  // namespace ge::reference_kernels::element
