// ConvInteger / QLinearConv / MatMulInteger / QLinearMatMul kernel tests. Values by
// hand, with numpy (/usr/bin/python3) for the matmuls; the QLinearMatMul case is the
// example of the ONNX operator documentation.

#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace ge::cpu_kernels::testing {
namespace {

using F = DataType;

template <typename T>
Tensor tensor(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector<T>(std::move(dims), values);
}

TEST(NnQuantizedOpsKernel, ConvIntegerPadsWithTheZeroPoint) {
  // x - 1 = [[1,2,3],[4,5,6],[7,8,9]] padded with zeros, summed over 2x2 windows.
  KernelTest test("ConvInteger", 10);
  test.input(tensor<uint8_t>({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10}))
      .initializer(tensor<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1}))
      .input(tensor<uint8_t>({}, {1}))
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .output(F::kInt32, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {1, 1, 4, 4}, {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9});
}

TEST(NnQuantizedOpsKernel, ConvIntegerInt8WeightsPerChannelZeroPoint) {
  // x = [1, 2] (1x1 spatial, 2 channels); w[m] = [[3, -4], [5, 6]] minus zp [1, 5]:
  // m0: 1*2 + 2*-5 = -8, m1: 1*0 + 2*1 = 2.
  KernelTest test("ConvInteger", 10);
  test.input(tensor<uint8_t>({1, 2, 1, 1}, {1, 2}))
      .initializer(tensor<int8_t>({2, 2, 1, 1}, {3, -4, 5, 6}))
      .no_input()
      .initializer(tensor<int8_t>({2}, {1, 5}))
      .output(F::kInt32, {1, 2, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {1, 2, 1, 1}, {-8, 2});
}

TEST(NnQuantizedOpsKernel, QLinearConvPerChannelWithBias) {
  // x - 10 = [0, 10, 20, 30]; channel 0: w 2, bias 5, multiplier 0.5 * 0.25 / 0.25 = 0.5
  // -> 2.5, 12.5, 22.5, 32.5 round to even 2, 12, 22, 32, then - 5.
  // Channel 1: w -3 - 1 = -4, bias -2, multiplier 2 -> -4, -84, -164, -244, - 5, clamped.
  KernelTest test("QLinearConv", 10);
  test.input(tensor<uint8_t>({1, 1, 2, 2}, {10, 20, 30, 40}))
      .input(f32({}, {0.5f}))
      .input(tensor<uint8_t>({}, {10}))
      .initializer(tensor<int8_t>({2, 1, 1, 1}, {2, -3}))
      .input(f32({2}, {0.25f, 1}))
      .input(tensor<int8_t>({2}, {0, 1}))
      .input(f32({}, {0.25f}))
      .input(tensor<int8_t>({}, {-5}))
      .initializer(i32({2}, {5, -2}))
      .output(F::kInt8, {1, 2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {1, 2, 2, 2}, {-3, 7, 17, 27, -9, -89, -128, -128});
}

TEST(NnQuantizedOpsKernel, MatMulIntegerPerRowAndColumnZeroPoints) {
  KernelTest test("MatMulInteger", 10);
  test.input(tensor<int8_t>({2, 3}, {-1, 2, 3, 4, -5, 6}))
      .input(tensor<uint8_t>({3, 2}, {1, 2, 3, 4, 250, 6}))
      .input(tensor<int8_t>({2}, {1, -2}))
      .input(tensor<uint8_t>({2}, {3, 0}))
      .output(F::kInt32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 2}, {498, 12, 1964, 48});
}

TEST(NnQuantizedOpsKernel, MatMulIntegerBroadcastsBatch) {
  // A [2, 1, 2] x B [2, 1]: [1, 2] . [3, 4] = 11 and [-1, 0] . [3, 4] = -3.
  KernelTest test("MatMulInteger", 10);
  test.input(tensor<int8_t>({2, 1, 2}, {1, 2, -1, 0})).input(tensor<int8_t>({2, 1}, {3, 4}));
  test.output(F::kInt32, {2, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 1, 1}, {11, -3});
}

TEST(NnQuantizedOpsKernel, QLinearMatMulDocumentationExample) {
  KernelTest test("QLinearMatMul", 10);
  test.input(tensor<uint8_t>({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}))
      .input(f32({}, {0.0066f}))
      .input(tensor<uint8_t>({}, {113}))
      .input(tensor<uint8_t>({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}))
      .input(f32({}, {0.00705f}))
      .input(tensor<uint8_t>({}, {114}))
      .input(f32({}, {0.0107f}))
      .input(tensor<uint8_t>({}, {118}))
      .output(F::kUInt8, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {2, 3}, {168, 115, 255, 1, 66, 151});
}

TEST(NnQuantizedOpsKernel, MismatchedZeroPointIsInvalid) {
  KernelTest test("MatMulInteger", 10);
  test.input(tensor<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6}))
      .input(tensor<uint8_t>({3, 1}, {1, 2, 3}))
      .input(tensor<uint8_t>({3}, {0, 0, 0}))
      .output(F::kInt32, {2, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("a_zero_point"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::cpu_kernels::testing
