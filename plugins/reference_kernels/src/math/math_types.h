#pragma once
// Element types of the math kernel family: the shared float16/bfloat16 (half_float.h)
// and the one value conversion every math kernel stores through. Its kernels dispatch
// over the type lists of dtype_dispatch.h.
// Internal to the kernel library.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "common/float_compute.h"
#include "ge/data_type.h"
#include "ge/reference_kernels/half_float.h"

namespace ge::reference_kernels::math {

using reference_kernels::BFloat16;
using reference_kernels::bfloat16_from_double;
using reference_kernels::bfloat16_from_float;
using reference_kernels::bfloat16_to_float;
using reference_kernels::bfloat16_truncate;
using reference_kernels::Float16;
using reference_kernels::float16_from_double;
using reference_kernels::float16_from_float;
using reference_kernels::float16_to_float;

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

}  // namespace ge::reference_kernels::math
