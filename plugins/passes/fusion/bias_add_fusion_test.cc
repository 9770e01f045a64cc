#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::inferred;
using testing::run;

// The golden cases (float32, each opset) are in tests/passes/bias_add_fusion.ge.

const char* const kConvAdds = R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %b : float32[2] = [1, 2]
  init %c : float32[1,2,1,1] = [0.5, -0.5]
  %c1 = Conv(%x, %w, %b) "conv1"
  %y1 = Add(%c1, %c) "add1"
  %c2 = Conv(%x, %w) "conv2"
  %y2 = Add(%c, %c2) "add2"
  output %y1
  output %y2
})";

// New bias = B + C = [1 + 0.5, 2 - 0.5] for the first Conv; C alone for the second.
const char* const kConvAddsFused = R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %b : float32[2] = [1, 2]
  init %c : float32[1,2,1,1] = [0.5, -0.5]
  init %conv2_bias : float32[2] = [0.5, -0.5]
  init %conv1_bias : float32[2] = [1.5, 1.5]
  %y2 = Conv(%x, %w, %conv2_bias) "conv2"
  %y1 = Conv(%x, %w, %conv1_bias) "conv1"
  output %y1
  output %y2
})";

// In a float16/bfloat16 model the folded bias is of the model's dtype (the rounding of
// 1 + 1/3 is in tests/passes/bias_add_fusion.ge); the fused Conv within a few roundings
// of the chain (checked_in).
class BiasAddFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(BiasAddFusionInHalf, TheBiasStaysInTheModelDtype) {
  const std::string dtype = GetParam();
  EXPECT_EQ(
      run(testing::as_dtype(kConvAdds, dtype), {"fuse_bias_add"}, testing::checked_in(dtype, 2, {{"x", {1, 1, 2, 2}}})),
      inferred(testing::as_dtype(kConvAddsFused, dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BiasAddFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
