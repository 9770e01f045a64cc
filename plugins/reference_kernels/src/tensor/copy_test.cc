// Reshape, Flatten, Identity, Squeeze and Unsqueeze kernel tests: the data are copied unchanged; prepare
// checks the output shape against the op's definition.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/narrow_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(CopyKernels, ReshapeCopiesIntoTheOutputShape) {
  // Shape [0, -1] on [2,3,4] gives [2,12] (shape inference resolved it into the desc).
  KernelTest test("Reshape", 14);
  test.input(f32_iota({2, 3, 4})).initializer(i64({2}, {0, -1})).output(F::kFloat32, {2, 12});
  GE_RUN_KERNEL(out, test);
  std::vector<float> expected(24);
  for (int i = 0; i < 24; ++i) expected[i] = static_cast<float>(i);
  expect_tensor<float>(out[0], {2, 12}, expected);
}

TEST(CopyKernels, ReshapeWithWrongElementCountIsInvalid) {
  KernelTest test("Reshape");
  test.input(f32_iota({2, 3})).initializer(i64({1}, {5})).output(F::kFloat32, {5});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("6 elements"), std::string::npos) << kernel.status().message();
}

TEST(CopyKernels, FlattenAxes) {
  // [2,3,4]: axis 0 -> [1,24], axis 2 -> [6,4], axis -1 -> [6,4], default axis 1 -> [2,12].
  const std::vector<std::pair<int64_t, std::vector<int64_t>>> cases = {
      {0, {1, 24}}, {2, {6, 4}}, {-1, {6, 4}}, {3, {24, 1}}};
  for (const auto& [axis, dims] : cases) {
    KernelTest test("Flatten");
    test.input(i64({2, 3, 4}, std::vector<int64_t>(24, 7))).attribute("axis", axis).output(F::kInt64, dims);
    GE_RUN_KERNEL(out, test);
    expect_tensor<int64_t>(out[0], dims, std::vector<int64_t>(24, 7));
  }
  KernelTest by_default("Flatten");
  by_default.input(f32_iota({2, 3, 4})).output(F::kFloat32, {2, 12});
  GE_RUN_KERNEL(out, by_default);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 12}));
}

TEST(CopyKernels, FlattenWithWrongOutputIsInvalid) {
  KernelTest test("Flatten");
  test.input(f32_iota({2, 3, 4})).attribute("axis", int64_t{2}).output(F::kFloat32, {2, 12});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("[6,4]"), std::string::npos) << kernel.status().message();
}

TEST(CopyKernels, IdentityOfBoolAndInt32) {
  Tensor flags = Tensor::from_vector<bool>({3}, {true, false, true});
  KernelTest test("Identity");
  test.input(flags).output(F::kBool, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<bool>(out[0], {3}, {true, false, true});
  KernelTest ints("Identity");
  ints.input(i32({2}, {-5, 5})).output(F::kInt32, {2});
  GE_RUN_KERNEL(int_out, ints);
  expect_tensor<int32_t>(int_out[0], {2}, {-5, 5});
}

TEST(CopyKernels, StringsAreCopiedElementWise) {
  KernelTest test("Reshape", 14);
  test.initializer(Tensor::from_strings({2, 2}, {"a", "bb", "", "a longer string than SSO"}))
      .initializer(i64({1}, {4}))
      .output(F::kString, {4});
  GE_RUN_CONSTANT_KERNEL(out, test);
  expect_strings(out[0], {4}, {"a", "bb", "", "a longer string than SSO"});
}

TEST(CopyKernels, SqueezeAndUnsqueezeMoveUnitAxes) {
  KernelTest squeeze("Squeeze", 13);
  squeeze.input(f32_iota({1, 3, 1, 2})).initializer(i64({1}, {0})).output(F::kFloat32, {3, 1, 2});
  GE_RUN_KERNEL(squeezed, squeeze);
  expect_tensor<float>(squeezed[0], {3, 1, 2}, {0, 1, 2, 3, 4, 5});
  KernelTest unsqueeze("Unsqueeze", 11);
  unsqueeze.input(i64({2}, {7, 8})).attribute("axes", std::vector<int64_t>{0, 2}).output(F::kInt64, {1, 2, 1});
  GE_RUN_KERNEL(unsqueezed, unsqueeze);
  expect_tensor<int64_t>(unsqueezed[0], {1, 2, 1}, {7, 8});
}

TEST(CopyKernels, SqueezeOfANonUnitAxisIsInvalid) {
  KernelTest test("Squeeze", 13);
  test.input(f32_iota({2, 3})).output(F::kFloat32, {3, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("without unit axes"), std::string::npos) << kernel.status().message();
}

TEST(CopyKernels, ReshapeFlattenAndIdentityOfNarrowTypes) {
  KernelTest reshape("Reshape", 21);
  reshape.input(codes(F::kInt4, {2, 3}, {0xF8, 1, 2, 3, 4, 7})).initializer(i64({2}, {3, 2})).output(F::kInt4, {3, 2});
  GE_RUN_KERNEL(a, reshape);
  expect_codes(a[0], F::kInt4, {3, 2}, {0xF8, 1, 2, 3, 4, 7});
  KernelTest flatten("Flatten", 21);
  flatten.input(codes(F::kFloat8E5M2, {2, 1, 2}, {0x3C, 0x7C, 0xFC, 0x7F})).output(F::kFloat8E5M2, {2, 2});
  GE_RUN_KERNEL(b, flatten);
  expect_codes(b[0], F::kFloat8E5M2, {2, 2}, {0x3C, 0x7C, 0xFC, 0x7F});
  KernelTest identity("Identity", 23);
  identity.input(codes(F::kFloat4E2M1, {3}, {0x1, 0x7, 0xF})).output(F::kFloat4E2M1, {3});
  GE_RUN_KERNEL(c, identity);
  expect_codes(c[0], F::kFloat4E2M1, {3}, {0x1, 0x7, 0xF});
  KernelTest unsqueeze("Unsqueeze", 21);
  unsqueeze.input(codes(F::kUInt4, {2}, {15, 3})).initializer(i64({1}, {0})).output(F::kUInt4, {1, 2});
  GE_RUN_KERNEL(d, unsqueeze);
  expect_codes(d[0], F::kUInt4, {1, 2}, {15, 3});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
