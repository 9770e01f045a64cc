// Tests of the nn family's float16/bfloat16 conversions against bit patterns worked out
// by hand from IEEE 754 (and numpy's float16 for the subnormal cases).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nn/nn_element.h"

namespace ge::reference_kernels::nn {
namespace {

TEST(NnElement, HalfFromFloatRoundsToNearestEven) {
  EXPECT_EQ(float16_from_float(1.0f), 0x3c00);
  EXPECT_EQ(float16_from_float(-2.0f), 0xc000);
  EXPECT_EQ(float16_from_float(0.1f), 0x2e66);
  EXPECT_EQ(float16_from_float(1.0f + 0x1p-11f), 0x3c00);      // tie: to even
  EXPECT_EQ(float16_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie: to even (up)
  EXPECT_EQ(float16_from_float(65504.0f), 0x7bff);             // largest finite
  EXPECT_EQ(float16_from_float(65520.0f), 0x7c00);             // rounds to inf
  EXPECT_EQ(float16_from_float(6e-8f), 0x0001);                // smallest subnormal
  EXPECT_EQ(float16_from_float(1e-8f), 0x0000);
  EXPECT_EQ(float16_from_float(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float16_from_float(std::nanf("")) & 0x7c00, 0x7c00);
  EXPECT_NE(float16_from_float(std::nanf("")) & 0x03ff, 0);
}

TEST(NnElement, HalfToFloat) {
  EXPECT_EQ(float16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(float16_to_float(0xc000), -2.0f);
  EXPECT_EQ(float16_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(float16_to_float(0x0001), 0x1p-24f);
  EXPECT_TRUE(std::isinf(float16_to_float(0xfc00)));
  EXPECT_TRUE(std::isnan(float16_to_float(0x7e00)));
}

TEST(NnElement, BFloat16) {
  EXPECT_EQ(bfloat16_from_float(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_from_float(1.0f + 0x1p-8f), 0x3f80);      // tie: to even
  EXPECT_EQ(bfloat16_from_float(1.0f + 3 * 0x1p-8f), 0x3f82);  // tie: to even (up)
  EXPECT_EQ(bfloat16_to_float(0xc040), -3.0f);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(bfloat16_from_float(std::nanf("")))));
}

TEST(NnElement, IntegerStoreRoundsHalfToEvenAndSaturates) {
  EXPECT_EQ(store<uint8_t>(2.5), 2);
  EXPECT_EQ(store<uint8_t>(3.5), 4);
  EXPECT_EQ(store<uint8_t>(-7.0), 0);
  EXPECT_EQ(store<int8_t>(300.0), 127);
  EXPECT_EQ(store<int32_t>(std::nan("")), 0);
}

}  // namespace
}  // namespace ge::reference_kernels::nn
