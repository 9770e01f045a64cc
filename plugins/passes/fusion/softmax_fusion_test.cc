#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

TEST(SoftmaxFusion, PlainAndStabilisedForms) {
  EXPECT_EQ(run(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %axis : int64[1] = [1]
  init %axis0 : int64[1] = [0]
  %e = Exp(%x) "exp"
  %s = ReduceSum(%e, %axis) "sum"
  %y = Div(%e, %s) "div"
  %m = ReduceMax(%x) {axes: ints = [0]} "max"
  %d = Sub(%x, %m) "shift"
  %e2 = Exp(%d) "exp2"
  %s2 = ReduceSum(%e2, %axis0) "sum2"
  %y2 = Div(%e2, %s2) "div2"
  output %y
  output %y2
})",
                {"fuse_softmax"}),
            inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %axis : int64[1] = [1]
  init %axis0 : int64[1] = [0]
  %y2 = Softmax(%x) {axis: int = 0} "exp2"
  %y = Softmax(%x) {axis: int = 1} "exp"
  output %y
  output %y2
})"));
}

TEST(SoftmaxFusion, NotWithoutKeepdimsOrAcrossAxes) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %axis : int64[1] = [1]
  init %axis0 : int64[1] = [0]
  init %both : int64[2] = [0, 1]
  %e = Exp(%x) "exp"
  %s = ReduceSum(%e, %axis) {keepdims: int = 0} "sum_no_keepdims"
  %u = Unsqueeze(%s, %axis) "unsqueeze"
  %y = Div(%e, %u) "div"
  %m = ReduceMax(%x) {axes: ints = [1]} "max"
  %d = Sub(%x, %m) "shift"
  %e2 = Exp(%d) "exp2"
  %s2 = ReduceSum(%e2, %axis0) "sum_other_axis"
  %y2 = Div(%e2, %s2) "div2"
  %e3 = Exp(%x) "exp3"
  %s3 = ReduceSum(%e3, %both) "sum_two_axes"
  %y3 = Div(%e3, %s3) "div3"
  output %y
  output %y2
  output %y3
})";
  EXPECT_EQ(run(ir, {"fuse_softmax"}), inferred(ir));
}

// ReduceSum takes its axes as an input from opset 13 and as an attribute before; before
// opset 13 Softmax(axis) normalises over the flattened dims from `axis` on, which equals
// the decomposed form only for the last axis.
std::string softmax_graph(int opset, int axis) {
  const std::string axes = opset >= 13 ? "%e, %axis" : "%e) {axes: ints = [" + std::to_string(axis) + "]}";
  const std::string sum = opset >= 13 ? "ReduceSum(" + axes + ")" : "ReduceSum(" + axes;
  return "graph main (opset \"\"=" + std::to_string(opset) + R"() {
  input %x : float32[2,3]
  init %axis : int64[1] = [)" +
         std::to_string(axis) + R"(]
  %m = ReduceMax(%x) {axes: ints = [)" +
         std::to_string(axis) + R"(]} "max"
  %d = Sub(%x, %m) "shift"
  %e = Exp(%d) "exp"
  %s = )" +
         sum + R"( "sum"
  %y = Div(%e, %s) "div"
  output %y
})";
}

class SoftmaxFusionAtOpset : public ::testing::TestWithParam<int> {};

TEST_P(SoftmaxFusionAtOpset, TheLastAxisFusesAndStillInfers) {
  const int opset = GetParam();
  EXPECT_EQ(run(softmax_graph(opset, 1), {"fuse_softmax"}, checked_at(2)),
            inferred("graph main (opset \"\"=" + std::to_string(opset) + R"() {
  input %x : float32[2,3]
  init %axis : int64[1] = [1]
  %y = Softmax(%x) {axis: int = 1} "exp"
  output %y
})"));
}

TEST_P(SoftmaxFusionAtOpset, AnotherAxisFusesFromOpset13) {
  const int opset = GetParam();
  const std::string ir = softmax_graph(opset, 0);
  const std::string fused = "graph main (opset \"\"=" + std::to_string(opset) + R"() {
  input %x : float32[2,3]
  init %axis : int64[1] = [0]
  %y = Softmax(%x) {axis: int = 0} "exp"
  output %y
})";
  EXPECT_EQ(run(ir, {"fuse_softmax"}, checked_at(2)), inferred(opset >= 13 ? fused : ir));
}

INSTANTIATE_TEST_SUITE_P(Opsets, SoftmaxFusionAtOpset, ::testing::ValuesIn(testing::kOpsets), testing::opset_name);

class SoftmaxFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(SoftmaxFusionInHalf, TheStabilisedFormFuses) {
  const std::string dtype = GetParam();
  EXPECT_EQ(run(testing::as_dtype(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %axis : int64[1] = [1]
  %m = ReduceMax(%x) {axes: ints = [1]} "max"
  %d = Sub(%x, %m) "shift"
  %e = Exp(%d) "exp"
  %s = ReduceSum(%e, %axis) "sum"
  %y = Div(%e, %s) "div"
  output %y
})",
                                  dtype),
                {"fuse_softmax"}, testing::checked_in(dtype, 2, {{"x", {2, 3}}})),
            inferred(testing::as_dtype(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %axis : int64[1] = [1]
  %y = Softmax(%x) {axis: int = 1} "exp"
  output %y
})",
                                       dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SoftmaxFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
