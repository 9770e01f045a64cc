// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear kernel tests. Values by hand
// (rounding is half to even), the dynamic case with numpy in float32 (/usr/bin/python3).

#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace ge::cpu_kernels::testing {
namespace {

using F = DataType;

template <typename T>
Tensor tensor(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector<T>(std::move(dims), values);
}

TEST(NnQuantizeKernel, QuantizeRoundsHalfToEvenAndSaturates) {
  // x / 2 = 0, 0.5, 1.5, -150, 150, 2.5 -> 0, 0, 2, -150, 150, 2; + 128, clamped.
  KernelTest test("QuantizeLinear", 10);
  test.input(f32({6}, {0, 1, 3, -300, 300, 5})).input(f32({}, {2})).input(tensor<uint8_t>({}, {128}));
  test.output(F::kUInt8, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {6}, {128, 128, 130, 0, 255, 130});
}

TEST(NnQuantizeKernel, QuantizeToInt8) {
  KernelTest test("QuantizeLinear", 13);
  test.input(f32({6}, {-0.5f, 0.5f, 1.5f, 2.5f, -200, 200})).input(f32({}, {1})).input(tensor<int8_t>({}, {-1}));
  test.output(F::kInt8, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {6}, {-1, -1, 1, 1, -128, 127});
}

TEST(NnQuantizeKernel, QuantizeWithoutZeroPointIsUint8) {
  KernelTest test("QuantizeLinear", 13);
  test.input(f32({3}, {-1, 7.4f, 1000})).input(f32({}, {1})).output(F::kUInt8, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {3}, {0, 7, 255});
}

TEST(NnQuantizeKernel, QuantizePerAxis) {
  KernelTest test("QuantizeLinear", 13);
  test.input(f32({1, 2, 2}, {1, 2, 3, 4})).input(f32({2}, {1, 0.5f})).input(tensor<uint8_t>({2}, {0, 10}));
  test.output(F::kUInt8, {1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {1, 2, 2}, {1, 2, 16, 18});
}

TEST(NnQuantizeKernel, PerAxisNeedsOpset13) {
  KernelTest test("QuantizeLinear", 10);
  test.input(f32({1, 2}, {1, 2})).input(f32({2}, {1, 0.5f})).output(F::kUInt8, {1, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

TEST(NnQuantizeKernel, DequantizePerAxisInt8) {
  KernelTest test("DequantizeLinear", 13);
  test.input(tensor<int8_t>({2, 2}, {-128, 0, 5, 127})).input(f32({2}, {0.5f, 2})).input(tensor<int8_t>({2}, {-128, 1}));
  test.attribute("axis", int64_t{0}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0, 64, 8, 252});
}

TEST(NnQuantizeKernel, DequantizeInt32WithoutZeroPoint) {
  KernelTest test("DequantizeLinear", 10);
  test.input(i32({3}, {-2, 0, 7})).input(f32({}, {0.25f})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {-0.5f, 0, 1.75f});
}

TEST(NnQuantizeKernel, DynamicQuantize) {
  // Range [-3, 2]: scale 5 / 255, zero point round(3 / scale) = 153.
  KernelTest test("DynamicQuantizeLinear", 11);
  test.input(f32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f}));
  test.output(F::kUInt8, {6}).output(F::kFloat32, {}).output(F::kUInt8, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {6}, {153, 255, 0, 26, 221, 179});
  expect_tensor<float>(out[1], {}, {0.019607844f}, 1e-7);
  expect_tensor<uint8_t>(out[2], {}, {153});
}

TEST(NnQuantizeKernel, DynamicQuantizeAllZeros) {
  // An empty range would divide by zero: the scale is 1, as in ONNX Runtime.
  KernelTest test("DynamicQuantizeLinear", 11);
  test.input(f32({2}, {0, 0})).output(F::kUInt8, {2}).output(F::kFloat32, {}).output(F::kUInt8, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {2}, {0, 0});
  expect_tensor<float>(out[1], {}, {1});
  expect_tensor<uint8_t>(out[2], {}, {0});
}

}  // namespace
}  // namespace ge::cpu_kernels::testing
