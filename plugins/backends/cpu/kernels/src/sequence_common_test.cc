// float16 / bfloat16 conversion tests against bit patterns from numpy
// (np.float16(x).view(np.uint16)) and the IEEE layouts.

#include "sequence_common.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ge::cpu_kernels::sequence {
namespace {

TEST(SequenceCommon, Float16RoundTrip) {
  EXPECT_EQ(float16_from_float(1.0f), 0x3C00);
  EXPECT_EQ(float16_from_float(-2.0f), 0xC000);
  EXPECT_EQ(float16_from_float(0.1f), 0x2E66);
  EXPECT_EQ(float16_from_float(65504.0f), 0x7BFF);
  EXPECT_EQ(float16_from_float(65520.0f), 0x7C00);                      // rounds up to infinity
  EXPECT_EQ(float16_from_float(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(float16_from_float(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie to even
  EXPECT_EQ(float16_from_float(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_TRUE(std::isnan(float16_to_float(float16_from_float(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(float16_to_float(0x3555), 0.33325195f);
  EXPECT_EQ(float16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(float16_to_float(0xFC00), -std::numeric_limits<float>::infinity());
}

TEST(SequenceCommon, BFloat16RoundTrip) {
  EXPECT_EQ(bfloat16_from_float(1.0f), 0x3F80);
  EXPECT_EQ(bfloat16_from_float(1.0f + std::ldexp(1.0f, -8)), 0x3F80);  // tie to even
  EXPECT_EQ(bfloat16_from_float(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(bfloat16_to_float(0xC040), -3.0f);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(bfloat16_from_float(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace
}  // namespace ge::cpu_kernels::sequence
