// Dropout kernel tests. Masks from numpy: np.random.seed(seed);
// np.random.uniform(0, 1, shape) >= ratio (/usr/bin/python3), the ONNX reference.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor flag(bool value) { return Tensor::from_vector<bool>({}, {value}); }

TEST(NnDropoutKernel, InferenceIsIdentityWithTrueMask) {
  KernelTest test("Dropout", 13);
  test.input(f32({3}, {1, -2, 3})).input(f32({}, {0.9f})).output(F::kFloat32, {3}).output(F::kBool, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {1, -2, 3});
  expect_tensor<bool>(out[1], {3}, {true, true, true});
}

TEST(NnDropoutKernel, TrainingModeFalseAtRuntimeIsIdentity) {
  KernelTest test("Dropout", 13);
  test.input(f32({2}, {1, 2})).input(f32({}, {0.5f})).input(flag(false)).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2}, {1, 2});
}

TEST(NnDropoutKernel, SeededTrainingMatchesNumpy) {
  // seed 0: u = 0.5488, 0.7152, 0.6028, 0.5449, 0.4237, 0.6459; ratio 0.5 drops the
  // fifth; kept elements are scaled by 2.
  KernelTest test("Dropout", 13);
  test.input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
      .input(f32({}, {0.5f}))
      .input(flag(true))
      .attribute("seed", int64_t{0})
      .output(F::kFloat32, {2, 3})
      .output(F::kBool, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {2, 4, 6, 8, 0, 12});
  expect_tensor<bool>(out[1], {2, 3}, {true, true, true, true, false, true});
}

TEST(NnDropoutKernel, SeedSevenRatioQuarter) {
  // seed 7: u = 0.0763, 0.7799, 0.4384, 0.7235; scale 4 / 3.
  KernelTest test("Dropout", 13);
  test.input(f32({4}, {3, 3, 3, 3})).input(f32({}, {0.25f})).input(flag(true)).attribute("seed", int64_t{7});
  test.output(F::kFloat32, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {4}, {0, 4, 4, 4});
}

TEST(NnDropoutKernel, OldOpsetIgnoresRatio) {
  KernelTest test("Dropout", 7);
  test.input(f32({2}, {1, 2})).attribute("ratio", 0.7f).output(F::kFloat32, {2}).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2}, {1, 2});
  expect_tensor<float>(out[1], {2}, {1, 1});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
