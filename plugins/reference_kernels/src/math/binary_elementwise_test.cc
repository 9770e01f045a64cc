// Add/Sub/Mul/Div kernel tests. With a = arange(24).reshape(2,3,4) the broadcast results
// are quick to check by hand (a + [[10],[20],[30]] adds 10 to row 0 of each block, ...);
// the full lists were printed by numpy (/usr/bin/python3) from the expression quoted.

#include <gtest/gtest.h>

#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

TEST(BinaryElementwiseKernel, AddBroadcasts234With31) {
  // numpy: arange(24).reshape(2,3,4) + [[10],[20],[30]]
  KernelTest test("Add");
  test.input(f32_iota({2, 3, 4})).input(f32({3, 1}, {10, 20, 30})).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4}, {10, 11, 12, 13, 24, 25, 26, 27, 38, 39, 40, 41,
                                           22, 23, 24, 25, 36, 37, 38, 39, 50, 51, 52, 53});
}

TEST(BinaryElementwiseKernel, SubBroadcastsTheFirstOperand) {
  // numpy: [[10],[20],[30]] - arange(24).reshape(2,3,4)
  KernelTest test("Sub");
  test.input(f32({3, 1}, {10, 20, 30})).input(f32_iota({2, 3, 4})).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4},
                       {10, 9, 8, 7, 16, 15, 14, 13, 22, 21, 20, 19, -2, -3, -4, -5, 4, 3, 2, 1, 10, 9, 8, 7});
}

TEST(BinaryElementwiseKernel, MulBroadcastsTheLastAxis) {
  // numpy: arange(24).reshape(2,3,4) * [1,2,3,4]
  KernelTest test("Mul");
  test.input(f32_iota({2, 3, 4})).input(f32({4}, {1, 2, 3, 4})).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4},
                       {0, 2, 6, 12, 4, 10, 18, 28, 8, 18, 30, 44, 12, 26, 42, 60, 16, 34, 54, 76, 20, 42, 66, 92});
}

TEST(BinaryElementwiseKernel, DivBroadcastsLeadingAxis) {
  // numpy: arange(24).reshape(2,3,4) / [[[2]],[[4]]]
  KernelTest test("Div");
  test.input(f32_iota({2, 3, 4})).input(f32({2, 1, 1}, {2, 4})).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4}, {0, 0.5f,  1,    1.5f,  2, 2.5f,  3,    3.5f,  4, 4.5f,  5,    5.5f,
                                           3, 3.25f, 3.5f, 3.75f, 4, 4.25f, 4.5f, 4.75f, 5, 5.25f, 5.5f, 5.75f});
}

TEST(BinaryElementwiseKernel, BothOperandsBroadcast) {
  // [[1],[2]] + [10,20,30] = [[11,21,31],[12,22,32]]
  KernelTest test("Add");
  test.input(f32({2, 1}, {1, 2})).input(f32({3}, {10, 20, 30})).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {11, 21, 31, 12, 22, 32});
}

TEST(BinaryElementwiseKernel, ScalarOperand) {
  KernelTest test("Mul");
  test.input(f32({}, {-2})).input(f32({2, 2}, {1, 2, 3, 4})).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {-2, -4, -6, -8});
}

TEST(BinaryElementwiseKernel, Float64Div) {
  KernelTest test("Div");
  test.input(f64({3}, {1, 2, 3})).input(f64({3}, {4, 8, 3})).output(F::kFloat64, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {3}, {0.25, 0.25, 1}, 1e-15);
}

TEST(BinaryElementwiseKernel, IntegerDivisionTruncatesTowardZero) {
  // numpy: trunc([7,-7,7,-7,9,-9] / [2,2,-2,-2,4,-4]) = [3,-3,-3,3,2,2]
  KernelTest test("Div");
  test.input(i32({6}, {7, -7, 7, -7, 9, -9})).input(i32({6}, {2, 2, -2, -2, 4, -4})).output(F::kInt32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {6}, {3, -3, -3, 3, 2, 2});
}

TEST(BinaryElementwiseKernel, IntegerDivisionByZeroFailsTheLaunch) {
  KernelTest test("Div");
  test.input(i64({2}, {1, 2})).input(i64({2}, {1, 0})).output(F::kInt64, {2});
  int code = 0;
  Result<std::vector<Tensor>> result = test.run(&code);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(code, kKernelIntegerDivisionByZero);
  EXPECT_NE(result.status().message().find("division by zero"), std::string::npos) << result.status().message();
}

