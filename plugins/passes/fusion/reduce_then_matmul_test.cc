#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

// A sum over the kept rows of a projection (keepdims 0, axes as an input from opset 13)
// and a mean over the frames of a batch (keepdims 1, axes as an attribute).
const char* const kPooled = R"(graph main (opset ""=17) {
  input %rows : float32[K,3]
  input %x : float32[2,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  init %ax0 : int64[1] = [0]
  %p = MatMul(%rows, %w) "proj"
  %s = ReduceSum(%p, %ax0) {keepdims: int = 0} "sum"
  %q = MatMul(%x, %w) "proj3d"
  %m = ReduceMean(%q) {axes: ints = [-2]} "mean"
  output %s
  output %m
})";

TEST(ReduceMatMulReorder, ReducesTheRowsBeforeTheProduct) {
  EXPECT_EQ(run(kPooled, {"reduce_then_matmul"}), inferred(R"(graph main (opset ""=17) {
  input %rows : float32[K,3]
  input %x : float32[2,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  init %ax0 : int64[1] = [0]
  %mean_out_0 = ReduceMean(%x) {axes: ints = [-2]} "mean"
  %m = MatMul(%mean_out_0, %w) "proj3d"
  %sum_out_0 = ReduceSum(%rows, %ax0) {keepdims: int = 0} "sum"
  %s = MatMul(%sum_out_0, %w) "proj"
  output %s
  output %m
})"));
}

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

TEST(ReduceMatMulReorder, NotOverTheLastAxisNorASharedProductNorUnitRows) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %a : float32[6,3]
  input %one : float32[1,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  init %ax0 : int64[1] = [0]
  init %ax1 : int64[1] = [1]
  %p = MatMul(%a, %w) "proj"
  %last = ReduceSum(%p, %ax1) "last"
  %shared = ReduceSum(%p, %ax0) "shared"
  %u = MatMul(%one, %w) "unit"
  %unit = ReduceSum(%u, %ax0) "unit_rows"
  output %last
  output %shared
  output %unit
})";
  EXPECT_EQ(run(ir, {"reduce_then_matmul"}), inferred(ir));
}

TEST(ReduceMatMulReorder, NotOnIntegers) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %a : int32[6,3]
  init %w : int32[3,2] = [1, 2, 3, 4, 5, 6]
  init %ax0 : int64[1] = [0]
  %p = MatMul(%a, %w) "proj"
  %s = ReduceSum(%p, %ax0) "sum"
  output %s
})";
  EXPECT_EQ(run(ir, {"reduce_then_matmul"}), inferred(ir));
}

class ReduceMatMulReorderAtOpset : public ::testing::TestWithParam<int> {};

TEST_P(ReduceMatMulReorderAtOpset, TheMeanWithAttributeAxesStillInfers) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : float32[2,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  %q = MatMul(%x, %w) "proj3d"
  %m = ReduceMean(%q) {axes: ints = [1]} "mean"
  output %m
})";
  EXPECT_EQ(run(at_opset(ir, GetParam()), {"reduce_then_matmul"}, checked_at(2)),
            inferred(at_opset(R"(graph main (opset ""=17) {
  input %x : float32[2,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  %mean_out_0 = ReduceMean(%x) {axes: ints = [1]} "mean"
  %m = MatMul(%mean_out_0, %w) "proj3d"
  output %m
})",
                              GetParam())));
}

INSTANTIATE_TEST_SUITE_P(Opsets, ReduceMatMulReorderAtOpset, ::testing::ValuesIn(testing::kOpsets),
                         testing::opset_name);

}  // namespace
}  // namespace ge::fusion
