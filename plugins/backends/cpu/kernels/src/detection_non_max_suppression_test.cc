// NonMaxSuppression kernel tests on the ONNX operator example boxes (hand-checked: box 1
// overlaps box 0 with IOU 0.9/1.1 = 0.82, box 4 overlaps box 3 likewise; the rest are
// disjoint).

#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace ge::cpu_kernels::testing {
namespace {

using F = DataType;

Tensor boxes() {
  return f32({1, 6, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
}
Tensor scores() { return f32({1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}); }

TEST(NonMaxSuppressionKernel, SuppressesOverlapsByDescendingScore) {
  KernelTest test("NonMaxSuppression", 11);
  test.input(boxes())
      .input(scores())
      .input(i64({1}, {3}))
      .input(f32({1}, {0.5f}))
      .input(f32({1}, {0.0f}))
      .output(F::kInt64, {3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {3, 3}, {0, 0, 3, 0, 0, 0, 0, 0, 5});
}

TEST(NonMaxSuppressionKernel, ScoreThresholdAndCenterPointBoxes) {
  // The same boxes as [x_center, y_center, width, height]; score_threshold 0.4 drops box 5.
  KernelTest test("NonMaxSuppression", 11);
  test.input(f32({1, 6, 4}, {0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1, 0.5f, 0.4f, 1, 1, 0.5f, 10.5f, 1, 1, 0.5f, 10.6f, 1, 1,
                             0.5f, 100.5f, 1, 1}))
      .input(scores())
      .input(i64({1}, {3}))
      .input(f32({1}, {0.5f}))
      .input(f32({1}, {0.4f}))
      .attribute("center_point_box", int64_t{1})
      .output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 3}, {0, 0, 3, 0, 0, 0});
}

TEST(NonMaxSuppressionKernel, WithoutMaxOutputSelectsNothing) {
  KernelTest test("NonMaxSuppression", 11);
  test.input(boxes()).input(scores()).output(F::kInt64, {0, 3});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(out[0].element_count(), 0);
}

TEST(NonMaxSuppressionKernel, SelectionCountDisagreeingWithTheOutputFailsAtLaunch) {
  KernelTest test("NonMaxSuppression", 11);
  test.input(boxes()).input(scores()).input(i64({1}, {3})).input(f32({1}, {0.5f})).output(F::kInt64, {2, 3});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 303);
}

}  // namespace
}  // namespace ge::cpu_kernels::testing
