// GlobalMaxPool, GlobalLpPool, LpPool and MaxUnpool kernel tests; values by hand.

#include <gtest/gtest.h>

#include "pooling/registration.h"
#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(NnGlobalPoolKernel, GlobalMaxPool) {
  KernelTest test("GlobalMaxPool", 1);
  test.input(f32({1, 2, 2, 2}, {1, -5, 3, 2, -1, -2, -3, -4})).output(F::kFloat32, {1, 2, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 1, 1}, {3, -1});
}

TEST(NnGlobalPoolKernel, GlobalLpPoolDefaultP2) {
  // sqrt(3^2 + 4^2) = 5; sqrt(1 + 4 + 4 + 16) = 5.
  KernelTest test("GlobalLpPool", 2);
  test.input(f32({1, 2, 2}, {3, -4, 1, 2})).output(F::kFloat32, {1, 2, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 1}, {5, 2.236068f});
}

TEST(NnGlobalPoolKernel, GlobalLpPoolP1) {
  KernelTest test("GlobalLpPool", 2);
  test.input(f32({1, 1, 3}, {3, -4, 1})).attribute("p", int64_t{1}).output(F::kFloat32, {1, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1}, {8});
}

TEST(NnLpPoolKernel, StridedWithPads) {
  // x = [3, 4, 0, 5], kernel 2, stride 2, pads [1, 1]: windows [pad, 3], [4, 0], [5, pad].
  KernelTest test("LpPool", 11);
  test.input(f32({1, 1, 4}, {3, 4, 0, 5}))
      .attribute("kernel_shape", std::vector<int64_t>{2})
      .attribute("strides", std::vector<int64_t>{2})
      .attribute("pads", std::vector<int64_t>{1, 1})
      .output(F::kFloat32, {1, 1, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3}, {3, 4, 5});
}

TEST(NnLpPoolKernel, TwoDimensionalP1) {
  KernelTest test("LpPool", 11);
  test.input(f32({1, 1, 2, 3}, {1, -2, 3, -4, 5, -6}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("p", int64_t{1})
      .output(F::kFloat32, {1, 1, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 2}, {12, 16});
}

TEST(NnMaxUnpoolKernel, ScattersIntoDefaultShape) {
  // (2 - 1) * 2 + 2 = 4 per axis; indices are flat positions in the whole output.
  KernelTest test("MaxUnpool", 11);
  test.input(f32({1, 1, 2, 2}, {5, 6, 7, 8}))
      .input(i64({1, 1, 2, 2}, {5, 7, 13, 15}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4, 4}, {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8});
}

TEST(NnMaxUnpoolKernel, OutputShapeHoldsTheInferredTensorAtItsStart) {
  // Inferred shape [1, 1, 2, 2]: index 3 is (1, 1), which lands at (1, 1) of the 3x3
  // output, flat 4 (the ONNX reference's semantics).
  KernelTest test("MaxUnpool", 11);
  test.input(f32({1, 1, 1, 1}, {7}))
      .input(i64({1, 1, 1, 1}, {3}))
      .input(i64({4}, {1, 1, 3, 3}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {0, 0, 0, 0, 7, 0, 0, 0, 0});
}

TEST(NnMaxUnpoolKernel, OutputShapeSmallerThanInferredIsInvalid) {
  KernelTest test("MaxUnpool", 11);
  test.input(f32({1, 1, 1, 1}, {7}))
      .input(i64({1, 1, 1, 1}, {3}))
      .input(i64({4}, {1, 1, 1, 1}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 1, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("smaller than the unpooled shape"), std::string::npos)
      << kernel.status().message();
}

TEST(NnMaxUnpoolKernel, IndexOutOfRangeIsReportedAtLaunch) {
  KernelTest test("MaxUnpool", 11);
  test.input(f32({1, 1, 1, 1}, {5}))
      .input(i64({1, 1, 1, 1}, {2}))
      .attribute("kernel_shape", std::vector<int64_t>{1, 2})
      .attribute("strides", std::vector<int64_t>{1, 2})
      .output(F::kFloat32, {1, 1, 1, 2});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, kKernelIndexOutOfRange);
}

// Empty tensors reach the kernel without an address, as at run time.
TEST(NnGlobalPoolKernel, EmptyBatchGivesAnEmptyOutput) {
  for (const char* op : {"GlobalMaxPool", "GlobalLpPool", "GlobalAveragePool"}) {
    KernelTest test(op, 2);
    test.input(f32({0, 2, 3, 3}, {})).output(F::kFloat32, {0, 2, 1, 1}).empty_tensors_without_address();
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {0, 2, 1, 1}, {});
  }
}

TEST(NnLpPoolKernel, EmptyBatchGivesAnEmptyOutput) {
  KernelTest test("LpPool", 11);
  test.input(f32({0, 1, 4, 4}, {}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {0, 1, 3, 3})
      .empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {0, 1, 3, 3}, {});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
