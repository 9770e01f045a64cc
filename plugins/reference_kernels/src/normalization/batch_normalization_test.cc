// BatchNormalization (inference) kernel tests. Expected values from numpy
// (x - mean) / np.sqrt(var + eps) * scale + b with per-channel parameters broadcast over
// [1,3,1,1] (/usr/bin/python3), or by hand where shown.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

void add_parameters(KernelTest& test) {
  test.initializer(f32({3}, {1, 2, 0.5f}))        // scale
      .initializer(f32({3}, {0, 1, -1}))          // B
      .initializer(f32({3}, {1.5f, 5.5f, 9.5f}))  // mean
      .initializer(f32({3}, {1.25f, 4, 0.25f}));  // var
}

TEST(BatchNormalizationKernel, PerChannelDefaultEpsilon) {
  // Channel 1, x = 4: (4 - 5.5) / sqrt(4 + 1e-5) * 2 + 1 = -0.4999982.
  KernelTest test("BatchNormalization", 15);
  test.input(f32_iota({1, 3, 2, 2}));
  add_parameters(test);
  test.output(F::kFloat32, {1, 3, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 2, 2},
                       {-1.341635f, -0.4472118f, 0.4472118f, 1.341635f, -0.4999982f, 0.5000006f, 1.499999f, 2.499998f,
                        -2.49997f, -1.49999f, -0.50001f, 0.49997f},
                       1e-6);
}

// Float32 inference runs as Y = X * a + b per channel (the "affine" kernel): on random
// data, with float16 parameters too (opset 15), within float32 rounding of the formula
// worked out in double.
TEST(BatchNormalizationKernel, Float32InferenceIsOnePerChannelMultiplyAdd) {
  constexpr int64_t kBatch = 2, kChannels = 5, kInner = 37;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f), positive(0.1f, 3.0f);
  std::vector<float> x(static_cast<size_t>(kBatch * kChannels * kInner)), scale, bias, mean, var;
  for (float& v : x) v = value(rng);
  for (int64_t c = 0; c < kChannels; ++c) {
    scale.push_back(value(rng)), bias.push_back(value(rng)), mean.push_back(value(rng)), var.push_back(positive(rng));
  }
  KernelTest test("BatchNormalization", 15);
  test.input(f32({kBatch, kChannels, kInner}, x))
      .initializer(f32({kChannels}, scale))
      .initializer(f32({kChannels}, bias))
      .initializer(f32({kChannels}, mean))
      .initializer(f32({kChannels}, var))
      .output(F::kFloat32, {kBatch, kChannels, kInner});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_NE(kernel->name.find("affine"), std::string::npos) << kernel->name;
  GE_RUN_KERNEL(out, test);
  for (int64_t n = 0; n < kBatch; ++n) {
    for (int64_t c = 0; c < kChannels; ++c) {
      for (int64_t i = 0; i < kInner; ++i) {
        const int64_t k = (n * kChannels + c) * kInner + i;
        const double want = (x[k] - double{mean[c]}) / std::sqrt(double{var[c]} + 1e-5) * scale[c] + bias[c];
        const double magnitude = std::fabs(double{x[k]} * scale[c] / std::sqrt(double{var[c]})) + std::fabs(bias[c]) +
                                 std::fabs(mean[c] * scale[c] / std::sqrt(double{var[c]}));
        EXPECT_NEAR(out[0].data<float>()[k], want, 4e-7 * magnitude + 1e-7) << n << ", " << c << ", " << i;
      }
    }
  }
}

TEST(BatchNormalizationKernel, Epsilon) {
  // Channel 2, x = 8: (8 - 9.5) / sqrt(0.25 + 0.75) * 0.5 - 1 = -1.75.
  KernelTest test("BatchNormalization", 9);
  test.input(f32_iota({1, 3, 2, 2}));
  add_parameters(test);
  test.attribute("epsilon", 0.75f).output(F::kFloat32, {1, 3, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 2, 2},
                       {-1.06066f, -0.3535534f, 0.3535534f, 1.06066f, -0.3764944f, 0.5411686f, 1.458831f, 2.376494f,
                        -1.75f, -1.25f, -0.75f, -0.25f},
                       1e-6);
}

TEST(BatchNormalizationKernel, RankTwoInput) {
  KernelTest test("BatchNormalization", 15);
  test.input(f32_iota({2, 3}));
  add_parameters(test);
  test.output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {-1.341635f, -3.499995f, -8.499849f, 1.341635f, -0.4999982f, -5.49991f}, 1e-6);
}

