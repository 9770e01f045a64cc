#include "option_values.h"

#include <gtest/gtest.h>

namespace ge::tools {
namespace {

TEST(OptionValues, IntegersWithinTheirRange) {
  EXPECT_EQ(*parse_int_value("--streams", "64", 1, 64), 64);
  EXPECT_EQ(parse_int_value("--streams", "65", 1, 64).status().message(),
            "--streams expects an integer in [1, 64], got '65'");
  EXPECT_FALSE(parse_int_value("-O", "", 0, 3).is_ok());
  EXPECT_FALSE(parse_int_value("-O", "2x", 0, 3).is_ok());
  EXPECT_FALSE(parse_int_value("--threads", "99999999999", 1, 1024).is_ok());
}

TEST(OptionValues, NonNegativeFiniteNumbers) {
  EXPECT_DOUBLE_EQ(*parse_non_negative("--rtol", "1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(*parse_non_negative("--rtol", "0"), 0.0);
  for (const char* bad : {"-1", "inf", "nan", "", "1e-3x"}) {
    EXPECT_EQ(parse_non_negative("--rtol", bad).status().message(),
              std::string("--rtol expects a finite number >= 0, got '") + bad + "'");
  }
}

TEST(OptionValues, PassListsAndPrecisions) {
  EXPECT_EQ(*parse_pass_list("--passes", "cse,dce"), (std::vector<std::string>{"cse", "dce"}));
  EXPECT_TRUE(parse_pass_list("--passes", "")->empty());
  EXPECT_EQ(parse_pass_list("--passes", "cse,,dce").status().message(),
            "--passes 'cse,,dce': empty pass name in the list");
  EXPECT_EQ(*parse_precision_value("--precision", "bf16"), Precision::kBf16);
  EXPECT_EQ(parse_precision_value("--precision", "fp16").status().message(),
            "--precision expects fp32, bf16 or mixed, got 'fp16'");
}

}  // namespace
}  // namespace ge::tools