TEST(BinaryElementwiseKernel, Int64AddAndSub) {
  KernelTest add("Add");
  add.input(i64({2, 2}, {1, 2, 3, 4})).input(i64({2}, {100, -100})).output(F::kInt64, {2, 2});
  GE_RUN_KERNEL(sum, add);
  expect_tensor<int64_t>(sum[0], {2, 2}, {101, -98, 103, -96});
  KernelTest sub("Sub");
  sub.input(i64({2}, {5, 5})).input(i64({2, 1}, {1, 2})).output(F::kInt64, {2, 2});
  GE_RUN_KERNEL(difference, sub);
  expect_tensor<int64_t>(difference[0], {2, 2}, {4, 4, 3, 3});
}

TEST(BinaryElementwiseKernel, LegacyBroadcastWithAxis) {
  // Opset 6: B [3] lines up with axis 1 of A [2,3,2]: A[i][j][k] + B[j].
  KernelTest test("Add", 6);
  test.input(f32_iota({2, 3, 2}))
      .input(f32({3}, {100, 200, 300}))
      .attribute("broadcast", int64_t{1})
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 2}, {100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311});
}

TEST(BinaryElementwiseKernel, LegacyBroadcastWithoutAxisIsASuffix) {
  KernelTest test("Mul", 6);
  test.input(f32_iota({2, 2})).input(f32({2}, {10, -1})).attribute("broadcast", int64_t{1}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0, -1, 20, -3});
}

TEST(BinaryElementwiseKernel, LegacyNoBroadcastNeedsEqualShapes) {
  KernelTest test("Add", 6);
  test.input(f32_iota({2, 2})).input(f32({2}, {1, 2})).output(F::kFloat32, {2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("attribute 'broadcast'"), std::string::npos) << kernel.status().message();
}

TEST(BinaryElementwiseKernel, ShapesThatDoNotBroadcastAreInvalid) {
  KernelTest test("Add");
  test.input(f32_iota({2, 3})).input(f32_iota({2})).output(F::kFloat32, {2, 3});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("do not broadcast"), std::string::npos) << kernel.status().message();
}

TEST(BinaryElementwiseKernel, MixedDtypesAreUnsupported) {
  KernelTest test("Add");
  test.input(f32_iota({2})).input(f64({2}, {1, 2})).output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("float64"), std::string::npos) << kernel.status().message();
}

TEST(BinaryElementwiseKernel, BoolIsUnsupported) {
  KernelTest test("Add");
  Tensor t = Tensor::zeros(DataType::kBool, {2});
  test.input(t).input(t).output(F::kBool, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("Add 'node' with dtype bool"), std::string::npos)
      << kernel.status().message();
}

TEST(BinaryElementwiseKernel, Float16AddAndMulRoundToNearestEven) {
  // numpy float16: [1.5, 0.1, 65504] + / * [2.25, 0.2, 65504]; the sum and product of the
  // largest finite value overflow to inf (0x7c00).
  Tensor a = half_bits(F::kFloat16, {3}, {0x3e00, 0x2e66, 0x7bff});
  Tensor b = half_bits(F::kFloat16, {3}, {0x4080, 0x3266, 0x7bff});
  KernelTest add("Add");
  add.input(a).input(b).output(F::kFloat16, {3});
  GE_RUN_KERNEL(sum, add);
  expect_half_bits(sum[0], F::kFloat16, {3}, {0x4380, 0x34cc, 0x7c00});
  KernelTest mul("Mul");
  mul.input(a).input(b).output(F::kFloat16, {3});
  GE_RUN_KERNEL(product, mul);
  expect_half_bits(product[0], F::kFloat16, {3}, {0x42c0, 0x251e, 0x7c00});
}

TEST(BinaryElementwiseKernel, BFloat16Sub) {
  // 3.75 (0x4070) - 1.5 (0x3fc0) = 2.25 (0x4010)
  KernelTest test("Sub");
  test.input(half_bits(F::kBFloat16, {1}, {0x4070})).input(half_bits(F::kBFloat16, {1}, {0x3fc0})).output(
      F::kBFloat16, {1});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kBFloat16, {1}, {0x4010});
}

TEST(BinaryElementwiseKernel, NarrowIntegersWrap) {
  // uint8: 200 + 100 = 300 - 256 = 44; int8: -128 / -1 wraps to -128
  KernelTest add("Add");
  add.input(typed<uint8_t>({1}, {200})).input(typed<uint8_t>({1}, {100})).output(F::kUInt8, {1});
  GE_RUN_KERNEL(sum, add);
  expect_tensor<uint8_t>(sum[0], {1}, {44});
  KernelTest div("Div");
  div.input(typed<int8_t>({2}, {-128, 7})).input(typed<int8_t>({2}, {-1, 2})).output(F::kInt8, {2});
  GE_RUN_KERNEL(quotient, div);
  expect_tensor<int8_t>(quotient[0], {2}, {-128, 3});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
