#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::inferred;
using testing::run;

// The golden cases (float32, each opset) are in tests/passes/activation_fusion.ge.

const char* const kActivations = R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,2]
  input %a : float32[2,3]
  init %w : float32[2,1,1,1] = [2, 3]
  init %wt : float32[1,2,2,2] = [1, 2, 3, 4, 5, 6, 7, 8]
  init %g : float32[3,3] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
  init %zero : float32[] = [0]
  init %six : float32[] = [6]
  %c1 = Conv(%x, %w) "conv1"
  %y1 = Relu(%c1) "relu"
  %c2 = Conv(%x, %w) {strides: ints = [1, 1]} "conv2"
  %y2 = Clip(%c2, %zero, %six) "relu6"
  %g1 = Gemm(%a, %g) "gemm"
  %y3 = LeakyRelu(%g1) {alpha: float = 0.2} "leaky"
  %m = MatMul(%a, %g) "matmul"
  %y4 = HardSigmoid(%m) "hard_sigmoid"
  %d = ConvTranspose(%x, %wt) {strides: ints = [2, 2]} "deconv"
  %y5 = Sigmoid(%d) "sigmoid"
  output %y1
  output %y2
  output %y3
  output %y4
  output %y5
})";

const char* const kActivationsFused = R"(graph main (opset ""=17, "ge"=1) {
  input %x : float32[1,1,2,2]
  input %a : float32[2,3]
  init %w : float32[2,1,1,1] = [2, 3]
  init %wt : float32[1,2,2,2] = [1, 2, 3, 4, 5, 6, 7, 8]
  init %g : float32[3,3] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
  init %zero : float32[] = [0]
  init %six : float32[] = [6]
  %y5 = ge::FusedConvTranspose(%x, %wt) {activation: string = "Sigmoid", strides: ints = [2, 2]} "deconv"
  %y4 = ge::FusedMatMul(%a, %g) {activation: string = "HardSigmoid", activation_params: floats = [0.2, 0.5]} "matmul"
  %y3 = ge::FusedGemm(%a, %g) {activation: string = "LeakyRelu", activation_params: floats = [0.2]} "gemm"
  %y2 = ge::FusedConv(%x, %w) {activation: string = "Clip", activation_params: floats = [0, 6], strides: ints = [1, 1]} "conv2"
  %y1 = ge::FusedConv(%x, %w) {activation: string = "Relu"} "conv1"
  output %y1
  output %y2
  output %y3
  output %y4
  output %y5
})";

// float16/bfloat16 models fuse as float32 ones do (the fused kernels take both), the
// fused outputs within a few roundings of the chain's (checked_in).
class ActivationFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationFusionInHalf, FusesEachActivationIntoItsProducer) {
  const std::string dtype = GetParam();
  EXPECT_EQ(run(testing::as_dtype(kActivations, dtype), {"fuse_activation"},
                testing::checked_in(dtype, 3, {{"x", {1, 1, 2, 2}}, {"a", {2, 3}}})),
            inferred(testing::as_dtype(kActivationsFused, dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ActivationFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes),
                         testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
