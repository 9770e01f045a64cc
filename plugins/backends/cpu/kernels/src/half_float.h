#pragma once
// The 16-bit floating-point element types every kernel family shares: float16 and
// bfloat16 as bit-pattern structs, computed in float. Their conversions are core's
// (ge/minifloat.h, inline), named here for the kernels. Internal to the kernel library.

#include <cstdint>

#include "ge/minifloat.h"

namespace ge::cpu_kernels {

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

}  // namespace ge::cpu_kernels
