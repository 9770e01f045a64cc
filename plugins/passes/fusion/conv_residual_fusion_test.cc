#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::inferred;
using testing::run;

// The golden cases (float32) are in tests/passes/conv_residual_fusion.ge.

// Conv -> Add(residual) -> Relu, and Conv without a bias -> Add: the second gets a zero
// bias of the model's dtype.
const char* const kResiduals = R"(graph main (opset ""=17) {
  input %x : float32[1,2,2,2]
  input %z : float32[1,2,2,2]
  init %w : float32[2,2,1,1] = [1, 2, 3, 4]
  init %b : float32[2] = [0.5, -0.5]
  %c1 = Conv(%x, %w, %b) "conv1"
  %s1 = Add(%c1, %z) "add1"
  %y1 = Relu(%s1) "relu1"
  %c2 = Conv(%x, %w) "conv2"
  %y2 = Add(%z, %c2) "add2"
  output %y1
  output %y2
})";

const char* const kResidualsFused = R"(graph main (opset ""=17, "ge"=1) {
  input %x : float32[1,2,2,2]
  input %z : float32[1,2,2,2]
  init %w : float32[2,2,1,1] = [1, 2, 3, 4]
  init %b : float32[2] = [0.5, -0.5]
  init %conv2_bias : float32[2] = [0, 0]
  %y2 = ge::FusedConv(%x, %w, %conv2_bias, %z) "conv2"
  %y1 = ge::FusedConv(%x, %w, %b, %z) {activation: string = "Relu"} "conv1"
  output %y1
  output %y2
})";

// float16/bfloat16: the fused op within a few roundings of the chain (checked_in), the
// zero bias in the model's dtype.
class ConvResidualFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvResidualFusionInHalf, TheAddAndActivationJoinTheConv) {
  const std::string dtype = GetParam();
  EXPECT_EQ(run(testing::as_dtype(kResiduals, dtype), {"fuse_conv_residual"},
                testing::checked_in(dtype, 3, {{"x", {1, 2, 2, 2}}, {"z", {1, 2, 2, 2}}})),
            inferred(testing::as_dtype(kResidualsFused, dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ConvResidualFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes),
                         testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
