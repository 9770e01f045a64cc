// AveragePool kernel tests on x = arange(16) as [1,1,4,4]. Expected values from a naive
// numpy pool (/usr/bin/python3): sum of the taps inside the input divided by their count,
// or with count_include_pad by the taps inside input plus pads; hand checks in comments.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(AveragePoolKernel, CeilModeAveragesThePartialWindow) {
  // (0,0): mean of x[0:3,0:3] = 45/9 = 5; (1,1): mean of x[2:4,2:4] = (10+11+14+15)/4 = 12.5.
  KernelTest test("AveragePool");
  test.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("ceil_mode", int64_t{1})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {5, 6.5f, 11, 12.5f});
}

TEST(AveragePoolKernel, PadsExcludedByDefault) {
  // (0,0) covers x[0:2,0:2] inside the input: (0+1+4+5)/4 = 2.5.
  KernelTest test("AveragePool");
  test.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .output(F::kFloat32, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4, 4},
                       {2.5f, 3, 4, 4.5f, 4.5f, 5, 6, 6.5f, 8.5f, 9, 10, 10.5f, 10.5f, 11, 12, 12.5f});
}

TEST(AveragePoolKernel, CountIncludePad) {
  // (0,0): 10 / 9 = 1.111111 since the five padded taps count.
  KernelTest test("AveragePool");
  test.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .attribute("count_include_pad", int64_t{1})
      .output(F::kFloat32, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(
      out[0], {1, 1, 4, 4},
      {1.111111f, 2, 2.666667f, 2, 3, 5, 6, 4.333333f, 5.666667f, 9, 10, 7, 4.666667f, 7.333333f, 8, 5.555555f}, 1e-6);
}

TEST(AveragePoolKernel, CountIncludePadWithCeilModeCutsAtThePads) {
  // The ceil-mode window (2,2) starts at 3 and reaches 5, one past input + end pad (5):
  // it holds only x[3][3] = 15 with divisor 2 * 2 (taps 3 and 4 per axis): 3.75.
  KernelTest test("AveragePool");
  test.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .attribute("ceil_mode", int64_t{1})
      .attribute("count_include_pad", int64_t{1})
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3},
                       {1.111111f, 2.666667f, 1.666667f, 5.666667f, 10, 5.5f, 4.166667f, 7, 3.75f}, 1e-6);
}

TEST(AveragePoolKernel, AutoPadSameUpperAndLower) {
  // 3x3 at stride 2 on 4x4: one pad per axis, at the end (UPPER) or the beginning (LOWER).
  KernelTest upper("AveragePool");
  upper.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("auto_pad", "SAME_UPPER")
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(upper_out, upper);
  expect_tensor<float>(upper_out[0], {1, 1, 2, 2}, {5, 6.5f, 11, 12.5f});

  KernelTest upper_including("AveragePool");
  upper_including.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("auto_pad", "SAME_UPPER")
      .attribute("count_include_pad", int64_t{1})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(upper_including_out, upper_including);
  expect_tensor<float>(upper_including_out[0], {1, 1, 2, 2}, {5, 4.333333f, 7.333333f, 5.555555f}, 1e-6);

  KernelTest lower("AveragePool");
  lower.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("auto_pad", "SAME_LOWER")
      .attribute("count_include_pad", int64_t{1})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(lower_out, lower);
  expect_tensor<float>(lower_out[0], {1, 1, 2, 2}, {1.111111f, 2.666667f, 5.666667f, 10}, 1e-6);
}

TEST(AveragePoolKernel, Dilations) {
  // (0,0) averages x[0][0], x[0][2], x[2][0], x[2][2] = (0+2+8+10)/4 = 5.
  KernelTest test("AveragePool", 17);
  test.input(f32_iota({1, 1, 4, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("dilations", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {5, 6, 9, 10});
}

TEST(AveragePoolKernel, OneDimensionalFloat64) {
  // [1..5], window 2, stride 2, pad 1 in front: {1}, {2,3}, {4,5} -> 1, 2.5, 4.5.
  KernelTest test("AveragePool");
  test.input(f64({1, 1, 5}, {1, 2, 3, 4, 5}))
      .attribute("kernel_shape", std::vector<int64_t>{2})
      .attribute("strides", std::vector<int64_t>{2})
      .attribute("pads", std::vector<int64_t>{1, 0})
      .output(F::kFloat64, {1, 1, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 3}, {1, 2.5, 4.5}, 1e-15);
}

TEST(AveragePoolKernel, Int32IsUnsupported) {
  KernelTest test("AveragePool");
  test.input(i32({1, 1, 2, 2}, {1, 2, 3, 4}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .output(F::kInt32, {1, 1, 1, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

// Empty tensors reach the kernel without an address, as at run time.
TEST(AveragePoolKernel, EmptyBatchGivesAnEmptyOutput) {
  KernelTest test("AveragePool");
  test.input(f32({0, 2, 4, 4}, {}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {0, 2, 3, 3})
      .empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {0, 2, 3, 3}, {});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
