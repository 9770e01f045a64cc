// Random generator kernel tests: the numbers themselves are the generator's, so these
// check determinism under a seed, ranges, and the cases whose outcome is certain.

#include <gtest/gtest.h>

#include <cstring>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

std::vector<float> values(const Tensor& tensor) {
  return std::vector<float>(tensor.data<float>(), tensor.data<float>() + tensor.element_count());
}

TEST(RandomKernel, SeededUniformLikeIsReproducibleAndInRange) {
  std::vector<float> first, second;
  for (std::vector<float>* result : {&first, &second}) {
    KernelTest test("RandomUniformLike", 15);
    test.input(f32_iota({100}))
        .attribute("seed", 3.0f)
        .attribute("low", -2.0f)
        .attribute("high", 5.0f)
        .output(F::kFloat32, {100});
    GE_RUN_KERNEL(out, test);
    *result = values(out[0]);
  }
  EXPECT_EQ(first, second);
  for (float v : first) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 5.0f);
  }
}

TEST(RandomKernel, UnseededLaunchesDiffer) {
  KernelTest test("RandomNormalLike", 15);
  test.input(f32_iota({64})).output(F::kFloat32, {64});
  auto first = test.run();
  auto second = test.run();
  ASSERT_TRUE(first.is_ok() && second.is_ok());
  EXPECT_NE(values(first.value()[0]), values(second.value()[0]));
}

TEST(RandomKernel, SeededNormalHasRoughlyItsMeanAndScale) {
  KernelTest test("RandomNormalLike", 15);
  test.input(Tensor::zeros(F::kFloat64, {4000}))
      .attribute("seed", 1.0f)
      .attribute("mean", 10.0f)
      .attribute("scale", 2.0f)
      .output(F::kFloat64, {4000});
  GE_RUN_KERNEL(out, test);
  double sum = 0, squares = 0;
  for (double v : out[0].values<double>()) {
    sum += v;
    squares += v * v;
  }
  const double mean = sum / 4000, variance = squares / 4000 - mean * mean;
  EXPECT_NEAR(mean, 10.0, 0.2);  // 6 standard errors
  EXPECT_NEAR(std::sqrt(variance), 2.0, 0.15);
}

TEST(RandomKernel, BernoulliWithCertainProbabilities) {
  KernelTest test("Bernoulli", 15);
  test.input(f64({4}, {0, 1, 1, 0})).attribute("dtype", int64_t{9}).output(F::kBool, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<bool>(out[0], {4}, {false, true, true, false});
}

TEST(RandomKernel, BernoulliRejectsProbabilitiesOutsideZeroOne) {
  KernelTest test("Bernoulli", 15);
  test.input(f32({2}, {0.5f, 1.5f})).output(F::kFloat32, {2});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 304);
}

TEST(RandomKernel, MultinomialPicksTheOnlyLikelyClass) {
  KernelTest test("Multinomial", 15);
  test.input(f32({2, 3}, {-1000, 0, -1000, 5, -1000, -1000}))
      .attribute("sample_size", int64_t{4})
      .attribute("dtype", int64_t{7})
      .output(F::kInt64, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 4}, {1, 1, 1, 1, 0, 0, 0, 0});
}

TEST(RandomKernel, NonFloatOutputDtypeIsUnsupported) {
  KernelTest test("RandomUniformLike", 15);
  test.input(f32({2}, {0, 0})).attribute("dtype", int64_t{6}).output(F::kInt32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
