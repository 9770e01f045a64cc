// Softmax kernel tests on x = (arange(24) % 5 * 0.5) as [2,3,4]. Expected values from
// numpy: e = np.exp(x - x.max(axis, keepdims=True)); e / e.sum(axis, keepdims=True), on x
// (opset 13) or on x.reshape(prod(dims[:axis]), -1) (opsets < 13) (/usr/bin/python3).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor input() {
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>(i % 5) * 0.5f;
  return f32({2, 3, 4}, x);
}

const std::vector<float> kLastAxis = {0.1015363f, 0.1674051f, 0.2760043f, 0.4550542f,  0.5792585f,  0.07839411f,
                                      0.12925f,   0.2130973f, 0.3086676f, 0.5089068f,  0.06887306f, 0.1135525f,
                                      0.1743715f, 0.28749f,   0.4739909f, 0.06414769f, 0.1015363f,  0.1674051f,
                                      0.2760043f, 0.4550542f, 0.1015363f, 0.1674051f,  0.2760043f,  0.4550542f};

TEST(SoftmaxKernel, Opset13DefaultsToTheLastAxis) {
  KernelTest test("Softmax", 13);
  test.input(input()).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4}, kLastAxis, 1e-6);
}

TEST(SoftmaxKernel, Opset13NormalisesOneMiddleAxis) {
  KernelTest test("Softmax", 13);
  test.input(input()).attribute("axis", int64_t{1}).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4}, {0.07769558f, 0.1642516f, 0.5064804f, 0.5064804f,  0.574097f,  0.09962365f,
                                           0.3071959f,  0.3071959f, 0.3482074f, 0.7361248f,  0.1863237f, 0.1863237f,
                                           0.5064804f,  0.5064804f, 0.5064804f, 0.07769558f, 0.3071959f, 0.3071959f,
                                           0.3071959f,  0.574097f,  0.1863237f, 0.1863237f,  0.1863237f, 0.3482074f},
                       1e-6);
}

TEST(SoftmaxKernel, Opset11DefaultAxisOneCoercesTo2D) {
  // Each batch's 12 values are normalised together.
  KernelTest test("Softmax", 11);
  test.input(input()).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4}, {0.02693659f, 0.04441094f, 0.07322126f, 0.1207214f,  0.199036f,   0.02693659f,
                                           0.04441094f, 0.07322126f, 0.1207214f,  0.199036f,   0.02693659f, 0.04441094f,
                                           0.06522499f, 0.1075378f,  0.1772999f,  0.02399493f, 0.03956096f, 0.06522499f,
                                           0.1075378f,  0.1772999f,  0.02399493f, 0.03956096f, 0.06522499f, 0.1075378f},
                       1e-6);
}

TEST(SoftmaxKernel, Opset1WithLastAxisMatchesPerAxis) {
  // Coercing at the last axis gives rows of 4: the same as opset 13's default.
  KernelTest test("Softmax", 1);
  test.input(input()).attribute("axis", int64_t{2}).output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4}, kLastAxis, 1e-6);
}

TEST(SoftmaxKernel, LargeValuesDoNotOverflow) {
  // exp(1000) overflows; subtracting the maximum first gives softmax([0, 1, 2]).
  KernelTest test("Softmax", 13);
  test.input(f32({3}, {1000, 1001, 1002})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {0.09003057f, 0.2447285f, 0.6652409f}, 1e-6);
}

TEST(SoftmaxKernel, AxisOutOfRangeIsInvalid) {
  KernelTest test("Softmax", 13);
  test.input(input()).attribute("axis", int64_t{3}).output(F::kFloat32, {2, 3, 4});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("attribute 'axis'"), std::string::npos) << kernel.status().message();
}

TEST(LogSoftmaxKernel, RowsAndLargeValues) {
  // x - max - log(sum(exp(x - max))) per row of [[1,2,3],[3,2,1]] (numpy).
  KernelTest test("LogSoftmax", 13);
  test.input(f32({2, 3}, {1, 2, 3, 3, 2, 1})).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {-2.4076061f, -1.4076060f, -0.4076060f, -0.4076060f, -1.4076060f, -2.4076061f});
  KernelTest large("LogSoftmax", 13);
  large.input(f32({2}, {10000, 10000})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(large_out, large);
  expect_tensor<float>(large_out[0], {2}, {-0.6931472f, -0.6931472f});
}

TEST(HardmaxKernel, FirstMaximumPerAxisAndOldCoercion) {
  // Opset 13 along axis 0 of [[1,3],[3,3]]: column 0 -> row 1, column 1 -> row 0 (first).
  KernelTest test("Hardmax", 13);
  test.input(f32({2, 2}, {1, 3, 3, 3})).attribute("axis", int64_t{0}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0, 1, 1, 0});
  // Opset 11 with axis 0 coerces to one row of 4: only the first 3 is marked.
  KernelTest old("Hardmax", 11);
  old.input(f32({2, 2}, {1, 3, 3, 3})).attribute("axis", int64_t{0}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(old_out, old);
  expect_tensor<float>(old_out[0], {2, 2}, {0, 1, 0, 0});
}

TEST(SoftmaxKernel, Float16RoundTrips) {
  // softmax([0, ln 3]) = [0.25, 0.75], both exact in float16 (0x3400, 0x3a00).
  Tensor x = Tensor::zeros(F::kFloat16, {2});
  x.data<uint16_t>()[0] = 0x0000;
  x.data<uint16_t>()[1] = 0x3c65;  // float16 nearest to ln 3 = 1.0986: 1.0986328
  KernelTest test("Softmax", 13);
  test.input(x).output(F::kFloat16, {2});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(out[0].data<uint16_t>()[0], 0x3400);
  EXPECT_EQ(out[0].data<uint16_t>()[1], 0x3a00);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
