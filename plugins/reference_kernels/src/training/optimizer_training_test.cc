// Adagrad / Momentum / Adam kernel tests (domain ai.onnx.preview.training). R = 0.1,
// T = 3, X = [1, -2], G = [0.5, 0.25], norm_coefficient 0.01; expected values from numpy
// with the ONNX reference update rules (/usr/bin/python3).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

void add_common_inputs(KernelTest& test) {
  test.input(f32({}, {0.1f})).input(i64({}, {3})).input(f32({2}, {1, -2})).input(f32({2}, {0.5f, 0.25f}));
}

Result<std::vector<Tensor>> run_training_op(KernelTest& test) {
  test.node().set_domain("ai.onnx.preview.training");
  return test.run();
}

TEST(OptimizerKernel, Adagrad) {
  KernelTest test("Adagrad");
  add_common_inputs(test);
  test.input(f32({2}, {0.2f, 0}))
      .attribute("decay_factor", 0.5f)
      .attribute("epsilon", 1e-6f)
      .attribute("norm_coefficient", 0.01f)
      .output(F::kFloat32, {2})
      .output(F::kFloat32, {2});
  auto out = run_training_op(test);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  expect_tensor<float>(out.value()[0], {2}, {0.96992515f, -2.0399998f});
  expect_tensor<float>(out.value()[1], {2}, {0.4601f, 0.0529f});
}

TEST(OptimizerKernel, StandardAndNesterovMomentum) {
  for (const char* mode : {"standard", "nesterov"}) {
    KernelTest test("Momentum");
    add_common_inputs(test);
    test.input(f32({2}, {0.1f, -0.3f}))
        .attribute("alpha", 0.9f)
        .attribute("beta", 0.8f)
        .attribute("mode", mode)
        .attribute("norm_coefficient", 0.01f)
        .output(F::kFloat32, {2})
        .output(F::kFloat32, {2});
    auto out = run_training_op(test);
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    if (std::string(mode) == "standard") {
      expect_tensor<float>(out.value()[0], {2}, {0.9502f, -1.9914f});
    } else {
      expect_tensor<float>(out.value()[0], {2}, {0.90418f, -2.01526f});
    }
    expect_tensor<float>(out.value()[1], {2}, {0.498f, -0.086f});
  }
}

TEST(OptimizerKernel, AdamWithPostNormalisation) {
  KernelTest test("Adam");
  add_common_inputs(test);
  test.input(f32({2}, {0.1f, -0.3f}))
      .input(f32({2}, {0.2f, 0}))
      .attribute("alpha", 0.9f)
      .attribute("beta", 0.999f)
      .attribute("epsilon", 1e-6f)
      .attribute("norm_coefficient", 0.01f)
      .attribute("norm_coefficient_post", 0.05f)
      .output(F::kFloat32, {2})
      .output(F::kFloat32, {2})
      .output(F::kFloat32, {2});
  auto out = run_training_op(test);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  expect_tensor<float>(out.value()[0], {2}, {0.94395027f, -1.2483609f});
  expect_tensor<float>(out.value()[1], {2}, {0.141f, -0.247f});
  expect_tensor<float>(out.value()[2], {2}, {0.2000601f, 5.29e-05f});
}

TEST(OptimizerKernel, WrongInputCountIsInvalid) {
  KernelTest test("Adam");
  add_common_inputs(test);
  test.input(f32({2}, {0.1f, -0.3f})).output(F::kFloat32, {2}).output(F::kFloat32, {2});
  test.node().set_domain("ai.onnx.preview.training");
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

TEST(OptimizerKernel, OnlyTheTrainingDomainHasTheOp) {
  KernelTest test("Adagrad");
  add_common_inputs(test);
  test.input(f32({2}, {0.2f, 0})).output(F::kFloat32, {2}).output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();  // domain "" (ai.onnx)
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
