// Kernels of the "ge" domain ops and LayerNormalization. Expected values are
// hand-computed (the arithmetic is in the comments) or computed with numpy / math.erf.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "ge/reference_kernels/kernel_library.h"
#include "testing/kernel_test_util.h"

namespace ge::reference_kernels {
namespace {

using testing::expect_tensor;
using testing::f32;
using testing::f64;
using testing::KernelTest;

/// A KernelTest whose node is in the "ge" domain.
KernelTest& in_ge_domain(KernelTest& test) {
  test.node().set_domain("ge");
  return test;
}

// X channels c0 = [1, -2], c1 = [3, 4]; W = [[1, 1], [1, -1]] (1x1): y0 = c0 + c1 = [4, 2],
// y1 = c0 - c1 = [-2, -6]; + B 0.5 -> [4.5, 2.5, -1.5, -5.5].
std::unique_ptr<KernelTest> fused_conv(const std::string& activation, std::vector<float> params) {
  auto made = std::make_unique<KernelTest>("FusedConv");
  KernelTest& test = *made;
  test.input(f32({1, 2, 1, 2}, {1, -2, 3, 4}))
      .initializer(f32({2, 2, 1, 1}, {1, 1, 1, -1}))
      .initializer(f32({2}, {0.5f, 0.5f}))
      .attribute("activation", activation)
      .output(DataType::kFloat32, {1, 2, 1, 2});
  if (!params.empty()) test.attribute("activation_params", params);
  return made;
}

TEST(FusedKernels, FusedConvAppliesTheActivation) {
  auto relu = fused_conv("Relu", {});
  GE_RUN_KERNEL(relu_out, in_ge_domain(*relu));
  expect_tensor<float>(relu_out[0], {1, 2, 1, 2}, {4.5f, 2.5f, 0.f, 0.f});
  auto leaky = fused_conv("LeakyRelu", {0.1f});
  GE_RUN_KERNEL(leaky_out, in_ge_domain(*leaky));
  expect_tensor<float>(leaky_out[0], {1, 2, 1, 2}, {4.5f, 2.5f, -0.15f, -0.55f});
  auto none = fused_conv("", {});
  GE_RUN_KERNEL(none_out, in_ge_domain(*none));
  expect_tensor<float>(none_out[0], {1, 2, 1, 2}, {4.5f, 2.5f, -1.5f, -5.5f});
  auto kernel = relu->prepare();
  ASSERT_TRUE(kernel.is_ok());
  EXPECT_EQ(kernel->name, "cpu.FusedConv.pointwise");
}

TEST(FusedKernels, FusedGemmClipAndHardSigmoid) {
  // A [1, 2] = [1, 2]; B = [[1, 0], [0, -1]] -> [1, -2]; + C [1, 1] -> [2, -1].
  auto gemm = [](const std::string& activation, std::vector<float> params) {
    auto made = std::make_unique<KernelTest>("FusedGemm");
    KernelTest& test = *made;
    test.input(f32({1, 2}, {1, 2}))
        .initializer(f32({2, 2}, {1, 0, 0, -1}))
        .initializer(f32({2}, {1, 1}))
        .attribute("activation", activation)
        .attribute("activation_params", params)
        .output(DataType::kFloat32, {1, 2});
    return made;
  };
  auto clip = gemm("Clip", {0.f, 1.5f});
  GE_RUN_KERNEL(clip_out, in_ge_domain(*clip));
  expect_tensor<float>(clip_out[0], {1, 2}, {1.5f, 0.f});
  // HardSigmoid(0.2 x + 0.5): [0.9, 0.3].
  auto hard = gemm("HardSigmoid", {0.2f, 0.5f});
  GE_RUN_KERNEL(hard_out, in_ge_domain(*hard));
  expect_tensor<float>(hard_out[0], {1, 2}, {0.9f, 0.3f});
}

// A fused activation keeps NaN as the standalone op does (Relu's `y > 0 ? y : 0` and
// HardSigmoid's std::min/max turned it into 0 and 1: -O3 differed from -O0).
TEST(FusedKernels, FusedActivationsKeepNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::string activation : {"Relu", "HardSigmoid", "LeakyRelu", "Clip"}) {
    KernelTest test("FusedGemm");
    // Row 0 is all NaN; row 1: [1, 2] x [[1, 0], [0, -1]] + [1, 1] = [2, -1].
    test.input(f32({2, 2}, {nan, nan, 1, 2}))
        .initializer(f32({2, 2}, {1, 0, 0, -1}))
        .initializer(f32({2}, {1, 1}))
        .attribute("activation", activation)
        .output(DataType::kFloat32, {2, 2});
    if (activation == "HardSigmoid") test.attribute("activation_params", std::vector<float>{0.2f, 0.5f});
    if (activation == "LeakyRelu") test.attribute("activation_params", std::vector<float>{0.1f});
    if (activation == "Clip") test.attribute("activation_params", std::vector<float>{0.f, 1.5f});
    GE_RUN_KERNEL(out, in_ge_domain(test));
    for (int i = 0; i < 2; ++i) EXPECT_TRUE(std::isnan(out[0].data<float>()[i])) << activation << " " << i;
    for (int i = 2; i < 4; ++i) EXPECT_FALSE(std::isnan(out[0].data<float>()[i])) << activation << " " << i;
  }
}

TEST(FusedKernels, FusedMatMulAddsABroadcastBias) {
  // A [2, 1, 2] = [[1, 2]], [[3, 4]]; B [2, 1] = ones -> [[3]], [[7]]; + bias [-5] ->
  // [-2, 2]; Sigmoid -> [0.11920292, 0.88079708].
  KernelTest sigmoid("FusedMatMul");
  sigmoid.input(f32({2, 1, 2}, {1, 2, 3, 4}))
      .initializer(f32({2, 1}, {1, 1}))
      .initializer(f32({1}, {-5}))
      .attribute("activation", "Sigmoid")
      .output(DataType::kFloat32, {2, 1, 1});
  GE_RUN_KERNEL(sigmoid_out, in_ge_domain(sigmoid));
  expect_tensor<float>(sigmoid_out[0], {2, 1, 1}, {0.11920292f, 0.88079708f});
  // A = I (2x2), B [2, 3] = [[1, 2, 3], [4, 5, 6]]; + bias [3] = [10, 20, 30] per row.
  KernelTest rows("FusedMatMul");
  rows.input(f32({1, 2, 2}, {1, 0, 0, 1}))
      .initializer(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
      .initializer(f32({3}, {10, 20, 30}))
      .output(DataType::kFloat32, {1, 2, 3});
  GE_RUN_KERNEL(rows_out, in_ge_domain(rows));
  expect_tensor<float>(rows_out[0], {1, 2, 3}, {11, 22, 33, 14, 25, 36});
  KernelTest bad("FusedMatMul");
  bad.input(f32({2, 2}, {1, 0, 0, 1})).initializer(f32({2, 2}, {1, 2, 3, 4})).initializer(f32({3}, {1, 2, 3}));
  bad.output(DataType::kFloat32, {2, 2});
  auto prepared = in_ge_domain(bad).prepare();
  ASSERT_FALSE(prepared.is_ok());
  EXPECT_NE(prepared.status().message().find("bias [3] does not broadcast to the product [2,2]"), std::string::npos)
      << prepared.status().message();
}

TEST(FusedKernels, GeluExactAndTanh) {
  // 0.5 x (1 + erf(x / sqrt 2)) and the tanh form, from Python's math module.
  KernelTest exact("Gelu");
  exact.input(f32({4}, {-1, 0, 0.5f, 2})).output(DataType::kFloat32, {4});
  GE_RUN_KERNEL(exact_out, in_ge_domain(exact));
  expect_tensor<float>(exact_out[0], {4}, {-0.15865525f, 0.f, 0.34573123f, 1.95449974f});
  KernelTest tanh("Gelu");
  tanh.input(f32({4}, {-1, 0, 0.5f, 2})).attribute("approximate", "tanh").output(DataType::kFloat32, {4});
  GE_RUN_KERNEL(tanh_out, in_ge_domain(tanh));
  expect_tensor<float>(tanh_out[0], {4}, {-0.15880801f, 0.f, 0.34571401f, 1.95459769f});
}

TEST(FusedKernels, SwishIsTheProductWithTheSigmoid) {
  // The conv gives [4.5, 2.5, -1.5, -5.5]; v / (1 + exp(-v)) from Python's math module.
  auto swish = fused_conv("Swish", {});
  GE_RUN_KERNEL(swish_out, in_ge_domain(*swish));
  expect_tensor<float>(swish_out[0], {1, 2, 1, 2}, {4.45055876f, 2.31035455f, -0.27363829f, -0.02238576f});
}

TEST(FusedKernels, ActivationOnlyWithKnownNames) {
  auto mish = fused_conv("Mish", {});
  auto prepared = in_ge_domain(*mish).prepare();
  ASSERT_FALSE(prepared.is_ok());
  EXPECT_EQ(prepared.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(prepared.status().message().find("activation 'Mish'"), std::string::npos) << prepared.status().message();
}

TEST(FusedKernels, FusedOpsNeedTheGeDomain) {
  auto plain = fused_conv("Relu", {});  // FusedConv in ai.onnx: no such op
  std::string reason;
  EXPECT_FALSE(supports(plain->node(), "cpu", &reason));
  EXPECT_NE(reason.find("has no kernel for FusedConv"), std::string::npos) << reason;
}

TEST(FusedKernels, LayerNormalizationWithStatistics) {
  // numpy: mean over the last axis, variance + 1e-5, scale [1, 1, 2], bias [0, 1, 0].
  KernelTest test("LayerNormalization");
  test.input(f32({2, 3}, {1, 2, 3, 2, 4, 8}))
      .initializer(f32({3}, {1, 1, 2}))
      .initializer(f32({3}, {0, 1, 0}))
      .output(DataType::kFloat32, {2, 3})
      .output(DataType::kFloat32, {2, 1})
      .output(DataType::kFloat32, {2, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3},
                       {-1.22473569f, 1.f, 2.44947137f, -1.06904411f, 0.73273897f, 2.67261027f});
  expect_tensor<float>(out[1], {2, 1}, {2.f, 4.66666667f});
  expect_tensor<float>(out[2], {2, 1}, {1.22473569f, 0.40089154f});
}

TEST(FusedKernels, LayerNormalizationRejectsAScaleThatDoesNotBroadcast) {
  KernelTest test("LayerNormalization");
  test.input(f32({2, 3}, {1, 2, 3, 2, 4, 8})).initializer(f32({2}, {1, 1})).output(DataType::kFloat32, {2, 3});
  auto prepared = test.prepare();
  ASSERT_FALSE(prepared.is_ok());
  EXPECT_NE(prepared.status().message().find("[2] does not broadcast to the normalised shape [3]"),
            std::string::npos)
      << prepared.status().message();
}

TEST(FusedKernels, GeLayerNormalizationRunsInAnOpset13Graph) {
  // The values of LayerNormalizationWithStatistics: the ai.onnx kernel, as opset 17 defines it.
  KernelTest test("LayerNormalization", 13);
  test.input(f32({2, 3}, {1, 2, 3, 2, 4, 8}))
      .initializer(f32({3}, {1, 1, 2}))
      .initializer(f32({3}, {0, 1, 0}))
      .attribute("axis", int64_t{-1})
      .output(DataType::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, in_ge_domain(test));
  expect_tensor<float>(out[0], {2, 3},
                       {-1.22473569f, 1.f, 2.44947137f, -1.06904411f, 0.73273897f, 2.67261027f});
  auto kernel = test.prepare();
  ASSERT_TRUE(kernel.is_ok());
  EXPECT_EQ(kernel->name, "cpu.LayerNormalization");
}

TEST(FusedKernels, GeHardSwishRunsInAnOpset11Graph) {
  // x * Clip(x + 3, 0, 6) / 6: -4 and -3 -> 0; -1 -> -1 * 2 / 6; 1.5 -> 1.5 * 4.5 / 6;
  // 3 and 4 -> x.
  KernelTest test("HardSwish", 11);
  test.input(f32({7}, {-4, -3, -1, 0, 1.5f, 3, 4})).output(DataType::kFloat32, {7});
  GE_RUN_KERNEL(out, in_ge_domain(test));
  expect_tensor<float>(out[0], {7}, {0.f, 0.f, -0.33333333f, 0.f, 1.125f, 3.f, 4.f});
  KernelTest f64_test("HardSwish", 11);
  f64_test.input(f64({2}, {-1, 1})).output(DataType::kFloat64, {2});
  GE_RUN_KERNEL(f64_out, in_ge_domain(f64_test));
  expect_tensor<double>(f64_out[0], {2}, {-1.0 / 3.0, 4.0 / 6.0});
}

}  // namespace
}  // namespace ge::reference_kernels
