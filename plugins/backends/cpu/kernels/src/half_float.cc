#include "half_float.h"

#include <cmath>

namespace ge::cpu_kernels {
namespace {

// double -> float rounding to odd: truncate toward zero and set the last bit when
// inexact. A second rounding of the result to a format at least two bits narrower is
// then the same as rounding the double once (no double-rounding error).
float round_to_odd_float(double value) {
  float result = static_cast<float>(value);
  if (std::isfinite(result) && static_cast<double>(result) != value) {
    if (std::fabs(static_cast<double>(result)) > std::fabs(value)) result = std::nextafter(result, 0.0f);
    result = std::bit_cast<float>(std::bit_cast<uint32_t>(result) | 1u);
  }
  return result;
}

}  // namespace

uint16_t float16_from_float(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // inf or NaN; a NaN stays a (quiet) NaN
    return magnitude == 0x7f800000u ? static_cast<uint16_t>(sign | 0x7c00u)
                                    : static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  // 65520 is halfway between the largest binary16 (65504) and 2^16; the tie goes to the
  // even neighbour, which is infinity.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {  // below 2^-14: a binary16 subnormal (or zero)
    if (magnitude <= 0x33000000u) return sign;  // at most 2^-25: rounds to zero
    const uint32_t exponent = magnitude >> 23;
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    // value = mantissa * 2^(exponent - 150); in units of 2^-24 that is mantissa >> shift.
    const uint32_t shift = 126 - exponent;
    uint32_t result = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (remainder > half || (remainder == half && (result & 1u) != 0)) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  // Normal: round the 13 dropped mantissa bits to nearest even, then rebias 127 -> 15.
  const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
}

uint16_t float16_from_double(double value) { return float16_from_float(round_to_odd_float(value)); }

uint16_t bfloat16_from_float(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

uint16_t bfloat16_from_double(double value) { return bfloat16_from_float(round_to_odd_float(value)); }

uint16_t bfloat16_truncate(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace ge::cpu_kernels
