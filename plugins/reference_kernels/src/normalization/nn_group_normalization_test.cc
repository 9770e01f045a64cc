// GroupNormalization kernel tests. Expected values from numpy (/usr/bin/python3): the
// ONNX backend test's _group_normalization (onnx/backend/test/case/node/
// groupnormalization.py; np.mean/np.var per [N, group, ...]) for opset 21, and the
// opset-18 function body (scale/bias reshaped to [1, num_groups, 1]) for opset 18.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/nn_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor group_input() { return f32({2, 4, 2}, {1, 2, 4, 8, 16, 32, -1, 0, 1, 2, 3, 5, 0.5f, -0.5f, 2, -2}); }

TEST(NnGroupNormalizationKernel, Opset21PerChannelScaleAndBias) {
  KernelTest test("GroupNormalization", 21);
  test.input(group_input())
      .initializer(f32({4}, {0.5f, 2, -1, 1.5f}))
      .initializer(f32({4}, {0, 1, -0.5f, 0.25f}))
      .attribute("num_groups", int64_t{2})
      .output(F::kFloat32, {2, 4, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4, 2},
                       {-0.51287729f, -0.32637647f, 1.1865008f, 4.1705141f, -0.81486881f, -2.0002573f, -1.1669096f,
                        -1.0557795f, -0.59160662f, -0.2535457f, 1.338061f, 4.0425482f, -0.84299636f, -0.15700364f,
                        2.3079782f, -1.8079782f});
}

TEST(NnGroupNormalizationKernel, Opset18PerGroupScaleAndEpsilon) {
  KernelTest test("GroupNormalization", 18);
  test.input(group_input())
      .initializer(f32({2}, {0.5f, 2}))
      .initializer(f32({2}, {1, -1}))
      .attribute("num_groups", int64_t{2})
      .attribute("epsilon", 0.01f)
      .output(F::kFloat32, {2, 4, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4, 2},
                       {0.48747876f, 0.67385012f, 1.0465928f, 1.7920783f, -0.37027967f, 2.0004323f, -2.8891611f,
                        -2.7409916f, 0.40973964f, 0.74703127f, 1.0843229f, 1.7589061f, -0.31561407f, -1.6843859f,
                        1.7375437f, -3.7375436f});
}

TEST(NnGroupNormalizationKernel, RankTwoFloat64) {
  KernelTest test("GroupNormalization", 21);
  test.input(f64({2, 4}, {1, 3, 2, 6, -1, 1, 0, 4}))
      .initializer(f64({4}, {1, 1, 1, 1}))
      .initializer(f64({4}, {0, 0, 0, 0}))
      .attribute("num_groups", int64_t{2})
      .output(F::kFloat64, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {2, 4},
                        {-0.99999500003749975, 0.99999500003749975, -0.99999875000234373, 0.99999875000234373,
                         -0.99999500003749975, 0.99999500003749975, -0.99999875000234373, 0.99999875000234373},
                        1e-12);
}

TEST(NnGroupNormalizationKernel, Float16) {
  // One group [1, 3]: mean 2, variance 1 -> [-1, 1] with epsilon 0, then * 2 + 1 ->
  // [-1, 3]. float16: 1 = 0x3c00, 3 = 0x4200, 2 = 0x4000, -1 = 0xbc00.
  KernelTest test("GroupNormalization", 21);
  test.input(float16_bits({1, 2, 1}, {0x3c00, 0x4200}))
      .initializer(float16_bits({2}, {0x4000, 0x4000}))
      .initializer(float16_bits({2}, {0x3c00, 0x3c00}))
      .attribute("num_groups", int64_t{1})
      .attribute("epsilon", 0.0f)
      .output(F::kFloat16, {1, 2, 1});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(bits_of(out[0]), (std::vector<uint16_t>{0xbc00, 0x4200}));
}

TEST(NnGroupNormalizationKernel, ScaleShapeFollowsOpset) {
  // [C] scale is right for opset 21 but not for opset 18 (per group).
  KernelTest test("GroupNormalization", 18);
  test.input(group_input())
      .initializer(f32({4}, {1, 1, 1, 1}))
      .initializer(f32({4}, {0, 0, 0, 0}))
      .attribute("num_groups", int64_t{2})
      .output(F::kFloat32, {2, 4, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("scale has shape [4], expected [2]"), std::string::npos)
      << kernel.status().message();
}

TEST(NnGroupNormalizationKernel, RejectsGroupsThatDoNotDivideChannels) {
  KernelTest test("GroupNormalization", 21);
  test.input(group_input())
      .initializer(f32({4}, {1, 1, 1, 1}))
      .initializer(f32({4}, {0, 0, 0, 0}))
      .attribute("num_groups", int64_t{3})
      .output(F::kFloat32, {2, 4, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("num_groups"), std::string::npos) << kernel.status().message();
}

TEST(NnGroupNormalizationKernel, RejectsMissingNumGroupsAndRankOne) {
  KernelTest missing("GroupNormalization", 21);
  missing.input(group_input())
      .initializer(f32({4}, {1, 1, 1, 1}))
      .initializer(f32({4}, {0, 0, 0, 0}))
      .output(F::kFloat32, {2, 4, 2});
  Result<PreparedKernel> kernel = missing.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("'num_groups'"), std::string::npos) << kernel.status().message();
  KernelTest rank_one("GroupNormalization", 21);
  rank_one.input(f32({4}, {1, 2, 3, 4}))
      .initializer(f32({4}, {1, 1, 1, 1}))
      .initializer(f32({4}, {0, 0, 0, 0}))
      .attribute("num_groups", int64_t{2})
      .output(F::kFloat32, {4});
  kernel = rank_one.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("rank >= 2"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
