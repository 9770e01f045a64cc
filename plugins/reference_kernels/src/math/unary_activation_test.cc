// Activation kernel tests. Expected values from numpy (/usr/bin/python3) evaluating the
// ONNX formula quoted in each test in float64 on the float32 inputs, rounded to 7-9
// digits: e.g. Sigmoid 1 / (1 + np.exp(-x)), Tanh np.tanh(x).

#include <gtest/gtest.h>

#include <limits>

#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
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

// x = [-2, -0.5, 0, 0.5, 2, 10] for the activations below.
Tensor activation_input() { return f32({6}, {-2, -0.5f, 0, 0.5f, 2, 10}); }

TEST(UnaryActivationKernel, LeakyReluWithAlpha) {
  // np.where(x < 0, 0.1 * x, x)
  KernelTest test("LeakyRelu");
  test.input(activation_input()).attribute("alpha", 0.1f).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-0.2f, -0.05f, 0, 0.5f, 2, 10}, 1e-6);
}

TEST(UnaryActivationKernel, LeakyReluDefaultAlpha) {
  KernelTest test("LeakyRelu");
  test.input(f32({2}, {-3, 3})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2}, {-0.03f, 3}, 1e-6);
}

TEST(UnaryActivationKernel, EluWithAlpha) {
  // np.where(x < 0, 2 * (np.exp(x) - 1), x)
  KernelTest test("Elu");
  test.input(activation_input()).attribute("alpha", 2.0f).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-1.729329434f, -0.786938681f, 0, 0.5f, 2, 10}, 1e-6);
}

TEST(UnaryActivationKernel, SeluDefaults) {
  // alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875:
  // np.where(x <= 0, gamma * (alpha * np.exp(x) - alpha), gamma * x)
  KernelTest test("Selu");
  test.input(activation_input()).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-1.520166473f, -0.69175819f, 0, 0.525350511f, 2.101402044f, 10.50701046f},
                       1e-6);
}

TEST(UnaryActivationKernel, CeluWithAlpha) {
  // np.maximum(0, x) + np.minimum(0, 2 * (np.exp(x / 2) - 1))
  KernelTest test("Celu");
  test.input(activation_input()).attribute("alpha", 2.0f).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-1.264241118f, -0.442398434f, 0, 0.5f, 2, 10}, 1e-6);
}

TEST(UnaryActivationKernel, CeluZeroAlphaIsInvalid) {
  KernelTest test("Celu");
  test.input(activation_input()).attribute("alpha", 0.0f).output(F::kFloat32, {6});
  expect_prepare_error(test, StatusCode::kInvalidArgument, "attribute 'alpha'");
}

TEST(UnaryActivationKernel, HardSigmoidDefaults) {
  // np.clip(0.2 * x + 0.5, 0, 1)
  KernelTest test("HardSigmoid");
  test.input(activation_input()).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {0.1f, 0.4f, 0.5f, 0.6f, 0.9f, 1}, 1e-6);
}

TEST(UnaryActivationKernel, HardSwish) {
  // x * np.clip(x / 6 + 0.5, 0, 1)
  KernelTest test("HardSwish");
  test.input(activation_input()).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-0.3333333f, -0.20833333f, 0, 0.29166666f, 1.6666667f, 10}, 1e-6);
}

TEST(UnaryActivationKernel, ThresholdedRelu) {
  // np.where(x > 0.5, x, 0): the threshold itself maps to 0
  KernelTest test("ThresholdedRelu");
  test.input(activation_input()).attribute("alpha", 0.5f).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {0, 0, 0, 0, 2, 10});
}

TEST(UnaryActivationKernel, SoftplusAndSoftsign) {
  // np.log(np.exp(x) + 1) and x / (1 + np.abs(x))
  KernelTest softplus("Softplus");
  softplus.input(activation_input()).output(F::kFloat32, {6});
  GE_RUN_KERNEL(plus, softplus);
  expect_tensor<float>(plus[0], {6},
                       {0.126928011f, 0.474076984f, 0.693147181f, 0.974076984f, 2.126928011f, 10.000045399f}, 1e-6);
  KernelTest softsign("Softsign");
  softsign.input(activation_input()).output(F::kFloat32, {6});
  GE_RUN_KERNEL(sign, softsign);
  expect_tensor<float>(sign[0], {6}, {-0.6666667f, -0.33333334f, 0, 0.33333334f, 0.6666667f, 0.90909094f}, 1e-6);
}

TEST(UnaryActivationKernel, SoftplusDoesNotOverflow) {
  // log(exp(100) + 1) = 100 (+ 4e-44); exp(100) alone overflows float32.
  KernelTest test("Softplus");
  test.input(f32({2}, {100, -100})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2}, {100, 3.720076e-44f}, 1e-6);
}

TEST(UnaryActivationKernel, Mish) {
  // x * np.tanh(np.log1p(np.exp(x)))
  KernelTest test("Mish", 18);
  test.input(activation_input()).output(F::kFloat32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {6}, {-0.252501483f, -0.220743775f, 0, 0.375245211f, 1.94395896f, 9.999999959f},
                       1e-6);
}

TEST(UnaryActivationKernel, ShrinkFloatAndInteger) {
  // x < -lambd ? x + bias : x > lambd ? x - bias : 0 with lambd 1.5, bias 0.5
  KernelTest floats("Shrink");
  floats.input(f32({5}, {-2, -1.5f, 0, 1, 3})).attribute("lambd", 1.5f).attribute("bias", 0.5f).output(F::kFloat32,
                                                                                                        {5});
  GE_RUN_KERNEL(float_out, floats);
  expect_tensor<float>(float_out[0], {5}, {-1.5f, 0, 0, 0, 2.5f});
  // int32: -2 + 0.5 = -1.5 and 3 - 0.5 = 2.5 truncate to -1 and 2.
  KernelTest ints("Shrink");
  ints.input(i32({5}, {-2, -1, 0, 1, 3})).attribute("lambd", 1.5f).attribute("bias", 0.5f).output(F::kInt32, {5});
  GE_RUN_KERNEL(int_out, ints);
  expect_tensor<int32_t>(int_out[0], {5}, {-1, 0, 0, 0, 2});
}

TEST(UnaryActivationKernel, ReluFloat16AndBFloat16) {
  // float16 bits: -1.5 = 0xbe00, 2.5 = 0x4100; bfloat16: -1.5 = 0xbfc0, 2.5 = 0x4020
  KernelTest half("Relu");
  half.input(half_bits(F::kFloat16, {3}, {0xbe00, 0x4100, 0x8000})).output(F::kFloat16, {3});
  GE_RUN_KERNEL(half_out, half);
  expect_half_bits(half_out[0], F::kFloat16, {3}, {0x0000, 0x4100, 0x8000});
  KernelTest brain("Relu");
  brain.input(half_bits(F::kBFloat16, {2}, {0xbfc0, 0x4020})).output(F::kBFloat16, {2});
  GE_RUN_KERNEL(brain_out, brain);
  expect_half_bits(brain_out[0], F::kBFloat16, {2}, {0x0000, 0x4020});
}

TEST(UnaryActivationKernel, SigmoidFloat16) {
  // np.float16(1 / (1 + np.exp(-np.float16([0, 2])))) -> 0.5 (0x3800), 0.8809 (0x3b0c)
  KernelTest test("Sigmoid");
  test.input(half_bits(F::kFloat16, {2}, {0x0000, 0x4000})).output(F::kFloat16, {2});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kFloat16, {2}, {0x3800, 0x3b0c});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
