// SoftmaxCrossEntropyLoss / NegativeLogLikelihoodLoss kernel tests on
// x = (((arange(12) * 5 + 2) % 7) - 3) * 0.5 as [N=2, C=3, d=2]. Expected values from
// numpy (/usr/bin/python3): log_prob = x - logsumexp(x, axis=1), then the weighted mean
// over positions whose target is not ignore_index.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor scores() { return f32({2, 3, 2}, {-0.5f, -1.5f, 1, 0, -1, 1.5f, 0.5f, -0.5f, -1.5f, 1, 0, -1}); }

TEST(LossKernel, SoftmaxCrossEntropyWeightedMeanWithIgnoredTarget) {
  KernelTest test("SoftmaxCrossEntropyLoss", 13);
  test.input(scores())
      .input(i64({2, 2}, {0, 2, 1, 2}))
      .input(f32({3}, {0.5f, 2.0f, 1.5f}))
      .attribute("ignore_index", int64_t{1})
      .output(F::kFloat32, {})
      .output(F::kFloat32, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {}, {1.3499081f});
  expect_tensor<float>(out[1], {2, 3, 2},
                       {-1.8063557f, -3.2413113f, -0.30635571f, -1.7413113f, -2.3063557f, -0.2413113f, -0.55495692f,
                        -1.8063557f, -2.5549569f, -0.30635571f, -1.0549569f, -2.3063557f});
}

TEST(LossKernel, NegativeLogLikelihoodWithoutReduction) {
  // loss[n, d] = -x[n, target[n, d], d].
  KernelTest test("NegativeLogLikelihoodLoss", 13);
  test.input(scores()).input(i32({2, 2}, {0, 2, 1, 2})).attribute("reduction", "none").output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0.5f, -1.5f, 1.5f, 1.0f});
}

TEST(LossKernel, NegativeLogLikelihoodSumInDouble) {
  KernelTest test("NegativeLogLikelihoodLoss", 13);
  test.input(f64({2, 3, 2}, {-0.5, -1.5, 1, 0, -1, 1.5, 0.5, -0.5, -1.5, 1, 0, -1}))
      .input(i64({2, 2}, {0, 2, 1, 2}))
      .attribute("reduction", "sum")
      .output(F::kFloat64, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {}, {1.5});
}

TEST(LossKernel, MeanOverOnlyIgnoredTargetsIsNaN) {
  // Zero total weight: 0 / 0, as the numpy reference gives.
  KernelTest test("NegativeLogLikelihoodLoss", 13);
  test.input(f32({1, 2}, {1, 2})).input(i64({1}, {-1})).attribute("ignore_index", int64_t{-1}).output(F::kFloat32, {});
  GE_RUN_KERNEL(out, test);
  EXPECT_TRUE(std::isnan(out[0].data<float>()[0]));
}

TEST(LossKernel, TargetOutOfRangeFailsAtLaunch) {
  KernelTest test("SoftmaxCrossEntropyLoss", 13);
  test.input(f32({1, 2}, {1, 2})).input(i64({1}, {2})).output(F::kFloat32, {});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 302);
}

TEST(LossKernel, UnknownReductionIsInvalid) {
  KernelTest test("SoftmaxCrossEntropyLoss", 13);
  test.input(f32({1, 2}, {1, 2})).input(i64({1}, {0})).attribute("reduction", "max").output(F::kFloat32, {});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("reduction"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
