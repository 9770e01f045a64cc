#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

// d = x - mean(x); y = d / sqrt(mean(d^2) + eps) * gamma + beta over the last axis.
const char* const kLayerNorm = R"(graph main (opset ""=17) {
  input %x : float32[2,4]
  init %two : float32[] = [2]
  init %eps : float32[] = [0.001]
  init %gamma : float32[4] = [1, 2, 3, 4]
  init %beta : float32[4] = [0, 0, 1, 1]
  %mean = ReduceMean(%x) {axes: ints = [-1]} "mean"
  %d = Sub(%x, %mean) "sub"
  %sq = Pow(%d, %two) "pow"
  %var = ReduceMean(%sq) {axes: ints = [1]} "var"
  %ve = Add(%var, %eps) "add_eps"
  %std = Sqrt(%ve) "sqrt"
  %n = Div(%d, %std) "div"
  %s = Mul(%gamma, %n) "scale"
  %y = Add(%s, %beta) "shift"
  output %y
})";

TEST(LayerNormFusion, FusesTheDecomposedForm) {
  EXPECT_EQ(run(kLayerNorm, {"fuse_layer_norm"}), inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,4]
  init %two : float32[] = [2]
  init %eps : float32[] = [0.001]
  init %gamma : float32[4] = [1, 2, 3, 4]
  init %beta : float32[4] = [0, 0, 1, 1]
  %y = LayerNormalization(%x, %gamma, %beta) {axis: int = 1, epsilon: float = 0.001} "mean"
  output %y
})"));
}

TEST(LayerNormFusion, OnlyTheNormalisedDimsNeedToBeStatic) {
  std::string dynamic_batch = kLayerNorm;
  dynamic_batch.replace(dynamic_batch.find("float32[2,4]"), 12, "float32[N,4]");
  EXPECT_EQ(run(dynamic_batch, {"fuse_layer_norm"}), inferred(R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  init %two : float32[] = [2]
  init %eps : float32[] = [0.001]
  init %gamma : float32[4] = [1, 2, 3, 4]
  init %beta : float32[4] = [0, 0, 1, 1]
  %y = LayerNormalization(%x, %gamma, %beta) {axis: int = 1, epsilon: float = 0.001} "mean"
  output %y
})"));
}

TEST(LayerNormFusion, WithoutAffineAndWithMulSquares) {
  EXPECT_EQ(run(R"(graph main (opset ""=17) {
  input %x : float32[3,2,2]
  init %eps : float32[] = [0.00001]
  %mean = ReduceMean(%x) {axes: ints = [1, 2]} "mean"
  %d = Sub(%x, %mean) "sub"
  %sq = Mul(%d, %d) "square"
  %var = ReduceMean(%sq) {axes: ints = [2, 1]} "var"
  %ve = Add(%eps, %var) "add_eps"
  %std = Sqrt(%ve) "sqrt"
  %y = Div(%d, %std) "div"
  output %y
})",
                {"fuse_layer_norm"}),
            inferred(R"(graph main (opset ""=17) {
  input %x : float32[3,2,2]
  init %eps : float32[] = [0.00001]
  init %mean_gamma : float32[2,2] = [1, 1, 1, 1]
  %y = LayerNormalization(%x, %mean_gamma) {axis: int = 1, epsilon: float = 0.00001} "mean"
  output %y
})"));
}

TEST(LayerNormFusion, NotAcrossDifferentAxesOrAnExposedVariance) {
  std::string axes = kLayerNorm;
  axes.replace(axes.find("{axes: ints = [1]}"), 18, "{axes: ints = [0]}");
  EXPECT_EQ(run(axes, {"fuse_layer_norm"}), inferred(axes));
  std::string exposed = kLayerNorm;
  exposed.replace(exposed.find("  output %y"), 11, "  output %y\n  output %var");
  EXPECT_EQ(run(exposed, {"fuse_layer_norm"}), inferred(exposed));
}

// The ONNX op is opset 17's: older models (most transformer exports are opset 11 to 14)
// get the ge-domain copy at -O3.
class LayerNormFusionAtOpset : public ::testing::TestWithParam<int> {};

TEST_P(LayerNormFusionAtOpset, FusesAndStillInfersAtO3) {
  const int opset = GetParam();
  const std::string op = opset >= 17 ? "LayerNormalization" : "ge::LayerNormalization";
  const std::string imports = opset >= 17 ? "" : ", \"ge\"=1";
  EXPECT_EQ(run(at_opset(kLayerNorm, opset), {"fuse_layer_norm"}, checked_at(3)),
            inferred("graph main (opset \"\"=" + std::to_string(opset) + imports + R"() {
  input %x : float32[2,4]
  init %two : float32[] = [2]
  init %eps : float32[] = [0.001]
  init %gamma : float32[4] = [1, 2, 3, 4]
  init %beta : float32[4] = [0, 0, 1, 1]
  %y = )" + op + R"((%x, %gamma, %beta) {axis: int = 1, epsilon: float = 0.001} "mean"
  output %y
})"));
}

INSTANTIATE_TEST_SUITE_P(Opsets, LayerNormFusionAtOpset, ::testing::ValuesIn(testing::kOpsets), testing::opset_name);

TEST(LayerNormFusion, AtO2OnlyWhereTheOpsetHasLayerNormalization) {
  // -O2 graphs keep to ai.onnx ops: an opset 13 model keeps its decomposed form.
  const std::string opset13 = at_opset(kLayerNorm, 13);
  EXPECT_EQ(run(opset13, {"fuse_layer_norm"}, checked_at(2)), inferred(opset13));
  EXPECT_NE(run(kLayerNorm, {"fuse_layer_norm"}, checked_at(2)), inferred(kLayerNorm));
}

// A float16/bfloat16 LayerNormalization (which computes in float32, stash_type 1) is
// within a few roundings of the chain, which rounds after each op. epsilon 2^-10 is exact
// in both dtypes.
class LayerNormFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(LayerNormFusionInHalf, FusesTheDecomposedForm) {
  const std::string dtype = GetParam();
  std::string ir = kLayerNorm;
  ir.replace(ir.find("[0.001]"), 7, "[0.0009765625]");
  EXPECT_EQ(run(testing::as_dtype(ir, dtype), {"fuse_layer_norm"}, testing::checked_in(dtype, 2, {{"x", {2, 4}}})),
            inferred(testing::as_dtype(R"(graph main (opset ""=17) {
  input %x : float32[2,4]
  init %two : float32[] = [2]
  init %eps : float32[] = [0.0009765625]
  init %gamma : float32[4] = [1, 2, 3, 4]
  init %beta : float32[4] = [0, 0, 1, 1]
  %y = LayerNormalization(%x, %gamma, %beta) {axis: int = 1, epsilon: float = 0.0009765625} "mean"
  output %y
})",
                                       dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LayerNormFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
