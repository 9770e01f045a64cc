// Resize / Upsample kernel tests. Expected values come from the ONNX reference
// implementation (onnx.backend.test.case.node.resize.interpolate_nd, run with
// /usr/bin/python3), or by hand where shown.

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "nn_kernels.h"

namespace ge::cpu_kernels::testing {
namespace {

using F = DataType;

Tensor f32_4x4() { return f32_iota({1, 1, 4, 4}, 1.0f); }

TEST(NnResizeKernel, LinearHalfPixelUpsampleWithRuntimeScales) {
  KernelTest test("Resize", 13);
  test.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().input(f32({4}, {1, 1, 2, 2}));
  test.attribute("mode", "linear").output(F::kFloat32, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4, 4},
                       {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
}

TEST(NnResizeKernel, CubicAlignCornersWithSizes) {
  // Align corners onto a 3x3 grid samples rows/columns 0, 1.5, 3: the cubic of a linear
  // ramp is exact, so the middle is the mean of its neighbours.
  KernelTest test("Resize", 13);
  test.input(f32_4x4()).no_input().no_input().initializer(i64({4}, {1, 1, 3, 3}));
  test.attribute("mode", "cubic").attribute("coordinate_transformation_mode", "align_corners");
  test.output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {1, 2.5f, 4, 7, 8.5f, 10, 13, 14.5f, 16});
}

TEST(NnResizeKernel, CubicExcludeOutsideDownsample) {
  // Scale 0.8: the resized length 3.2 (not the output extent 3) sets the coordinates.
  KernelTest test("Resize", 13);
  test.input(f32_4x4()).no_input().input(f32({4}, {1, 1, 0.8f, 0.8f}));
  test.attribute("mode", "cubic").attribute("cubic_coeff_a", -0.5f).attribute("exclude_outside", int64_t{1});
  test.output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3},
                       {1.368127f, 2.669501f, 4.013337f, 6.573626f, 7.875f, 9.218835f, 11.94897f, 13.25034f, 14.59418f});
}

TEST(NnResizeKernel, NearestRoundPreferCeilAsymmetric) {
  KernelTest test("Resize", 13);
  test.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().no_input().input(i64({4}, {1, 1, 3, 3}));
  test.attribute("coordinate_transformation_mode", "asymmetric").attribute("nearest_mode", "round_prefer_ceil");
  test.output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {1, 2, 2, 3, 4, 4, 3, 4, 4});
}

TEST(NnResizeKernel, TfCropAndResizeExtrapolates) {
  KernelTest test("Resize", 13);
  test.input(f32_4x4()).input(f32({8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f})).no_input().input(i64({4}, {1, 1, 3, 3}));
  test.attribute("mode", "linear")
      .attribute("coordinate_transformation_mode", "tf_crop_and_resize")
      .attribute("extrapolation_value", 10.0f)
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10});
}

TEST(NnResizeKernel, PytorchHalfPixelOneDimensional) {
  KernelTest test("Resize", 13);
  test.input(f32({5}, {0, 10, 20, 30, 40})).no_input().no_input().input(i64({1}, {3}));
  test.attribute("mode", "linear").attribute("coordinate_transformation_mode", "pytorch_half_pixel");
  test.output(F::kFloat32, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {3.333333f, 20, 36.66667f});
}

TEST(NnResizeKernel, Opset11EmptyScalesMeansSizes) {
  // tf_half_pixel_for_nn: x = (i + 0.5) / scale, rounded half down: columns 1 and 3.
  KernelTest test("Resize", 11);
  test.input(f32({1, 1, 1, 4}, {1, 2, 3, 4})).initializer(f32({0}, {})).initializer(f32({0}, {}));
  test.input(i64({4}, {1, 1, 1, 2}));
  test.attribute("coordinate_transformation_mode", "tf_half_pixel_for_nn").output(F::kFloat32, {1, 1, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 2}, {2, 4});
}

TEST(NnResizeKernel, NearestCopiesInt64Exactly) {
  // 2^62 + 1 does not survive a trip through double; nearest must copy it.
  const int64_t big = (int64_t{1} << 62) + 1;
  KernelTest test("Resize", 13);
  test.input(i64({2}, {big, -3})).no_input().input(f32({1}, {2}));
  test.output(F::kInt64, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {4}, {big, big, -3, -3});
}

TEST(NnResizeKernel, UpsampleSevenTakesScalesAttribute) {
  // Asymmetric nearest, floor when upsampling: [[1,1,1,2,2,2] x2, [3,3,3,4,4,4] x2].
  KernelTest test("Upsample", 7);
  test.input(f32({1, 1, 2, 2}, {1, 2, 3, 4}));
  test.attribute("scales", std::vector<float>{1, 1, 2, 3}).output(F::kFloat32, {1, 1, 4, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

TEST(NnResizeKernel, UpsampleNineLinearAsymmetric) {
  // x / 2 along the last axis: 1, 1.5, 2, 2 (clamped).
  KernelTest test("Upsample", 9);
  test.input(f32({1, 2}, {1, 2})).initializer(f32({2}, {1, 2}));
  test.attribute("mode", "linear").output(F::kFloat32, {1, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 4}, {1, 1.5f, 2, 2});
}

TEST(NnResizeKernel, NeedsScalesOrSizes) {
  KernelTest test("Resize", 13);
  test.input(f32({1, 2}, {1, 2})).no_input().no_input().no_input().output(F::kFloat32, {1, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("'scales' and 'sizes'"), std::string::npos) << kernel.status().message();
}

TEST(NnResizeKernel, RejectsUnknownMode) {
  KernelTest test("Resize", 13);
  test.input(f32({1, 2}, {1, 2})).no_input().input(f32({2}, {1, 1})).attribute("mode", "area");
  test.output(F::kFloat32, {1, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("'area' is not one of nearest, linear, cubic"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ge::cpu_kernels::testing
