// The reordered graph checked against the original on the cpu backend; the golden IR
// tests are in tests/passes/reduce_then_matmul.ge.
#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::checked_at;
using testing::run;

TEST(ReduceMatMulReorder, AgreesWithTheProductFirstOnTheCpuBackend) {
  // The pass manager's numeric check runs both graphs on the cpu backend and compares.
  const std::string ir = R"(graph main (opset ""=17) {
  input %rows : float32[7,3]
  input %x : float32[2,5,3]
  init %w : float32[3,4] = [0.5, -1, 0.25, 2, 1.5, 0.75, -0.5, 1, -2, 0.125, 1, -0.25]
  init %ax0 : int64[1] = [0]
  %p = MatMul(%rows, %w) "proj"
  %s = ReduceSum(%p, %ax0) {keepdims: int = 1} "sum"
  %q = MatMul(%x, %w) "proj3d"
  %m = ReduceMean(%q) {axes: ints = [0, 1], keepdims: int = 0} "mean"
  output %s
  output %m
})";
  // A failed check comes back as the error's text instead of the graph.
  const std::string result = run(ir, {"reduce_then_matmul"}, checked_at(2));
  EXPECT_NE(result.find("= ReduceSum(%rows, %ax0)"), std::string::npos) << result;
  EXPECT_NE(result.find("= MatMul(%sum_out_0, %w)"), std::string::npos) << result;
  EXPECT_NE(result.find("= ReduceMean(%x)"), std::string::npos) << result;
  EXPECT_NE(result.find("= MatMul(%mean_out_0, %w)"), std::string::npos) << result;
}

}  // namespace
}  // namespace ge::fusion
