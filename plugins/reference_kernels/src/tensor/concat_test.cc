// Concat kernel tests; values from numpy's np.concatenate (/usr/bin/python3), small
// enough to read off by hand.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/narrow_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(ConcatKernel, ThreeInputsAlongAxisOne) {
  // [[0,1,2],[3,4,5]] ++ [[100,101],[102,103]] ++ [[200],[201]] along axis 1.
  KernelTest test("Concat");
  test.input(f32_iota({2, 3}))
      .input(f32_iota({2, 2}, 100))
      .initializer(f32({2, 1}, {200, 201}))
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {2, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 6}, {0, 1, 2, 100, 101, 200, 3, 4, 5, 102, 103, 201});
}

TEST(ConcatKernel, AxisZeroInt32) {
  KernelTest test("Concat");
  test.input(i32({2, 3}, {0, 1, 2, 3, 4, 5}))
      .input(i32({1, 3}, {10, 11, 12}))
      .attribute("axis", int64_t{0})
      .output(F::kInt32, {3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {3, 3}, {0, 1, 2, 3, 4, 5, 10, 11, 12});
}

TEST(ConcatKernel, NegativeAxis) {
  // arange(8) as [2,2,2] ++ [[[10],[11]],[[12],[13]]] along -1.
  KernelTest test("Concat", 11);
  test.input(f32_iota({2, 2, 2}))
      .input(f32({2, 2, 1}, {10, 11, 12, 13}))
      .attribute("axis", int64_t{-1})
      .output(F::kFloat32, {2, 2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2, 3}, {0, 1, 10, 2, 3, 11, 4, 5, 12, 6, 7, 13});
}

TEST(ConcatKernel, EmptyInputContributesNothing) {
  KernelTest test("Concat");
  test.input(f32_iota({2, 0})).input(f32_iota({2, 2})).attribute("axis", int64_t{1}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0, 1, 2, 3});
}

TEST(ConcatKernel, MismatchedShapesAreInvalid) {
  KernelTest test("Concat");
  test.input(f32_iota({2, 3})).input(f32_iota({3, 2})).attribute("axis", int64_t{1}).output(F::kFloat32, {2, 5});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("input 1"), std::string::npos) << kernel.status().message();
}

TEST(ConcatKernel, MissingAxisIsInvalidFromOpset4) {
  KernelTest test("Concat", 4);
  test.input(f32_iota({2, 3})).input(f32_iota({2, 3})).output(F::kFloat32, {2, 6});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("attribute 'axis' is required"), std::string::npos)
      << kernel.status().message();
}

TEST(ConcatKernel, Strings) {
  KernelTest test("Concat");
  test.initializer(Tensor::from_strings({2, 1}, {"a", "b"}))
      .initializer(Tensor::from_strings({2, 2}, {"c", "d", "e", "a long string beyond SSO"}))
      .attribute("axis", int64_t{1})
      .output(F::kString, {2, 3});
  GE_RUN_CONSTANT_KERNEL(out, test);
  expect_strings(out[0], {2, 3}, {"a", "c", "d", "b", "e", "a long string beyond SSO"});
}

TEST(ConcatKernel, Uint4AndFloat8) {
  KernelTest uint4("Concat", 21);
  uint4.input(codes(F::kUInt4, {1, 2}, {15, 0})).input(codes(F::kUInt4, {1, 1}, {7})).attribute("axis", int64_t{1});
  uint4.output(F::kUInt4, {1, 3});
  GE_RUN_KERNEL(a, uint4);
  expect_codes(a[0], F::kUInt4, {1, 3}, {15, 0, 7});
  KernelTest float8("Concat", 21);
  float8.input(codes(F::kFloat8E5M2FNUZ, {1}, {0x80})).input(codes(F::kFloat8E5M2FNUZ, {2}, {0x40, 0x7F}));
  float8.attribute("axis", int64_t{0}).output(F::kFloat8E5M2FNUZ, {3});
  GE_RUN_KERNEL(b, float8);
  expect_codes(b[0], F::kFloat8E5M2FNUZ, {3}, {0x80, 0x40, 0x7F});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
