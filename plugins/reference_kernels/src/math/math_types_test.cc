// float16/bfloat16 conversions and the element conversion of the math family. Expected
// bit patterns are worked out by hand from the formats (binary16: 1 sign, 5 exponent
// bits biased by 15, 10 mantissa bits; bfloat16: the upper half of a float32).

#include "math/math_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ge::reference_kernels::math {
namespace {

TEST(MathTypes, Float16FromFloatRoundsToNearestEven) {
  EXPECT_EQ(float16_from_float(1.0f), 0x3c00);
  EXPECT_EQ(float16_from_float(-2.0f), 0xc000);
  EXPECT_EQ(float16_from_float(65504.0f), 0x7bff);           // largest finite
  EXPECT_EQ(float16_from_float(65519.0f), 0x7bff);           // below the halfway point
  EXPECT_EQ(float16_from_float(65520.0f), 0x7c00);           // halfway: ties to even = inf
  EXPECT_EQ(float16_from_float(1.0f + 0x1p-11f), 0x3c00);    // tie, 0x3c00 is even
  EXPECT_EQ(float16_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, rounds up to even
  EXPECT_EQ(float16_from_float(0x1p-24f), 0x0001);           // smallest subnormal
  EXPECT_EQ(float16_from_float(0x1p-25f), 0x0000);           // tie with zero goes to zero
  EXPECT_EQ(float16_from_float(0x1.8p-25f), 0x0001);
  EXPECT_EQ(float16_from_float(0x1p-14f), 0x0400);           // smallest normal
  EXPECT_EQ(float16_from_float(-0.0f), 0x8000);
  EXPECT_EQ(float16_from_float(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float16_from_float(1e10f), 0x7c00);
  EXPECT_EQ(float16_from_float(std::nanf("")) & 0x7e00, 0x7e00);
}

TEST(MathTypes, Float16ToFloat) {
  EXPECT_EQ(float16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(float16_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(float16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(float16_to_float(0x8400), -0x1p-14f);
  EXPECT_TRUE(std::isinf(float16_to_float(0xfc00)));
  EXPECT_TRUE(std::isnan(float16_to_float(0x7e00)));
}

TEST(MathTypes, Float16FromDoubleRoundsOnce) {
  // 1 + 2^-11 + 2^-40 rounds to float as exactly 1 + 2^-11, a binary16 tie that would
  // go down to 1.0; rounded once it is above the tie and goes up to 0x3c01.
  EXPECT_EQ(float16_from_double(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
  EXPECT_EQ(float16_from_double(1.0 + 0x1p-11), 0x3c00);
  EXPECT_EQ(float16_from_double(0.1), 0x2e66);  // numpy: np.float16(0.1).view(np.uint16)
}

TEST(MathTypes, BFloat16Rounding) {
  EXPECT_EQ(bfloat16_from_float(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_from_float(1.0f + 0x1p-8f), 0x3f80);      // tie, even
  EXPECT_EQ(bfloat16_from_float(1.0f + 3 * 0x1p-8f), 0x3f82);  // tie, up to even
  EXPECT_EQ(bfloat16_from_float(1.0f + 0x1.8p-8f), 0x3f81);    // above the tie
  EXPECT_EQ(bfloat16_truncate(1.0f + 0x1.8p-8f), 0x3f80);
  EXPECT_EQ(bfloat16_from_double(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);
  EXPECT_EQ(bfloat16_to_float(0xc040), -3.0f);
}

TEST(MathTypes, ConvertFollowsAstype) {
  EXPECT_EQ((convert<int32_t>(-1.9f)), -1);
  EXPECT_EQ((convert<int32_t>(1e20)), std::numeric_limits<int32_t>::max());
  EXPECT_EQ((convert<int64_t>(-1e30f)), std::numeric_limits<int64_t>::lowest());
  EXPECT_EQ((convert<int32_t>(std::nan(""))), 0);
  EXPECT_EQ((convert<uint8_t>(int32_t{300})), 44);
  EXPECT_EQ((convert<bool>(0.5f)), true);
  EXPECT_EQ((convert<bool>(int8_t{0})), false);
  EXPECT_EQ((convert<float>(Float16{0x3e00})), 1.5f);
  EXPECT_EQ((convert<Float16>(int64_t{3})).bits, 0x4200);
  EXPECT_EQ((convert<int32_t>(BFloat16{0xc040})), -3);
}

}  // namespace
}  // namespace ge::reference_kernels::math
