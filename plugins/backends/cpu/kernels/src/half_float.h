#pragma once
// The 16-bit floating-point element types every kernel family shares: float16 and
// bfloat16 as bit-pattern structs, computed in float, with their conversions (round to
// nearest even; NaN stays NaN; float16 overflow gives infinity). Internal to the kernel
// library.

#include <bit>
#include <cstdint>

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

inline float float16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24 is exact in float.
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return sign != 0 ? -magnitude : magnitude;
}

/// float -> binary16, rounding to nearest even; overflow gives inf, NaN stays NaN.
uint16_t float16_from_float(float value);
/// double -> binary16 with a single rounding (no double rounding through float).
uint16_t float16_from_double(double value);

inline float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
/// float -> bfloat16, rounding to nearest even; NaN stays NaN.
uint16_t bfloat16_from_float(float value);
/// double -> bfloat16 with a single rounding.
uint16_t bfloat16_from_double(double value);
/// float -> bfloat16 keeping the upper 16 bits (what ONNX's Cast reference does up to
/// opset 17); NaN stays NaN.
uint16_t bfloat16_truncate(float value);

}  // namespace ge::cpu_kernels
