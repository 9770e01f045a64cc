// AffineGrid kernel tests. Expected values from numpy (/usr/bin/python3) running a
// transcription of the ONNX reference implementation (onnx/reference/ops/op_affine_grid.py:
// construct_original_grid + apply_affine_transform) on the float32 thetas below.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor theta_2d() { return f32({2, 2, 3}, {1, 0.5f, 0.1f, -0.25f, 2, -0.3f, 0.8f, -0.6f, 0, 0.6f, 0.8f, 0.5f}); }
Tensor theta_3d() { return f32({1, 3, 4}, {1, 0.5f, 0.1f, 0.2f, -0.25f, 2, -0.3f, 0, 0.3f, 0, 1.5f, -1}); }

TEST(NnAffineGridKernel, TwoDimensional) {
  KernelTest test("AffineGrid", 20);
  test.input(theta_2d()).initializer(i64({4}, {2, 1, 2, 3})).output(F::kFloat32, {2, 2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2, 3, 2},
                       {-0.81666666f, -1.1333333f, -0.15000001f, -1.3f, 0.51666665f, -1.4666667f, -0.31666666f,
                        0.86666667f, 0.34999999f, 0.69999999f, 1.0166667f, 0.5333333f, -0.23333333f, -0.30000001f,
                        0.30000001f, 0.099999994f, 0.83333337f, 0.5f, -0.83333337f, 0.5f, -0.30000001f, 0.89999998f,
                        0.23333333f, 1.3000001f});
}

TEST(NnAffineGridKernel, TwoDimensionalAlignCornersWithRuntimeSize) {
  KernelTest test("AffineGrid", 20);
  test.input(theta_2d())
      .input(i64({4}, {2, 1, 2, 3}))
      .attribute("align_corners", int64_t{1})
      .output(F::kFloat32, {2, 2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2, 3, 2},
                       {-1.4f, -2.05f, -0.40000001f, -2.3f, 0.60000002f, -2.55f, -0.40000001f, 1.95f, 0.60000002f,
                        1.7f, 1.6f, 1.45f, -0.19999999f, -0.90000004f, 0.60000002f, -0.30000001f, 1.4000001f,
                        0.30000001f, -1.4000001f, 0.69999999f, -0.60000002f, 1.3f, 0.19999999f, 1.9000001f});
}

TEST(NnAffineGridKernel, ThreeDimensionalAlignCorners) {
  KernelTest test("AffineGrid", 20);
  test.input(theta_3d())
      .initializer(i64({5}, {1, 1, 2, 2, 3}))
      .attribute("align_corners", int64_t{1})
      .output(F::kFloat32, {1, 2, 2, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 3, 3},
                       {-1.4f, -1.45f, -2.8f, -0.40000001f, -1.7f, -2.5f, 0.60000002f, -1.95f, -2.2f, -0.40000001f,
                        2.55f, -2.8f, 0.60000002f, 2.3f, -2.5f, 1.6f, 2.05f, -2.2f, -1.2f, -2.05f, 0.19999999f,
                        -0.19999999f, -2.3f, 0.5f, 0.80000001f, -2.55f, 0.80000001f, -0.19999999f, 1.95f, 0.19999999f,
                        0.80000001f, 1.7f, 0.5f, 1.8f, 1.45f, 0.80000001f});
}

TEST(NnAffineGridKernel, ThreeDimensionalSingleDepthFloat64) {
  KernelTest test("AffineGrid", 20);
  test.input(f64({1, 3, 4}, {1, 0.5, 0.1, 0.2, -0.25, 2, -0.3, 0, 0.3, 0, 1.5, -1}))
      .initializer(i64({5}, {1, 1, 1, 2, 2}))
      .output(F::kFloat64, {1, 1, 2, 2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 2, 2, 3},
                        {-0.55, -0.875, -1.15, 0.45, -1.125, -0.85, -0.05, 1.125, -1.15, 0.95, 0.875, -0.85}, 1e-9);
}

TEST(NnAffineGridKernel, RuntimeSizeThatContradictsTheOutputFailsAtLaunch) {
  KernelTest test("AffineGrid", 20);
  test.input(theta_2d()).input(i64({4}, {2, 1, 3, 3})).output(F::kFloat32, {2, 2, 3, 2});
  int code = 0;
  auto result = test.run(&code);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(code, kKernelRuntimeShapeMismatch);
}

TEST(NnAffineGridKernel, RejectsBadThetaSizeAndAlignCorners) {
  {
    KernelTest test("AffineGrid", 20);
    test.input(f32_iota({2, 3, 3})).initializer(i64({4}, {2, 1, 2, 3})).output(F::kFloat32, {2, 2, 3, 2});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), got [2,3,3]"),
              std::string::npos)
        << kernel.status().message();
  }
  {
    KernelTest test("AffineGrid", 20);  // a constant size that disagrees with the output
    test.input(theta_2d()).initializer(i64({4}, {2, 1, 4, 3})).output(F::kFloat32, {2, 2, 3, 2});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("size [2,1,4,3] disagrees"), std::string::npos)
        << kernel.status().message();
  }
  {
    KernelTest test("AffineGrid", 20);  // size of a 3-D grid for a 2-D theta
    test.input(theta_2d()).initializer(i64({5}, {2, 1, 1, 2, 3})).output(F::kFloat32, {2, 2, 3, 2});
    EXPECT_EQ(test.prepare().status().code(), StatusCode::kInvalidArgument);
  }
  {
    KernelTest test("AffineGrid", 20);
    test.input(theta_2d()).initializer(i64({4}, {2, 1, 2, 3})).attribute("align_corners", int64_t{2});
    test.output(F::kFloat32, {2, 2, 3, 2});
    EXPECT_EQ(test.prepare().status().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace ge::reference_kernels::testing
