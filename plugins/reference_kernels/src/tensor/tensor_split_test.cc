// Split-18 kernel tests: num_outputs and the checks of the part sizes against
// num_outputs and `split`. Expected values from a transcription of the ONNX reference
// (onnx/reference/ops/op_split.py, CommonSplit.common_run) run with /usr/bin/python3 and
// numpy, e.g. common_run(np.arange(14).reshape(2, 7), None, axis=1, n_outputs=3).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(SplitKernel, NumOutputsUnevenLastPartIsSmaller) {
  // 7 along axis 1 in 3 parts: ceil(7 / 3) = 3, so [3, 3, 1].
  KernelTest test("Split", 18);
  test.input(f32_iota({2, 7}))
      .attribute("axis", int64_t{1})
      .attribute("num_outputs", int64_t{3})
      .output(F::kFloat32, {2, 3})
      .output(F::kFloat32, {2, 3})
      .output(F::kFloat32, {2, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {0, 1, 2, 7, 8, 9});
  expect_tensor<float>(out[1], {2, 3}, {3, 4, 5, 10, 11, 12});
  expect_tensor<float>(out[2], {2, 1}, {6, 13});
}

TEST(SplitKernel, NumOutputsEvenParts) {
  KernelTest test("Split", 18);
  test.input(i64({8}, {0, 1, 2, 3, 4, 5, 6, 7})).attribute("num_outputs", int64_t{4});
  for (int i = 0; i < 4; ++i) test.output(F::kInt64, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2}, {0, 1});
  expect_tensor<int64_t>(out[1], {2}, {2, 3});
  expect_tensor<int64_t>(out[2], {2}, {4, 5});
  expect_tensor<int64_t>(out[3], {2}, {6, 7});
}

TEST(SplitKernel, NumOutputsPartsMustMatchTheOutputs) {
  // num_outputs = 3 on 7 asks for [3, 3, 1], not [2, 2, 3].
  KernelTest test("Split", 18);
  test.input(f32_iota({7})).attribute("num_outputs", int64_t{3});
  test.output(F::kFloat32, {2}).output(F::kFloat32, {2}).output(F::kFloat32, {3});
  expect_invalid(test, "num_outputs = 3 gives parts [3, 3, 1] but the outputs have [2, 2, 3]");
}

TEST(SplitKernel, NumOutputsMustEqualTheOutputCount) {
  KernelTest test("Split", 18);
  test.input(f32_iota({4})).attribute("num_outputs", int64_t{4});
  test.output(F::kFloat32, {2}).output(F::kFloat32, {2});
  expect_invalid(test, "= 4 but the node has 2 outputs");
}

TEST(SplitKernel, NumOutputsBelowOneIsInvalid) {
  KernelTest test("Split", 18);
  test.input(f32_iota({4})).attribute("num_outputs", int64_t{0}).output(F::kFloat32, {4});
  expect_invalid(test, "must be at least 1");
}

TEST(SplitKernel, NumOutputsWithANegativeLastPartIsInvalid) {
  // 5 in 4 parts: ceil = 2 leaves 5 - 6 = -1 for the last one (ONNX shape inference
  // fails on it too).
  KernelTest test("Split", 18);
  test.input(f32_iota({5})).attribute("num_outputs", int64_t{4});
  test.output(F::kFloat32, {2}).output(F::kFloat32, {2}).output(F::kFloat32, {1}).output(F::kFloat32, {0});
  expect_invalid(test, "the last part would be -1");
}

TEST(SplitKernel, SplitInputAndNumOutputsTogetherAreInvalid) {
  KernelTest test("Split", 18);
  test.input(f32_iota({4})).initializer(i64({2}, {2, 2})).attribute("num_outputs", int64_t{2});
  test.output(F::kFloat32, {2}).output(F::kFloat32, {2});
  expect_invalid(test, "both given");
}

TEST(SplitKernel, ConstantSplitMustMatchTheOutputs) {
  KernelTest test("Split", 18);
  test.input(f32_iota({4})).initializer(i64({2}, {1, 3}));
  test.output(F::kFloat32, {2}).output(F::kFloat32, {2});
  expect_invalid(test, "input 'split' = [1, 3] but the outputs have [2, 2]");
}

TEST(SplitKernel, RuntimeSplitThatContradictsTheOutputsFailsAtLaunch) {
  KernelTest test("Split", 18);
  test.input(f32_iota({4})).input(i64({2}, {1, 3}));
  test.output(F::kFloat32, {2}).output(F::kFloat32, {2});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelRuntimeSizeMismatch);
}

TEST(SplitKernel, RuntimeSplitAtOpset18) {
  KernelTest test("Split", 18);
  test.input(f32_iota({5})).input(i64({2}, {1, 4}));
  test.output(F::kFloat32, {1}).output(F::kFloat32, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1}, {0});
  expect_tensor<float>(out[1], {4}, {1, 2, 3, 4});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
