// The half-precision fusion, checked with its own inputs (checked_in); the golden IR
// tests are in tests/passes/softmax_fusion.ge.
#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::inferred;
using testing::run;

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
