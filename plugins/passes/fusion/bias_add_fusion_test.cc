#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

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

TEST(BiasAddFusion, PerChannelAddBecomesTheConvBias) {
  EXPECT_EQ(run(kConvAdds, {"fuse_bias_add"}), inferred(kConvAddsFused));
}

// In a float16/bfloat16 model the folded bias is of the model's dtype, rounded once: 1 +
// 1/3 is 1.3330078125 in float16 (0x3d55), 1.3359375 in bfloat16 (0x3fab).
class BiasAddFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(BiasAddFusionInHalf, TheBiasStaysInTheModelDtype) {
  const std::string dtype = GetParam();
  EXPECT_EQ(
      run(testing::as_dtype(kConvAdds, dtype), {"fuse_bias_add"}, testing::checked_in(dtype, 2, {{"x", {1, 1, 2, 2}}})),
      inferred(testing::as_dtype(kConvAddsFused, dtype)));
  const std::string thirds = R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  init %w : float32[1,1,1,1] = [2]
  init %b : float32[1] = [1]
  init %c : float32[1,1,1,1] = [0.33333333]
  %c1 = Conv(%x, %w, %b) "conv"
  %y = Add(%c1, %c) "add"
  output %y
})";
  const std::string folded = dtype == "float16" ? "0x3d55" : "0x3fab";
  EXPECT_EQ(run(testing::as_dtype(thirds, dtype), {"fuse_bias_add"}),
            inferred("graph main (opset \"\"=17) {\n  input %x : " + dtype + "[1,1,2,2]\n  init %w : " + dtype +
                     "[1,1,1,1] = [2]\n  init %b : " + dtype + "[1] = [1]\n  init %c : " + dtype +
                     "[1,1,1,1] = [0.33333333]\n  init %conv_bias : " + dtype + "[1] = [" + folded +
                     "]\n  %y = Conv(%x, %w, %conv_bias) \"conv\"\n  output %y\n}"));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BiasAddFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

TEST(BiasAddFusion, NotPerChannelOrSharedConvOutputsStay) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : float32[1,1,1,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %spatial : float32[1,1,1,2] = [1, 2]
  %c1 = Conv(%x, %w) "conv1"
  %y1 = Add(%c1, %spatial) "not_per_channel"
  %c2 = Conv(%x, %w) "conv2"
  init %c : float32[2,1,1] = [1, 2]
  %y2 = Add(%c2, %c) "shared"
  %y3 = Relu(%c2) "other_user"
  output %y1
  output %y2
  output %y3
})";
  EXPECT_EQ(run(ir, {"fuse_bias_add"}), inferred(ir));
}

TEST(BiasAddFusion, GemmTakesTheAdd) {
  // Gemm 'g2' has C = [1, 2] and beta 2: C' = 2 * [1, 2] + [10, 20] = [12, 24].
  EXPECT_EQ(run(R"(graph main (opset ""=17) {
  input %a : float32[3,2]
  init %b : float32[2,2] = [1, 0, 0, 1]
  init %c : float32[2] = [1, 2]
  init %d : float32[2] = [10, 20]
  %g1 = Gemm(%a, %b) {transB: int = 1} "g1"
  %y1 = Add(%g1, %d) "add1"
  %g2 = Gemm(%a, %b, %c) {beta: float = 2} "g2"
  %y2 = Add(%d, %g2) "add2"
  output %y1
  output %y2
})",
                {"fuse_bias_add"}),
            inferred(R"(graph main (opset ""=17) {
  input %a : float32[3,2]
  init %b : float32[2,2] = [1, 0, 0, 1]
  init %c : float32[2] = [1, 2]
  init %d : float32[2] = [10, 20]
  init %g2_c : float32[3,2] = [12, 24, 12, 24, 12, 24]
  %y2 = Gemm(%a, %b, %g2_c) {beta: float = 1} "g2"
  %y1 = Gemm(%a, %b, %d) {beta: float = 1, transB: int = 1} "g1"
  output %y1
  output %y2
})"));
}

class BiasAddFusionAtOpset : public ::testing::TestWithParam<int> {};

TEST_P(BiasAddFusionAtOpset, ConvAndGemmTakeTheAddAndStillInfer) {
  EXPECT_EQ(run(at_opset(R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  input %a : float32[3,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %c : float32[1,2,1,1] = [0.5, -0.5]
  init %b : float32[2,2] = [1, 0, 0, 1]
  init %d : float32[2] = [10, 20]
  %c1 = Conv(%x, %w) "conv"
  %y1 = Add(%c1, %c) "add1"
  %g1 = Gemm(%a, %b) "gemm"
  %y2 = Add(%g1, %d) "add2"
  output %y1
  output %y2
})",
                         GetParam()),
                {"fuse_bias_add"}, checked_at(2)),
            inferred(at_opset(R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  input %a : float32[3,2]
  init %w : float32[2,1,1,1] = [2, 3]
  init %c : float32[1,2,1,1] = [0.5, -0.5]
  init %b : float32[2,2] = [1, 0, 0, 1]
  init %d : float32[2] = [10, 20]
  init %conv_bias : float32[2] = [0.5, -0.5]
  %y2 = Gemm(%a, %b, %d) {beta: float = 1} "gemm"
  %y1 = Conv(%x, %w, %conv_bias) "conv"
  output %y1
  output %y2
})",
                              GetParam())));
}

INSTANTIATE_TEST_SUITE_P(Opsets, BiasAddFusionAtOpset, ::testing::ValuesIn(testing::kOpsets), testing::opset_name);

}  // namespace
}  // namespace ge::fusion
