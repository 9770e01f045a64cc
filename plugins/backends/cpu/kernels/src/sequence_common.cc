#include "sequence_common.h"

#include <bit>
#include <cmath>

namespace ge::cpu_kernels::sequence {

float float16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  uint32_t result;
  if (exponent == 0x1F) {
    result = sign | 0x7F800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign;  // signed zero
  } else {
    // Subnormal: normalise the mantissa.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3FFu;
    result = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(result);
}

uint16_t float_to_float16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (magnitude < 0x33000001u) return sign;                                    // rounds to zero
  const int exponent = static_cast<int>(magnitude >> 23);
  uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
  int shift;
  uint32_t half_exponent;
  if (exponent < 113) {  // subnormal half
    shift = 126 - exponent;
    half_exponent = 0;
  } else {
    shift = 13;
    half_exponent = static_cast<uint32_t>(exponent - 112);
    mantissa &= 0x7FFFFFu;
  }
  uint32_t result = mantissa >> shift;
  const uint32_t remainder = mantissa & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
  // A carry out of the mantissa bumps the exponent, which is the correct rounding.
  return static_cast<uint16_t>(sign | ((half_exponent << 10) + result));
}

float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint16_t float_to_bfloat16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace ge::cpu_kernels::sequence
