// The half-precision fusion, checked with its own inputs (checked_in); the golden IR
// tests are in tests/passes/layer_norm_fusion.ge.
#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

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
