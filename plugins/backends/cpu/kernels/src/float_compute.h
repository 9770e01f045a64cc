#pragma once
// The one load and store of the kernel families that compute 16-bit floats in float (math
// and tensor): an element widened to its compute type, and a computed value stored back.
// Internal to the kernel library.

#include <type_traits>

#include "half_float.h"

namespace ge::cpu_kernels::float_compute {

/// True for the 16-bit floats, which kernels compute in float.
template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

/// The type an element of T is computed in: float for the 16-bit floats, T otherwise.
/// Families bring these in with `using float_compute::load;`: a namespace of its own, so
/// that argument-dependent lookup on Float16 does not meet element::load (half_float.h).
template <typename T>
using Compute = std::conditional_t<is_half_v<T>, float, T>;

/// An element as its Compute type: float16/bfloat16 decoded (exactly), others as they are.
template <typename T>
Compute<T> load(T value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return float16_to_float(value.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bfloat16_to_float(value.bits);
  } else {
    return value;
  }
}

/// Stores a computed value (float/double for floating T, T otherwise) as T; the 16-bit
/// floats round to nearest even through float.
template <typename T, typename From>
T store(From value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16{float16_from_float(static_cast<float>(value))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{bfloat16_from_float(static_cast<float>(value))};
  } else {
    return static_cast<T>(value);
  }
}

}  // namespace ge::cpu_kernels::float_compute
