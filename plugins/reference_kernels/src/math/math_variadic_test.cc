// Sum, Mean, Min, Max over several broadcast inputs; values by hand.

#include <gtest/gtest.h>

#include <limits>

#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

TEST(MathVariadicKernel, SumOfThreeBroadcastInputs) {
  // [[1], [2]] + [10, 20, 30] + [100]
  KernelTest test("Sum");
  test.input(f32({2, 1}, {1, 2})).input(f32({3}, {10, 20, 30})).input(f32({1}, {100})).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {111, 121, 131, 112, 122, 132});
  // Three inputs fold through the workspace: one output-sized partial result.
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_TRUE(kernel.is_ok());
  EXPECT_EQ(kernel.value().workspace_bytes, 6 * sizeof(float));
}

TEST(MathVariadicKernel, MeanDividesTheSum) {
  // ([[1], [2]] + [10, 20, 30] + [100]) / 3
  KernelTest test("Mean");
  test.input(f32({2, 1}, {1, 2})).input(f32({3}, {10, 20, 30})).input(f32({1}, {100})).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {37, 40.333333f, 43.666667f, 37.333333f, 40.666667f, 44}, 1e-6);
}

TEST(MathVariadicKernel, SingleInputIsCopied) {
  KernelTest test("Max");
  test.input(f32({3}, {3, -1, 2})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {3, -1, 2});
}

TEST(MathVariadicKernel, MaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  KernelTest test("Max");
  test.input(f32({3}, {1, nan, 3})).input(f32({3}, {2, 0, nan})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {2, nan, nan});
}

TEST(MathVariadicKernel, MinOfIntegersBroadcast) {
  // min([[5], [-3]], [0, 10]) = [[0, 5], [-3, -3]]
  KernelTest test("Min");
  test.input(typed<int8_t>({2, 1}, {5, -3})).input(typed<int8_t>({2}, {0, 10})).output(F::kInt8, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {2, 2}, {0, 5, -3, -3});
}

TEST(MathVariadicKernel, MaxOfFourUnsignedInputs) {
  KernelTest test("Max");
  test.input(typed<uint16_t>({2}, {1, 9}))
      .input(typed<uint16_t>({2}, {7, 2}))
      .input(typed<uint16_t>({2}, {3, 65535}))
      .input(typed<uint16_t>({2}, {4, 0}))
      .output(F::kUInt16, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint16_t>(out[0], {2}, {7, 65535});
}

TEST(MathVariadicKernel, Float16Sum) {
  // numpy float16: 1.5 + 2.25 + 0.1 = 3.85 -> 0x43b3 (each step rounds to float16)
  KernelTest test("Sum");
  test.input(half_bits(F::kFloat16, {1}, {0x3e00}))
      .input(half_bits(F::kFloat16, {1}, {0x4080}))
      .input(half_bits(F::kFloat16, {1}, {0x2e66}))
      .output(F::kFloat16, {1});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kFloat16, {1}, {0x43b3});
}

TEST(MathVariadicKernel, MixedDtypesAreUnsupported) {
  KernelTest test("Sum");
  test.input(f32({1}, {1})).input(f64({1}, {1})).output(F::kFloat32, {1});
  expect_prepare_error(test, StatusCode::kUnsupported, "float64");
}

TEST(MathVariadicKernel, ShapesThatDoNotBroadcastAreInvalid) {
  KernelTest test("Min");
  test.input(f32({2}, {1, 2})).input(f32({3}, {1, 2, 3})).output(F::kFloat32, {3});
  expect_prepare_error(test, StatusCode::kInvalidArgument, "does not broadcast");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
