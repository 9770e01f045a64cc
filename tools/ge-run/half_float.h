#pragma once
/// Bit conversions for the 16-bit float types ge-run generates and compares (IEEE
/// binary16 and bfloat16), stored as raw uint16_t in tensors.

#include <bit>
#include <cmath>
#include <cstdint>

namespace ge::tools {

/// binary16 bits → float (exact: every half is a float).
inline float half_bits_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// bfloat16 bits → float (exact: bfloat16 is the top half of a float).
inline float bfloat16_bits_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

/// float → binary16 bits for a value that is exactly representable as a normal half or
/// zero (what the random input generator produces); the low mantissa bits are dropped.
inline uint16_t exact_float_to_half_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if ((bits & 0x7FFFFFFFu) == 0) return sign;
  const int exponent = static_cast<int>((bits >> 23) & 0xFFu) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3FFu));
}

}  // namespace ge::tools
