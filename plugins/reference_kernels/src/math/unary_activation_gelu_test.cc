// Gelu-20 kernel tests. Expected values from numpy (/usr/bin/python3) evaluating the
// formulas of the ONNX spec in float64 on the float32 inputs:
//   0.5 * x * (1 + math.erf(x / sqrt(2)))  and
//   0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
// float16 bits from np.float16(value).view(np.uint16).

#include <gtest/gtest.h>

#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

TEST(UnaryActivationKernel, GeluExactFloat32) {
  KernelTest test("Gelu", 20);
  test.input(f32({2, 4}, {-3, -1, -0.5f, 0, 0.5f, 1, 2, 4})).output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4},
                       {-0.0040496941f, -0.15865525f, -0.15426877f, 0, 0.34573123f, 0.84134475f, 1.9544997f,
                        3.9998733f},
                       1e-6);
}

TEST(UnaryActivationKernel, GeluTanhFloat64) {
  KernelTest test("Gelu", 20);
  test.input(f64({8}, {-3, -1, -0.5, 0, 0.5, 1, 2, 4}))
      .attribute("approximate", "tanh")
      .output(F::kFloat64, {8});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {8},
                        {-0.0036373921, -0.15880801, -0.15428599, 0, 0.34571401, 0.84119199, 1.9545977, 3.9999298},
                        1e-7);
}

TEST(UnaryActivationKernel, GeluFloat16) {
  // -1 = 0xbc00, 0.5 = 0x3800, 2 = 0x4000.
  KernelTest test("Gelu", 20);
  test.input(half_bits(F::kFloat16, {3}, {0xbc00, 0x3800, 0x4000})).output(F::kFloat16, {3});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kFloat16, {3}, {0xb114, 0x3588, 0x3fd1});
}

TEST(UnaryActivationKernel, GeluRejectsUnknownApproximation) {
  KernelTest test("Gelu", 20);
  test.input(f32({1}, {1})).attribute("approximate", "sigmoid").output(F::kFloat32, {1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("approximate"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
