// Relu/Sigmoid/Tanh kernel tests. Sigmoid and Tanh values from numpy
// (1 / (1 + np.exp(-x)), np.tanh(x) in float64, /usr/bin/python3), rounded to 7 digits.

#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace ge::cpu_kernels::testing {
namespace {

using F = DataType;

TEST(UnaryActivationKernel, ReluFloat32) {
  KernelTest test("Relu");
  test.input(f32({2, 3}, {-2, -0.5f, 0, 0.5f, 2, 10})).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {0, 0, 0, 0.5f, 2, 10});
}

TEST(UnaryActivationKernel, ReluInt32AndFloat64) {
  KernelTest ints("Relu");
  ints.input(i32({4}, {-3, 0, 3, -1})).output(F::kInt32, {4});
  GE_RUN_KERNEL(int_out, ints);
  expect_tensor<int32_t>(int_out[0], {4}, {0, 0, 3, 0});
  KernelTest doubles("Relu");
  doubles.input(f64({2}, {-1e300, 1e300})).output(F::kFloat64, {2});
  GE_RUN_KERNEL(double_out, doubles);
  expect_tensor<double>(double_out[0], {2}, {0, 1e300});
}

TEST(UnaryActivationKernel, Sigmoid) {
  KernelTest test("Sigmoid");
  test.input(f32({6}, {-2, -0.5f, 0, 0.5f, 2, 10})).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {0.1192029f, 0.3775407f, 0.5f, 0.6224593f, 0.8807971f, 0.9999546f}, 1e-6);
}

TEST(UnaryActivationKernel, SigmoidSaturatesWithoutNaN) {
  // exp(100) overflows float32 to inf; 1 / (1 + inf) is still the right limit 0.
  KernelTest test("Sigmoid");
  test.input(f32({2}, {-100, 100})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2}, {0, 1}, 1e-7);
}

TEST(UnaryActivationKernel, Tanh) {
  KernelTest test("Tanh");
  test.input(f32({6}, {-2, -0.5f, 0, 0.5f, 2, 10})).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-0.9640276f, -0.4621172f, 0, 0.4621172f, 0.9640276f, 1}, 1e-6);
}

TEST(UnaryActivationKernel, SigmoidOnIntegersIsUnsupported) {
  KernelTest test("Sigmoid");
  test.input(i32({1}, {1})).output(F::kInt32, {1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("supported: float32, float64"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ge::cpu_kernels::testing
