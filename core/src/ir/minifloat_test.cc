// Tests of float16 and bfloat16 conversions (ge/minifloat.h).
#include "ge/minifloat.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "ge/data_type.h"

namespace ge {
namespace {

constexpr DataType kFloat8Types[] = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                                     DataType::kFloat8E5M2FNUZ};

MinifloatFormat format_of(DataType type) { return *minifloat_format(type); }

TEST(Minifloat, EveryFiniteCodeRoundTrips) {
  for (DataType type : {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                        DataType::kFloat8E5M2FNUZ, DataType::kFloat4E2M1}) {
    const MinifloatFormat f = format_of(type);
    const int codes = f.sign_bit == 0x08 ? 16 : 256;
    for (int code = 0; code < codes; ++code) {
      const float value = minifloat_to_float(static_cast<uint8_t>(code), f);
      if (std::isnan(value)) {
        EXPECT_TRUE(std::isnan(minifloat_to_float(float_to_minifloat(value, f), f))) << data_type_name(type);
        continue;
      }
      if (std::isinf(value)) continue;
      EXPECT_EQ(float_to_minifloat(value, f), code) << data_type_name(type) << " code " << code << " = " << value;
    }
  }
}

TEST(Minifloat, KnownValues) {
  const MinifloatFormat e4m3 = format_of(DataType::kFloat8E4M3FN);
  EXPECT_EQ(minifloat_to_float(0x7E, e4m3), 448.0f);
  EXPECT_EQ(minifloat_to_float(0x38, e4m3), 1.0f);
  EXPECT_EQ(minifloat_to_float(0x01, e4m3), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_TRUE(std::isnan(minifloat_to_float(0xFF, e4m3)));
  const MinifloatFormat e5m2 = format_of(DataType::kFloat8E5M2);
  EXPECT_EQ(minifloat_to_float(0x7B, e5m2), 57344.0f);
  EXPECT_EQ(minifloat_to_float(0xFC, e5m2), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(minifloat_to_float(0x3C, e5m2), 1.0f);
  const MinifloatFormat e4m3uz = format_of(DataType::kFloat8E4M3FNUZ);
  EXPECT_EQ(minifloat_to_float(0x7F, e4m3uz), 240.0f);
  EXPECT_TRUE(std::isnan(minifloat_to_float(0x80, e4m3uz)));
  EXPECT_EQ(minifloat_to_float(0x40, e4m3uz), 1.0f);
  const MinifloatFormat e2m1 = format_of(DataType::kFloat4E2M1);
  const float table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(minifloat_to_float(static_cast<uint8_t>(code), e2m1), table[code]);
    EXPECT_EQ(minifloat_to_float(static_cast<uint8_t>(code | 8), e2m1), -table[code]);
  }
}

TEST(Minifloat, RoundsToNearestEven) {
  const MinifloatFormat e4m3 = format_of(DataType::kFloat8E4M3FN);
  // Between 1.0 (0x38) and 1.125 (0x39): the tie goes to the even mantissa.
  EXPECT_EQ(float_to_minifloat(1.0625, e4m3), 0x38);
  EXPECT_EQ(float_to_minifloat(1.1875, e4m3), 0x3A);  // tie between 1.125 and 1.25 -> 1.25
  EXPECT_EQ(float_to_minifloat(1.07, e4m3), 0x39);
  const MinifloatFormat e2m1 = format_of(DataType::kFloat4E2M1);
  // ONNX's reference table: (0.25, 0.75) -> 0.5, [0.75, 1.25] -> 1, [1.75, 2.5] -> 2, ...
  EXPECT_EQ(float_to_minifloat(0.25, e2m1), 0x0);
  EXPECT_EQ(float_to_minifloat(0.26, e2m1), 0x1);
  EXPECT_EQ(float_to_minifloat(0.75, e2m1), 0x2);
  EXPECT_EQ(float_to_minifloat(1.25, e2m1), 0x2);
  EXPECT_EQ(float_to_minifloat(2.5, e2m1), 0x4);
  EXPECT_EQ(float_to_minifloat(5.0, e2m1), 0x6);
  EXPECT_EQ(float_to_minifloat(5.01, e2m1), 0x7);
  EXPECT_EQ(float_to_minifloat(-100.0, e2m1), 0xF);
  EXPECT_EQ(float_to_minifloat(std::nan(""), e2m1), 0x7);
}

TEST(Minifloat, SaturationFollowsOnnxCast) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Row {
    DataType type;
    uint8_t saturated_inf, saturated_big, unsaturated_inf, unsaturated_big;
  };
  // +inf and 1e6 with saturate=1 (largest finite) and saturate=0 (inf where the format
  // has one, NaN otherwise).
  const Row rows[] = {{DataType::kFloat8E4M3FN, 0x7E, 0x7E, 0x7F, 0x7F},
                      {DataType::kFloat8E4M3FNUZ, 0x7F, 0x7F, 0x80, 0x80},
                      {DataType::kFloat8E5M2, 0x7B, 0x7B, 0x7C, 0x7C},
                      {DataType::kFloat8E5M2FNUZ, 0x7F, 0x7F, 0x80, 0x80}};
  for (const Row& row : rows) {
    const MinifloatFormat f = format_of(row.type);
    EXPECT_EQ(float_to_minifloat(inf, f, true), row.saturated_inf) << data_type_name(row.type);
    EXPECT_EQ(float_to_minifloat(1e6, f, true), row.saturated_big) << data_type_name(row.type);
    EXPECT_EQ(float_to_minifloat(inf, f, false), row.unsaturated_inf) << data_type_name(row.type);
    EXPECT_EQ(float_to_minifloat(1e6, f, false), row.unsaturated_big) << data_type_name(row.type);
    EXPECT_EQ(float_to_minifloat(-1e6, f, true), row.saturated_big | 0x80) << data_type_name(row.type);
  }
  // 460 rounds down to 448 (E4M3FN's largest); 470 rounds past it.
  const MinifloatFormat e4m3 = format_of(DataType::kFloat8E4M3FN);
  EXPECT_EQ(float_to_minifloat(460.0, e4m3, false), 0x7E);
  EXPECT_EQ(float_to_minifloat(470.0, e4m3, false), 0x7F);
}

TEST(Minifloat, UnsignedZeroFormatsDropTheSignOfZeroOnly) {
  for (DataType type : kFloat8Types) {
    const MinifloatFormat f = format_of(type);
    const uint8_t negative_zero = float_to_minifloat(-0.0, f);
    EXPECT_EQ(negative_zero, f.unsigned_zero ? 0x00 : 0x80) << data_type_name(type);
    EXPECT_EQ(float_to_minifloat(-1e-30, f), f.unsigned_zero ? 0x00 : 0x80) << data_type_name(type);
    EXPECT_EQ(minifloat_to_float(float_to_minifloat(-2.0, f), f), -2.0f) << data_type_name(type);
  }
}

TEST(Minifloat, OnlyMinifloatTypesHaveAFormat) {
  for (DataType type : kFloat8Types) EXPECT_TRUE(is_minifloat(type));
  EXPECT_TRUE(is_minifloat(DataType::kFloat4E2M1));
  EXPECT_FALSE(is_minifloat(DataType::kFloat16));
  EXPECT_FALSE(is_minifloat(DataType::kInt4));
  EXPECT_EQ(element_size(DataType::kInt4), 1u);
  EXPECT_EQ(data_type_from_name("float8e5m2fnuz"), DataType::kFloat8E5M2FNUZ);
}

// ---------------------------------------------------------------------------------------
// float16 and bfloat16

uint32_t float_bits(float value) { return std::bit_cast<uint32_t>(value); }

/// What binary16 `bits` means, from the IEEE definition (not from the code under test).
double float16_value(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

TEST(Float16, DecodesEveryBitPatternExactly) {
  for (uint32_t pattern = 0; pattern < 0x10000; ++pattern) {
    const auto bits = static_cast<uint16_t>(pattern);
    const float value = float16_to_float(bits);
    if (((bits >> 10) & 0x1f) == 0x1f) {  // inf or NaN: the payload moves to the top of float's
      const uint32_t expected = (static_cast<uint32_t>(bits & 0x8000) << 16) | 0x7f800000u | ((bits & 0x3ffu) << 13);
      EXPECT_EQ(float_bits(value), expected) << std::hex << pattern;
      continue;
    }
    EXPECT_EQ(static_cast<double>(value), float16_value(bits)) << std::hex << pattern;
    EXPECT_EQ(std::signbit(value), (bits & 0x8000) != 0) << std::hex << pattern;  // -0 stays -0
  }
}

TEST(Float16, EveryBitPatternRoundTrips) {
  for (uint32_t pattern = 0; pattern < 0x10000; ++pattern) {
    const auto bits = static_cast<uint16_t>(pattern);
    const bool nan = ((bits >> 10) & 0x1f) == 0x1f && (bits & 0x3ff) != 0;
    // A NaN comes back quiet, with its sign and payload.
    const uint16_t expected = nan ? static_cast<uint16_t>(bits | 0x0200) : bits;
    EXPECT_EQ(float16_from_float(float16_to_float(bits)), expected) << std::hex << pattern;
    EXPECT_EQ(float16_from_double(float16_to_float(bits)), expected) << std::hex << pattern;
  }
}

TEST(Float16, RoundsToNearestEvenBetweenEveryPairOfNeighbours) {
  // Every finite positive binary16 and the next one up (0x7bff's neighbour is infinity,
  // whose "midpoint" 65520 is checked below); the sign is symmetric.
  for (uint16_t low = 0; low < 0x7bff; ++low) {
    const auto high = static_cast<uint16_t>(low + 1);
    const float middle = static_cast<float>((float16_value(low) + float16_value(high)) / 2);  // exact
    const uint16_t even = (low & 1) == 0 ? low : high;
    for (float sign : {1.0f, -1.0f}) {
      const uint16_t sign_bit = sign < 0 ? 0x8000 : 0;
      EXPECT_EQ(float16_from_float(sign * middle), even | sign_bit) << std::hex << low;
      EXPECT_EQ(float16_from_float(sign * std::nextafter(middle, 0.0f)), low | sign_bit) << std::hex << low;
      EXPECT_EQ(float16_from_float(sign * std::nextafter(middle, 1e9f)), high | sign_bit) << std::hex << low;
      EXPECT_EQ(float16_from_double(sign * static_cast<double>(middle)), even | sign_bit) << std::hex << low;
    }
  }
}

TEST(Float16, KnownValuesFromNumpy) {
  // np.float16(x).view(np.uint16)
  EXPECT_EQ(float16_from_float(1.0f), 0x3c00);
  EXPECT_EQ(float16_from_float(-2.0f), 0xc000);
  EXPECT_EQ(float16_from_float(0.1f), 0x2e66);
  EXPECT_EQ(float16_from_float(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float16_to_float(0x3555), 0.333251953125f);          // nearest to 1/3
  EXPECT_EQ(float16_to_float(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(bfloat16_to_float(0xc040), -3.0f);
}

TEST(Float16, OverflowUnderflowAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float16_from_float(65504.0f), 0x7bff);
  EXPECT_EQ(float16_from_float(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(float16_from_float(65520.0f), 0x7c00);  // the tie goes to the even neighbour: infinity
  EXPECT_EQ(float16_from_float(-1e30f), 0xfc00);
  EXPECT_EQ(float16_from_float(inf), 0x7c00);
  EXPECT_EQ(float16_from_float(-inf), 0xfc00);
  EXPECT_EQ(float16_from_float(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: to even 0
  EXPECT_EQ(float16_from_float(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float16_from_float(-std::ldexp(1.0f, -30)), 0x8000);  // -0 keeps its sign
  EXPECT_EQ(float16_from_float(std::bit_cast<float>(0x7f800001u)), 0x7e00);  // signalling NaN becomes quiet
  EXPECT_EQ(float16_from_float(std::bit_cast<float>(0xffc00000u)), 0xfe00);
  EXPECT_EQ(float16_from_double(1e300), 0x7c00);
  EXPECT_EQ(float16_from_double(std::numeric_limits<double>::quiet_NaN()) & 0x7e00, 0x7e00);
}

TEST(Float16, DoubleIsRoundedOnce) {
  // 1 + 2^-11 + 2^-40 lies just above the tie between 1.0 (0x3c00) and 1 + 2^-10 (0x3c01).
  // Through float it would become the tie itself and round to even, 0x3c00.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(float16_from_float(static_cast<float>(above_tie)), 0x3c00);
  EXPECT_EQ(float16_from_double(above_tie), 0x3c01);
  EXPECT_EQ(float16_from_double(1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40)), 0x3c00);
  // In the subnormal range too: 2^-25 (+ a little) rounds up to the smallest subnormal.
  EXPECT_EQ(float16_from_double(std::ldexp(1.0, -25) + std::ldexp(1.0, -60)), 0x0001);
}

TEST(BFloat16, EveryBitPatternRoundTrips) {
  for (uint32_t pattern = 0; pattern < 0x10000; ++pattern) {
    const auto bits = static_cast<uint16_t>(pattern);
    const float value = bfloat16_to_float(bits);
    EXPECT_EQ(float_bits(value), pattern << 16);
    const uint16_t expected = std::isnan(value) ? static_cast<uint16_t>(bits | 0x40) : bits;
    EXPECT_EQ(bfloat16_from_float(value), expected) << std::hex << pattern;
    EXPECT_EQ(bfloat16_from_double(value), expected) << std::hex << pattern;
    EXPECT_EQ(bfloat16_truncate(value), expected) << std::hex << pattern;
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  const float step = std::ldexp(1.0f, -7);  // bfloat16's spacing at 1.0
  EXPECT_EQ(bfloat16_from_float(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_from_float(1.0f + step / 2), 0x3f80);  // tie: to even 0x3f80
  EXPECT_EQ(bfloat16_from_float(std::nextafter(1.0f + step / 2, 2.0f)), 0x3f81);
  EXPECT_EQ(bfloat16_from_float(1.0f + 1.5f * step), 0x3f82);  // tie: to even 0x3f82
  EXPECT_EQ(bfloat16_from_float(std::nextafter(1.0f + 1.5f * step, 0.0f)), 0x3f81);
  EXPECT_EQ(bfloat16_from_float(-1.0f - step / 2), 0xbf80);
  EXPECT_EQ(bfloat16_from_float(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to infinity
  EXPECT_EQ(bfloat16_from_float(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bfloat16_from_float(std::bit_cast<float>(0x7f800001u)), 0x7fc0);  // signalling NaN becomes quiet
  EXPECT_EQ(bfloat16_from_float(-std::numeric_limits<float>::infinity()), 0xff80);
  // Truncation keeps the upper half: what ONNX's Cast reference did up to opset 17.
  EXPECT_EQ(bfloat16_truncate(std::nextafter(1.0f + step, 0.0f)), 0x3f80);
  EXPECT_EQ(bfloat16_truncate(std::bit_cast<float>(0x7f800001u)), 0x7fc0);
  // A double just above a tie is rounded once, not through float.
  const double above_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(bfloat16_from_float(static_cast<float>(above_tie)), 0x3f80);
  EXPECT_EQ(bfloat16_from_double(above_tie), 0x3f81);
}

}  // namespace
}  // namespace ge
