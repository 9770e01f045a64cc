#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

TEST(BiasAddFusion, PerChannelAddBecomesTheConvBias) {
  // New bias = B + C = [1 + 0.5, 2 - 0.5] for the first Conv; C alone for the second.
  EXPECT_EQ(run(R"(graph main (opset ""=17) {
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
})",
                {"fuse_bias_add"}),
            inferred(R"(graph main (opset ""=17) {
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
})"));
}

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
