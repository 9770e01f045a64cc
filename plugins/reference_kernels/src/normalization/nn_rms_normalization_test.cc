// RMSNormalization kernel tests. Expected values from numpy (/usr/bin/python3) running a
// transcription of the ONNX reference implementation
// (onnx/reference/ops/op_rms_normalization.py: X * 1 / sqrt(mean(X^2) + epsilon) * scale).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/nn_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor rms_input() { return f32({2, 3, 2}, {1, 2, 4, 8, 16, 32, -1, 0, 1, 2, 3, 5}); }

TEST(NnRmsNormalizationKernel, LastAxis) {
  KernelTest test("RMSNormalization", 23);
  test.input(rms_input()).initializer(f32({2}, {0.5f, 2})).output(F::kFloat32, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 2},
                       {0.31622714f, 2.5298171f, 0.3162277f, 2.5298216f, 0.31622776f, 2.5298221f, -0.70709968f, 0,
                        0.31622714f, 2.5298171f, 0.36380333f, 2.4253554f});
}

TEST(NnRmsNormalizationKernel, AxisOneBroadcastScaleAndEpsilon) {
  KernelTest test("RMSNormalization", 23);
  test.input(rms_input())
      .initializer(f32({3, 1}, {1, 0.5f, -1}))
      .attribute("axis", int64_t{1})
      .attribute("epsilon", 0.1f)
      .output(F::kFloat32, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 2},
                       {0.066284783f, 0.13256957f, 0.13256957f, 0.26513913f, -1.0605565f, -2.1211131f, -0.38442588f, 0,
                        0.19221294f, 0.38442588f, -1.1532776f, -1.9221294f});
}

TEST(NnRmsNormalizationKernel, Float64AxisZeroScalarScale) {
  KernelTest test("RMSNormalization", 23);
  test.input(f64({2, 3, 2}, {1, 2, 4, 8, 16, 32, -1, 0, 1, 2, 3, 5}))
      .initializer(f64({}, {2}))
      .attribute("axis", int64_t{0})
      .output(F::kFloat64, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {2, 3, 2},
                        {0.18483424506762736, 0.36966849013525471, 0.73933698027050943, 1.4786739605410189,
                         2.9573479210820377, 5.9146958421640754, -0.18483424506762736, 0, 0.18483424506762736,
                         0.36966849013525471, 0.55450273520288207, 0.92417122533813678},
                        1e-12);
}

TEST(NnRmsNormalizationKernel, Float16) {
  // Row [3, 4]: rms = sqrt(12.5) with epsilon 0; the normalised [0.8485, 1.1314] rounds
  // to float16 before * scale 2 (the reference in np.float16 gives the same bits):
  // 0x3eca, 0x4087. 3 = 0x4200, 4 = 0x4400, 2 = 0x4000.
  KernelTest test("RMSNormalization", 23);
  test.input(float16_bits({1, 2}, {0x4200, 0x4400}))
      .initializer(float16_bits({2}, {0x4000, 0x4000}))
      .attribute("epsilon", 0.0f)
      .output(F::kFloat16, {1, 2});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(bits_of(out[0]), (std::vector<uint16_t>{0x3eca, 0x4087}));
}

TEST(NnRmsNormalizationKernel, RejectsScaleThatDoesNotBroadcast) {
  KernelTest test("RMSNormalization", 23);
  test.input(rms_input()).initializer(f32({3}, {1, 1, 1})).output(F::kFloat32, {2, 3, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("scale [3] does not broadcast to the normalised shape [2]"),
            std::string::npos)
      << kernel.status().message();
}

TEST(NnRmsNormalizationKernel, RejectsBadAxisAndStashType) {
  KernelTest axis("RMSNormalization", 23);
  axis.input(rms_input()).initializer(f32({2}, {1, 1})).attribute("axis", int64_t{3}).output(F::kFloat32, {2, 3, 2});
  EXPECT_EQ(axis.prepare().status().code(), StatusCode::kInvalidArgument);
  KernelTest stash("RMSNormalization", 23);
  stash.input(rms_input())
      .initializer(f32({2}, {1, 1}))
      .attribute("stash_type", int64_t{6})
      .output(F::kFloat32, {2, 3, 2});
  Result<PreparedKernel> kernel = stash.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("stash_type"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
