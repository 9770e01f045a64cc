#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::inferred;
using testing::run;

// The golden cases (float32, each opset) are in tests/passes/conv_bn_fusion.ge.

// W = [2, 3], B = [1, -1]; BN scale [1, 2], bias [0, 1], mean [1, 0], var [4, 0.25],
// epsilon 0: s = scale / sqrt(var) = [0.5, 4]; W' = W * s = [1, 12];
// B' = (B - mean) * s + bias = [0, -3].
const char* const kConvBn = R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %b : float32[2] = [1, -1]
  init %scale : float32[2] = [1, 2]
  init %bias : float32[2] = [0, 1]
  init %mean : float32[2] = [1, 0]
  init %var : float32[2] = [4, 0.25]
  %c = Conv(%x, %w, %b) {kernel_shape: ints = [1, 1]} "conv"
  %y = BatchNormalization(%c, %scale, %bias, %mean, %var) {epsilon: float = 0} "bn"
  output %y
})";

const char* const kConvBnFolded = R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %b : float32[2] = [1, -1]
  init %scale : float32[2] = [1, 2]
  init %bias : float32[2] = [0, 1]
  init %mean : float32[2] = [1, 0]
  init %var : float32[2] = [4, 0.25]
  init %conv_w_bn : float32[2,1,1,1] = [1, 12]
  init %conv_b_bn : float32[2] = [0, -3]
  %y = Conv(%x, %conv_w_bn, %conv_b_bn) {kernel_shape: ints = [1, 1]} "conv"
  output %y
})";

// In a float16/bfloat16 model the folded weights and bias are of the model's dtype,
// each rounded once: with var [9, 0.25], s = [1/3, 4] and W' = [2/3, 12], 2/3 being
// 0.66650390625 in float16 and 0.66796875 in bfloat16 (which 0.66650390625 rounds to).
class ConvBatchNormFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvBatchNormFusionInHalf, FoldedConstantsStayInTheModelDtype) {
  const std::string dtype = GetParam();
  std::string ir = kConvBn, folded = kConvBnFolded;
  ir.replace(ir.find("[4, 0.25]"), 9, "[9, 0.25]");
  folded.replace(folded.find("[4, 0.25]"), 9, "[9, 0.25]");
  folded.replace(folded.find("[1, 12]"), 7, "[0.66650390625, 12]");
  EXPECT_EQ(run(testing::as_dtype(ir, dtype), {"fuse_conv_bn"}, testing::checked_in(dtype, 2, {{"x", {1, 1, 2, 2}}})),
            inferred(testing::as_dtype(folded, dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ConvBatchNormFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes),
                         testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