TEST(BatchNormalizationKernel, LegacyNonSpatialParametersPerElement) {
  // Opset 7, spatial = 0: parameters have X's [C, L] = [2, 2] shape. epsilon 0, var 1:
  // y = (x - mean) * scale + B = ([0,1,2,3] - [0,1,0,1]) * [1,2,3,4] + 1 = [1, 1, 7, 9].
  KernelTest test("BatchNormalization", 7);
  test.input(f32_iota({1, 2, 2}))
      .initializer(f32({2, 2}, {1, 2, 3, 4}))
      .initializer(f32({2, 2}, {1, 1, 1, 1}))
      .initializer(f32({2, 2}, {0, 1, 0, 1}))
      .initializer(f32({2, 2}, {1, 1, 1, 1}))
      .attribute("spatial", int64_t{0})
      .attribute("epsilon", 0.0f)
      .output(F::kFloat32, {1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2}, {1, 1, 7, 9});
}

TEST(BatchNormalizationKernel, Float64) {
  // (x - 1) / sqrt(3 + 1) * 2 + 0.5 = x - 0.5 for the single channel.
  KernelTest test("BatchNormalization", 15);
  test.input(f64({1, 1, 3}, {0, 1, 2}))
      .initializer(f64({1}, {2}))
      .initializer(f64({1}, {0.5}))
      .initializer(f64({1}, {1}))
      .initializer(f64({1}, {3}))
      .attribute("epsilon", 1.0f)
      .output(F::kFloat64, {1, 1, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 3}, {-0.5, 0.5, 1.5}, 1e-12);
}

TEST(BatchNormalizationKernel, TrainingModeUsesBatchStatistics) {
  // X [2, 2]: channel 0 = [1, 3] (mean 2, var 1), channel 1 = [2, 6] (mean 4, var 4).
  // epsilon 0: Y = [[-1, -1], [1, 1]]. Running stats with momentum 0.9:
  // mean 0 * 0.9 + 2 * 0.1 = 0.2, 10 * 0.9 + 4 * 0.1 = 9.4; var 0.9 + 0.1, 0.9 + 0.4.
  KernelTest test("BatchNormalization", 15);
  test.input(f32({2, 2}, {1, 2, 3, 6}))
      .initializer(f32({2}, {1, 1}))
      .initializer(f32({2}, {0, 0}))
      .input(f32({2}, {0, 10}))
      .input(f32({2}, {1, 1}))
      .attribute("training_mode", int64_t{1})
      .attribute("epsilon", 0.0f)
      .output(F::kFloat32, {2, 2})
      .output(F::kFloat32, {2})
      .output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {-1, -1, 1, 1});
  expect_tensor<float>(out[1], {2}, {0.2f, 9.4f});
  expect_tensor<float>(out[2], {2}, {1.0f, 1.3f});
}

TEST(BatchNormalizationKernel, LegacyTrainingOutputsSavedStatistics) {
  // Opset 9 with the extra outputs trains; outputs 3 and 4 are the batch mean and var.
  KernelTest test("BatchNormalization", 9);
  test.input(f32({2, 1}, {1, 3}))
      .initializer(f32({1}, {2}))
      .initializer(f32({1}, {0.5f}))
      .initializer(f32({1}, {0}))
      .initializer(f32({1}, {1}))
      .attribute("epsilon", 0.0f)
      .attribute("momentum", 0.5f)
      .output(F::kFloat32, {2, 1})
      .output(F::kFloat32, {1})
      .output(F::kFloat32, {1})
      .output(F::kFloat32, {1})
      .output(F::kFloat32, {1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 1}, {-1.5f, 2.5f});
  expect_tensor<float>(out[1], {1}, {1});
  expect_tensor<float>(out[2], {1}, {1});
  expect_tensor<float>(out[3], {1}, {2});
  expect_tensor<float>(out[4], {1}, {1});
}

TEST(BatchNormalizationKernel, TrainingOutputsNeedTrainingMode) {
  KernelTest test("BatchNormalization", 15);
  test.input(f32_iota({1, 3, 1, 1}));
  add_parameters(test);
  test.output(F::kFloat32, {1, 3, 1, 1}).output(F::kFloat32, {3});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("training_mode"), std::string::npos) << kernel.status().message();
}

TEST(BatchNormalizationKernel, WrongParameterShapeIsInvalid) {
  KernelTest test("BatchNormalization", 15);
  test.input(f32_iota({1, 2, 1, 1}));
  add_parameters(test);  // 3 channels of parameters for a 2-channel X
  test.output(F::kFloat32, {1, 2, 1, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("input scale"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
