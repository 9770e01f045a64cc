// GlobalAveragePool kernel tests, hand-computed (GlobalMaxPool and GlobalLpPool: nn_pool_test.cc).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(GlobalAveragePoolKernel, MeanOfEachPlane) {
  // arange(16) as [2,1,2,2,2]: plane 0 averages 0..7 = 3.5, plane 1 averages 8..15 = 11.5.
  KernelTest test("GlobalAveragePool");
  test.input(f32_iota({2, 1, 2, 2, 2})).output(F::kFloat32, {2, 1, 1, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 1, 1, 1, 1}, {3.5f, 11.5f});
}

TEST(GlobalAveragePoolKernel, TwoDimensionalChannels) {
  // [1,3,2,2]: channel c holds 4c .. 4c+3, mean 4c + 1.5.
  KernelTest test("GlobalAveragePool");
  test.input(f32_iota({1, 3, 2, 2})).output(F::kFloat32, {1, 3, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 1, 1}, {1.5f, 5.5f, 9.5f});
}

TEST(GlobalAveragePoolKernel, Float64) {
  KernelTest test("GlobalAveragePool");
  test.input(f64({1, 1, 3}, {1, 2, 4})).output(F::kFloat64, {1, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 1}, {7.0 / 3.0}, 1e-15);
}

TEST(GlobalAveragePoolKernel, WrongOutputShapeIsInvalid) {
  KernelTest test("GlobalAveragePool");
  test.input(f32_iota({1, 3, 2, 2})).output(F::kFloat32, {1, 3});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
