// LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization and
// LpNormalization kernel tests. Expected values from numpy formulas of the ONNX spec
// (/usr/bin/python3), or by hand where shown.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/nn_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(NnLayerNormalizationKernel, AxisOneWithBroadcastParametersAndStatistics) {
  KernelTest test("LayerNormalization", 17);
  test.input(f32({2, 3, 2}, {1, 2, 4, 8, 16, 32, -1, 0, 1, 2, 3, 5}))
      .initializer(f32({2}, {0.5f, 2}))
      .initializer(f32({3, 1}, {1, 0, -1}))
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {2, 3, 2})
      .output(F::kFloat32, {2, 1, 1})
      .output(F::kFloat32, {2, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 2},
                       {0.5613308f, -0.5699741f, -0.3001421f, -0.4617571f, -0.7460336f, 2.971111f, 0.3238775f,
                        -0.6903063f, -0.1690306f, 0.3380613f, -0.6619387f, 2.380613f});
  expect_tensor<float>(out[1], {2, 1, 1}, {10.5f, 1.666667f});
  expect_tensor<float>(out[2], {2, 1, 1}, {0.09235142f, 0.5070919f});
}

TEST(NnLayerNormalizationKernel, Float16) {
  // Row [1, 3]: mean 2, variance 1 -> [-1, 1] with epsilon 0. float16 bit patterns:
  // 1.0 = 0x3c00, 3.0 = 0x4200, -1.0 = 0xbc00.
  KernelTest test("LayerNormalization", 17);
  test.input(float16_bits({1, 2}, {0x3c00, 0x4200}))
      .initializer(float16_bits({2}, {0x3c00, 0x3c00}))
      .attribute("epsilon", 0.0f)
      .output(F::kFloat16, {1, 2});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(bits_of(out[0]), (std::vector<uint16_t>{0xbc00, 0x3c00}));
}

TEST(NnInstanceNormalizationKernel, Epsilon) {
  KernelTest test("InstanceNormalization", 6);
  test.input(f32({2, 2, 3}, {1, 2, 3, 2, 4, 9, -1, -1, -1, 0, 1, 0}))
      .initializer(f32({2}, {1.5f, -1}))
      .initializer(f32({2}, {0.5f, 2}))
      .attribute("epsilon", 0.01f)
      .output(F::kFloat32, {2, 2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2, 3},
                       {-1.323492f, 0.5f, 2.323492f, 3.018462f, 2.339487f, 0.6420508f, 0.5f, 0.5f, 0.5f, 2.691714f,
                        0.6165711f, 2.691714f});
}

TEST(NnLrnKernel, OddSize) {
  KernelTest test("LRN", 13);
  test.input(f32_iota({1, 4, 1, 2}, 1))
      .attribute("size", int64_t{3})
      .attribute("alpha", 0.1f)
      .attribute("bias", 2.0f)
      .output(F::kFloat32, {1, 4, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 4, 1, 2},
                       {0.5296847f, 0.9584147f, 1.263774f, 1.450633f, 1.549919f, 1.591687f, 2.278297f, 2.279507f});
}

TEST(NnLrnKernel, EvenSizeSumsMoreChannelsAfter) {
  KernelTest test("LRN", 13);
  test.input(f32_iota({1, 4, 1, 2}, 1))
      .attribute("size", int64_t{4})
      .attribute("alpha", 0.1f)
      .attribute("bias", 2.0f)
      .output(F::kFloat32, {1, 4, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 4, 1, 2},
                       {0.4529201f, 0.7987683f, 1.041198f, 1.196279f, 1.743309f, 1.821815f, 2.546845f, 2.589289f});
}

TEST(NnMeanVarianceNormalizationKernel, Axes) {
  KernelTest test("MeanVarianceNormalization", 13);
  test.input(f32({2, 3}, {1, 2, 6, 0, 0, 3})).attribute("axes", std::vector<int64_t>{1}).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {-0.9258201f, -0.46291f, 1.38873f, -0.7071068f, -0.7071068f, 1.414214f});
}

TEST(NnMeanVarianceNormalizationKernel, DefaultAxesKeepChannels) {
  KernelTest test("MeanVarianceNormalization", 13);
  test.input(f32({3, 2, 2, 1}, {0, 1, 2.828427f, 5.196152f, 8, 11.18034f, 14.69694f, 18.52026f, 22.62742f, 27,
                                31.62278f, 36.48287f}))
      .output(F::kFloat32, {3, 2, 2, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 2, 2, 1},
                       {-1.145641f, -1.047172f, -1.235195f, -1.045238f, -0.3578951f, -0.04473275f, -0.2830132f,
                        0.02372232f, 1.08244f, 1.513001f, 1.074905f, 1.464818f},
                       1e-5);
}

TEST(NnLpNormalizationKernel, L2LastAxisLeavesZeroRows) {
  KernelTest test("LpNormalization", 1);
  test.input(f32({3, 2}, {3, 4, -1, 1, 0, 0})).output(F::kFloat32, {3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 2}, {0.6f, 0.8f, -0.7071068f, 0.7071068f, 0, 0});
}

TEST(NnLpNormalizationKernel, L1AxisZero) {
  KernelTest test("LpNormalization", 1);
  test.input(f32({3, 2}, {3, 4, -1, 1, 0, 0})).attribute("axis", int64_t{0}).attribute("p", int64_t{1});
  test.output(F::kFloat32, {3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 2}, {0.75f, 0.8f, -0.25f, 0.2f, 0, 0});
}

TEST(NnLpNormalizationKernel, RejectsP3) {
  KernelTest test("LpNormalization", 1);
  test.input(f32({2}, {3, 4})).attribute("p", int64_t{3}).output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
