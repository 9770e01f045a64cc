// A float16/bfloat16 model through every fusion of the -O3 pipeline, in its order: a
// Conv-BN-Relu, a residual Conv-Add-Relu, a decomposed LayerNorm, an erf Gelu and a
// batched MatMul with a bias. Each pass that changes the graph is checked against the
// unoptimised (-O0) graph on the cpu backend, and the result must hold the fused ops
// only, every constant still of the model's dtype.
// Tolerance: each fusion moves or removes a rounding (checked_in's 4 half-units in the
// last place per op), and the unfused graph rounds after each of its 20 ops; the
// LayerNorm then divides by a standard deviation over 6 elements that may be well below
// 1, which scales those differences up. The whole block is held to 20 half-units: 1e-2
// for float16 (2^-11 each), 4e-2 for bfloat16 (2^-9 each), relative and absolute. (Seen:
// 2.6e-3 for float16 after the residual fusion, 1.4e-2 for bfloat16 after the Conv-BN
// folding.)

#include <gtest/gtest.h>

#include <string>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

const char* const kBlock = R"(graph main (opset ""=17) {
  input %x : float32[1,4,6,6]
  init %w1 : float32[4,4,1,1] = [0.5, -0.25, 0.125, 0.75, -0.5, 0.25, 1, -0.125, 0.375, 0.5, -0.75, 0.25, 0.625, -0.375, 0.125, 0.5]
  init %scale : float32[4] = [1, 0.5, 2, 1.5]
  init %bias : float32[4] = [0.1, -0.2, 0.3, 0]
  init %mean : float32[4] = [0, 0.1, -0.1, 0.2]
  init %var : float32[4] = [1, 4, 0.25, 9]
  init %w2 : float32[4,4,1,1] = [0.25, 0.5, -0.5, 0.125, 0.75, -0.25, 0.5, 0.25, -0.125, 0.375, 0.25, -0.5, 0.5, 0.125, -0.25, 0.75]
  init %b2 : float32[4] = [0.05, -0.05, 0.1, -0.1]
  init %eps : float32[] = [0.0009765625]
  init %sqrt2 : float32[] = [1.4142135]
  init %one : float32[] = [1]
  init %half : float32[] = [0.5]
  init %w3 : float32[6,4] = [0.5, -0.5, 0.25, 0.125, -0.25, 0.75, 0.5, -0.125, 0.375, 0.25, -0.75, 0.5, 0.125, -0.375, 0.25, 0.625, -0.5, 0.5, 0.125, -0.25, 0.75, 0.25, -0.125, 0.375]
  init %b3 : float32[4] = [0.25, -0.25, 0.5, 0]
  %c1 = Conv(%x, %w1) "conv1"
  %n1 = BatchNormalization(%c1, %scale, %bias, %mean, %var) "bn1"
  %r1 = Relu(%n1) "relu1"
  %c2 = Conv(%r1, %w2, %b2) "conv2"
  %s = Add(%c2, %x) "residual"
  %r2 = Relu(%s) "relu2"
  %mu = ReduceMean(%r2) {axes: ints = [-1]} "ln_mean"
  %d = Sub(%r2, %mu) "ln_sub"
  %sq = Mul(%d, %d) "ln_square"
  %v = ReduceMean(%sq) {axes: ints = [-1]} "ln_var"
  %ve = Add(%v, %eps) "ln_eps"
  %sd = Sqrt(%ve) "ln_sqrt"
  %n = Div(%d, %sd) "ln_div"
  %g1 = Div(%n, %sqrt2) "gelu_div"
  %g2 = Erf(%g1) "gelu_erf"
  %g3 = Add(%g2, %one) "gelu_add"
  %g4 = Mul(%n, %g3) "gelu_mul"
  %g = Mul(%g4, %half) "gelu_half"
  %m = MatMul(%g, %w3) "proj"
  %y = Add(%m, %b3) "proj_bias"
  output %y
})";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

PassManagerOptions block_check(const std::string& dtype) {
  PassManagerOptions options = testing::checked_in(dtype, 3, {{"x", {1, 4, 6, 6}}});
  options.check_rtol = options.check_atol = dtype == "float16" ? 1e-2 : 4e-2;
  return options;
}

class HalfPrecisionPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(HalfPrecisionPipeline, FusesAtO3WithinTheDtypeRoundingOfO0) {
  const std::string dtype = GetParam();
  const std::string fused = testing::run(
      testing::as_dtype(kBlock, dtype),
      {"fuse_bias_add", "fuse_conv_bn", "fuse_matmul_add", "reduce_then_matmul", "fuse_layer_norm", "fuse_softmax",
       "fuse_hard_swish", "fuse_gelu", "fuse_matmul_bias", "fuse_conv_residual", "fuse_activation"},
      block_check(dtype));
  ASSERT_EQ(fused.rfind("graph main", 0), 0u) << fused;  // not an error (a failed check included)
  EXPECT_EQ(count(fused, "= ge::FusedConv("), 2u) << fused;
  EXPECT_EQ(count(fused, "ge::FusedConv(%r1, %w2, %b2, %x) {activation: string = \"Relu\"}"), 1u) << fused;
  EXPECT_EQ(count(fused, "= LayerNormalization("), 1u) << fused;
  EXPECT_EQ(count(fused, "= ge::Gelu("), 1u) << fused;
  EXPECT_EQ(count(fused, "= ge::FusedMatMul(%g, %w3, %b3)"), 1u) << fused;
  for (const char* unfused : {"BatchNormalization(", "Relu(", "Erf(", "ReduceMean(", "MatMul(%", "Add("}) {
    EXPECT_EQ(count(fused, std::string(" = ") + unfused), 0u) << unfused << " left in\n" << fused;
  }
  EXPECT_EQ(count(fused, "float32"), 0u) << fused;
}

INSTANTIATE_TEST_SUITE_P(Dtypes, HalfPrecisionPipeline, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
