#pragma once
// GE's one home for the reduced-precision floating point formats, each held in tensors as
// its bit pattern:
// - float16 (IEEE binary16) and bfloat16 (the upper half of a float32), 16 bits each.
//   Conversions to float are exact; from float or double they round to nearest even (a
//   double is rounded once, never twice through float); NaN stays NaN (quiet, sign and
//   high payload bits kept) and a float16 overflow gives infinity. The one-element ones
//   are inline (the cpu kernels call them in their inner loops); whole spans of float16
//   convert vectorised.
// - The 8- and 4-bit formats of ONNX (opsets 19 and 23): float8 E4M3FN, E4M3FNUZ, E5M2,
//   E5M2FNUZ and float4 E2M1. Each element is held in one byte (float4 in the low four
//   bits). Conversions follow ONNX's Cast: round to nearest even; with `saturate` (the
//   default) a value beyond the largest finite one, infinities included, becomes that
//   value with its sign; without it, it becomes infinity where the format has one (E5M2)
//   and NaN otherwise. NaN stays NaN (float4 has none: NaN becomes +6, as ONNX's
//   reference does). The "UZ" formats have no negative zero: -0 becomes 0.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "ge/data_type.h"

namespace ge {

/// float16 bits -> float (exact: every binary16 value is a float). Branch-free, so that
/// loops over it vectorise.
inline float float16_to_float(uint16_t bits) {
  const uint32_t magnitude = static_cast<uint32_t>(bits & 0x7fffu) << 13;
  const uint32_t exponent = magnitude & 0x0f800000u;
  // Rebias 15 -> 127; infinity and NaN (payload kept, not quieted) to float's top exponent.
  const uint32_t normal = magnitude + (exponent == 0x0f800000u ? 0x70000000u : 0x38000000u);
  // Zero or subnormal: (2^-14 + mantissa * 2^-24) - 2^-14, exact in float and never a
  // float denormal (so flush-to-zero modes do not matter).
  const float subnormal = std::bit_cast<float>(magnitude + 0x38800000u) - 0x1p-14f;
  const uint32_t result = exponent == 0 ? std::bit_cast<uint32_t>(subnormal) : normal;
  return std::bit_cast<float>(result | (static_cast<uint32_t>(bits & 0x8000u) << 16));
}

/// float -> float16 bits, rounding to nearest even; overflow gives infinity, NaN stays NaN
/// (quiet, sign and high payload bits kept). Integer arithmetic only (independent of the
/// floating-point rounding mode) and branch-free, so that loops over it vectorise.
inline uint16_t float16_from_float(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7fffffffu;
  // Normal: round the 13 dropped mantissa bits to nearest even, then rebias 127 -> 15.
  const uint32_t normal = (magnitude + 0xfffu + ((magnitude >> 13) & 1u) - (112u << 23)) >> 13;
  // Below 2^-14, a binary16 subnormal: value = mantissa * 2^(exponent - 150), in units of
  // 2^-24 that is mantissa >> (126 - exponent), rounded to nearest even. At most 2^-25
  // (exponent below 102, float denormals included) rounds to zero: shift 25 does that.
  const uint32_t exponent = std::clamp(magnitude >> 23, 101u, 112u);
  const uint32_t shift = 126u - exponent;
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t subnormal = (mantissa + ((1u << (shift - 1)) - 1u) + ((mantissa >> shift) & 1u)) >> shift;
  uint32_t result = magnitude < 0x38800000u ? subnormal : normal;
  // 65520 is halfway between the largest binary16 (65504) and 2^16; the tie goes to the
  // even neighbour, which is infinity.
  result = magnitude >= 0x477ff000u ? 0x7c00u : result;
  result = magnitude > 0x7f800000u ? 0x7e00u | ((magnitude >> 13) & 0x3ffu) : result;  // NaN
  return static_cast<uint16_t>(sign | result);
}

/// float16 bits -> floats, element by element as float16_to_float; `out` holds at least
/// in.size() elements. Vectorised (F16C or AVX-512 where the CPU has them).
void float16_to_float(std::span<const uint16_t> in, std::span<float> out);

/// floats -> float16 bits, element by element as float16_from_float; `out` holds at least
/// in.size() elements. Vectorised (F16C or AVX-512 where the CPU has them).
void float16_from_float(std::span<const float> in, std::span<uint16_t> out);

/// Whether this CPU converts float16 in hardware (x86 F16C with AVX2), as the span
/// conversions then do; also what code compiled for this CPU may use.
bool cpu_converts_float16();

/// bfloat16 bits -> float (exact: bfloat16 is the upper half of a float).
inline float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

/// float -> bfloat16 bits, rounding to nearest even; NaN stays NaN.
inline uint16_t bfloat16_from_float(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// float -> bfloat16 bits keeping the upper 16 bits (what ONNX's Cast reference does up
/// to opset 17); NaN stays NaN.
inline uint16_t bfloat16_truncate(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>(bits >> 16);
}

/// double -> float rounding to odd: truncate toward zero and set the last bit when
/// inexact. Rounding that float again to a format at least two bits narrower is then the
/// same as rounding the double once (no double-rounding error).
inline float round_to_odd_float(double value) {
  float result = static_cast<float>(value);
  if (std::isfinite(result) && static_cast<double>(result) != value) {
    if (std::fabs(static_cast<double>(result)) > std::fabs(value)) result = std::nextafter(result, 0.0f);
    result = std::bit_cast<float>(std::bit_cast<uint32_t>(result) | 1u);
  }
  return result;
}

/// double -> float16 bits with a single rounding to nearest even.
inline uint16_t float16_from_double(double value) { return float16_from_float(round_to_odd_float(value)); }

/// double -> bfloat16 bits with a single rounding to nearest even.
inline uint16_t bfloat16_from_double(double value) { return bfloat16_from_float(round_to_odd_float(value)); }

/// Layout of one minifloat format.
struct MinifloatFormat {
  int mantissa_bits = 0;
  int bias = 0;
  double max_finite = 0;   ///< largest finite magnitude
  bool has_infinity = false;
  bool unsigned_zero = false;  ///< "UZ": 0x80 is the one NaN, there is no -0
  bool has_nan = true;
  uint8_t nan_code = 0x7F;     ///< the NaN written (sign bit added for the FN formats)
  uint8_t magnitude_mask = 0x7F;
  uint8_t sign_bit = 0x80;
};

/// The format of a float8/float4 dtype; nullopt for any other dtype.
inline std::optional<MinifloatFormat> minifloat_format(DataType type) {
  switch (type) {
    case DataType::kFloat8E4M3FN: return MinifloatFormat{3, 7, 448.0, false, false, true, 0x7F, 0x7F, 0x80};
    case DataType::kFloat8E4M3FNUZ: return MinifloatFormat{3, 8, 240.0, false, true, true, 0x80, 0x7F, 0x80};
    case DataType::kFloat8E5M2: return MinifloatFormat{2, 15, 57344.0, true, false, true, 0x7F, 0x7F, 0x80};
    case DataType::kFloat8E5M2FNUZ: return MinifloatFormat{2, 16, 57344.0, false, true, true, 0x80, 0x7F, 0x80};
    case DataType::kFloat4E2M1: return MinifloatFormat{1, 1, 6.0, false, false, false, 0x07, 0x07, 0x08};
    default: return std::nullopt;
  }
}

/// Decodes one element.
inline float minifloat_to_float(uint8_t code, const MinifloatFormat& f) {
  const int exponent_bits_shift = f.mantissa_bits;
  if (f.unsigned_zero && code == 0x80) return std::numeric_limits<float>::quiet_NaN();
  const bool negative = (code & f.sign_bit) != 0;
  const unsigned magnitude = code & f.magnitude_mask;
  const unsigned mantissa = magnitude & ((1u << f.mantissa_bits) - 1);
  const int exponent = static_cast<int>(magnitude >> exponent_bits_shift);
  const int max_exponent_field = static_cast<int>(f.magnitude_mask >> exponent_bits_shift);
  double value;
  if (f.has_infinity && exponent == max_exponent_field) {
    value = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (!f.has_infinity && !f.unsigned_zero && f.has_nan && magnitude == f.magnitude_mask) {
    value = std::numeric_limits<double>::quiet_NaN();  // E4M3FN: S.1111.111
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    value = std::ldexp(static_cast<double>((1u << f.mantissa_bits) | mantissa), exponent - f.bias - f.mantissa_bits);
  }
  return static_cast<float>(negative ? -value : value);
}

/// Encodes one value, rounding to nearest even (see the file comment for the rest).
inline uint8_t float_to_minifloat(double x, const MinifloatFormat& f, bool saturate = true) {
  if (std::isnan(x)) return f.has_nan ? f.nan_code : f.magnitude_mask;
  const bool negative = std::signbit(x);
  const uint8_t sign = negative ? f.sign_bit : 0;
  const uint8_t zero = f.unsigned_zero ? 0 : sign;  // "UZ" formats have no -0
  const double magnitude = std::fabs(x);
  auto overflow = [&]() -> uint8_t {
    if (saturate || !f.has_nan) {
      // The largest finite code: all ones below the sign, less the NaN/infinity codes.
      uint8_t max_code = f.magnitude_mask;
      if (f.has_infinity) max_code = static_cast<uint8_t>(f.magnitude_mask - (1u << f.mantissa_bits));
      else if (!f.unsigned_zero && f.has_nan) max_code = static_cast<uint8_t>(f.magnitude_mask - 1);
      return static_cast<uint8_t>(sign | max_code);
    }
    if (f.has_infinity) return static_cast<uint8_t>(sign | (f.magnitude_mask - ((1u << f.mantissa_bits) - 1)));
    return f.unsigned_zero ? f.nan_code : static_cast<uint8_t>(sign | f.nan_code);
  };
  if (std::isinf(magnitude)) return overflow();
  if (magnitude == 0) return zero;
  const int min_exponent = 1 - f.bias;  // of the smallest normal
  int exponent = std::ilogb(magnitude);
  if (exponent < min_exponent) exponent = min_exponent;
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double steps = std::nearbyint(magnitude / quantum);  // ties to even (default rounding)
  const double rounded = steps * quantum;
  if (rounded > f.max_finite) return overflow();
  if (rounded == 0) return zero;
  int rounded_exponent = std::ilogb(rounded);
  unsigned code;
  if (rounded_exponent < min_exponent) {
    code = static_cast<unsigned>(std::ldexp(rounded, f.mantissa_bits - min_exponent));  // subnormal
  } else {
    const unsigned mantissa =
        static_cast<unsigned>(std::ldexp(rounded, f.mantissa_bits - rounded_exponent)) - (1u << f.mantissa_bits);
    code = (static_cast<unsigned>(rounded_exponent + f.bias) << f.mantissa_bits) | mantissa;
  }
  return static_cast<uint8_t>(sign | code);
}

/// True for the float8 and float4 dtypes.
inline bool is_minifloat(DataType type) { return minifloat_format(type).has_value(); }

/// int4/uint4 range, for clipping: [-8, 7] and [0, 15].
inline double int4_clip(double x, bool is_signed) {
  const double low = is_signed ? -8.0 : 0.0, high = is_signed ? 7.0 : 15.0;
  return x < low ? low : (x > high ? high : x);
}

}  // namespace ge
