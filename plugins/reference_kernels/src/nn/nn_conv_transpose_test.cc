// ConvTranspose kernel tests. Expected values from a direct numpy scatter loop
// (y[n, g*M/g+m, i*s + k*d - pad] += x[n, c, i] * w[c, m, k], /usr/bin/python3).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(NnConvTransposeKernel, TwoDimensionalTwoOutputChannels) {
  KernelTest test("ConvTranspose", 11);
  test.input(f32_iota({1, 1, 2, 3})).initializer(f32({1, 2, 2, 2}, {1, 2, 3, 4, 0, -1, 0.5f, 1}));
  test.output(F::kFloat32, {1, 2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 3, 4},
                       {0, 1, 4, 4, 3, 13, 23, 18, 9, 24, 31, 20, 0, 0, -1, -2, 0, -2.5f, -2, -3, 1.5f, 5, 6.5f, 5});
}

TEST(NnConvTransposeKernel, GroupsStridesPadsOutputPaddingAndBias) {
  KernelTest test("ConvTranspose", 11);
  test.input(f32({1, 2, 2}, {1, 2, 3, 4}))
      .initializer(f32({2, 1, 3}, {1, -1, 2, 0.5f, 1, 0}))
      .initializer(f32({2}, {10, 20}))
      .attribute("group", int64_t{2})
      .attribute("strides", std::vector<int64_t>{2})
      .attribute("pads", std::vector<int64_t>{1, 0})
      .attribute("output_padding", std::vector<int64_t>{1})
      .output(F::kFloat32, {1, 2, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 5}, {9, 14, 8, 14, 10, 23, 22, 24, 20, 20});
}

TEST(NnConvTransposeKernel, Dilations) {
  KernelTest test("ConvTranspose", 11);
  test.input(f32({1, 1, 3}, {1, 2, 3})).initializer(f32({1, 1, 2}, {1, 2}));
  test.attribute("dilations", std::vector<int64_t>{2}).output(F::kFloat32, {1, 1, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 5}, {1, 2, 5, 4, 6});
}

TEST(NnConvTransposeKernel, OutputShapePutsOddPaddingFirst) {
  // Natural extent (3 - 1) * 2 + 2 = 6; output_shape 5 leaves a total padding of 1,
  // which NOTSET puts at the beginning: the numpy result with pads [1, 0].
  KernelTest test("ConvTranspose", 11);
  test.input(f32({1, 1, 3}, {1, 2, 3})).initializer(f32({1, 1, 2}, {1, 2}));
  test.attribute("strides", std::vector<int64_t>{2}).attribute("output_shape", std::vector<int64_t>{5});
  test.output(F::kFloat32, {1, 1, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 5}, {2, 2, 4, 3, 6});
}

TEST(NnConvTransposeKernel, SameUpperPutsOddPaddingLast) {
  // Output 3 * 2 = 6 of a natural 7 (kernel 3): SAME_UPPER pads [0, 1], i.e. the first six.
  // y_full = [1, 0, 3, 0, 5, 0, 3] for x = [1, 2, 3], w = [1, 0, 1], stride 2.
  KernelTest test("ConvTranspose", 11);
  test.input(f32({1, 1, 3}, {1, 2, 3})).initializer(f32({1, 1, 3}, {1, 0, 1}));
  test.attribute("strides", std::vector<int64_t>{2}).attribute("auto_pad", "SAME_UPPER");
  test.output(F::kFloat32, {1, 1, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 6}, {1, 0, 3, 0, 5, 0});
}

TEST(NnConvTransposeKernel, WrongOutputDescIsInvalid) {
  KernelTest test("ConvTranspose", 11);
  test.input(f32({1, 1, 3}, {1, 2, 3})).initializer(f32({1, 1, 2}, {1, 2})).output(F::kFloat32, {1, 1, 5});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

// Empty tensors reach the kernel without an address, as at run time.
TEST(NnConvTransposeKernel, EmptyBatchGivesAnEmptyOutput) {
  KernelTest test("ConvTranspose", 11);
  test.input(f32({0, 1, 2, 3}, {})).initializer(f32({1, 2, 2, 2}, {1, 2, 3, 4, 0, -1, 0.5f, 1}));
  test.output(F::kFloat32, {0, 2, 3, 4}).empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {0, 2, 3, 4}, {});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
