#include "ge/minifloat.h"

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

}  // namespace
}  // namespace ge
