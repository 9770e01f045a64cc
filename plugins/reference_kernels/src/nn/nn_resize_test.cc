// Resize / Upsample kernel tests. Expected values come from the ONNX reference
// implementation (onnx.backend.test.case.node.resize.interpolate_nd, run with
// /usr/bin/python3), or by hand where shown.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nn/registration.h"
#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
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

// Resizing the last two axes runs plane by plane; the same resize with a trailing axis of
// extent 1 runs the generic loop over every axis. Both sum the same terms in the same
// order: equal to the bit, for linear and cubic, up- and downsampling, several planes.
TEST(NnResizeKernel, PlaneByPlaneEqualsTheGenericLoop) {
  std::vector<float> data(2 * 3 * 5 * 7);
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::sin(static_cast<float>(i) * 0.37f) * 3.0f;
  for (const char* mode : {"linear", "cubic"}) {
    for (const std::vector<int64_t>& size : {std::vector<int64_t>{8, 11}, std::vector<int64_t>{3, 4}}) {
      SCOPED_TRACE(std::string(mode) + " to " + std::to_string(size[0]) + "x" + std::to_string(size[1]));
      KernelTest planes("Resize", 13);
      planes.input(f32({2, 3, 5, 7}, data)).no_input().no_input().initializer(i64({4}, {2, 3, size[0], size[1]}));
      planes.attribute("mode", mode).output(F::kFloat32, {2, 3, size[0], size[1]});
      GE_RUN_KERNEL(got, planes);
      KernelTest generic("Resize", 13);
      generic.input(f32({2, 3, 5, 7, 1}, data)).no_input().no_input().initializer(i64({5}, {2, 3, size[0], size[1], 1}));
      generic.attribute("mode", mode).output(F::kFloat32, {2, 3, size[0], size[1], 1});
      GE_RUN_KERNEL(want, generic);
      ASSERT_EQ(got[0].element_count(), want[0].element_count());
      for (int64_t i = 0; i < got[0].element_count(); ++i) EXPECT_EQ(got[0].data<float>()[i], want[0].data<float>()[i]) << i;
    }
  }
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

// ---- opsets 18 and 19: antialias, axes, keep_aspect_ratio_policy, half_pixel_symmetric ----
// Expected values from the ONNX reference Resize (onnx/reference/ops/op_resize.py at the
// onnx mirror's HEAD, run verbatim with /usr/bin/python3 and numpy; only its onnx imports
// replaced, saturate_cast by astype). The reference needs axes normalised, so a negative
// axis here was given to it as the positive one.

TEST(NnResizeKernel, Opset18AntialiasLinearDownscaleWithScales) {
  KernelTest test("Resize", 18);
  test.input(f32_4x4()).no_input().input(f32({4}, {1, 1, 0.6f, 0.6f}));
  test.attribute("mode", "linear").attribute("antialias", int64_t{1}).output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {2.875f, 4.5f, 9.375f, 11});
}

TEST(NnResizeKernel, Opset18AntialiasCubicDownscaleWithSizes) {
  KernelTest test("Resize", 18);
  test.input(f32_4x4()).no_input().no_input().input(i64({4}, {1, 1, 3, 3}));
  test.attribute("mode", "cubic").attribute("antialias", int64_t{1}).output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3},
                       {1.77500916f, 3.12000728f, 4.4650054f, 7.15500164f, 8.5f, 9.84499836f, 12.5349941f,
                        13.8799925f, 15.2249908f});
}

TEST(NnResizeKernel, Opset18AntialiasLinearExcludeOutsideOnOneAxis) {
  // 8 -> floor(8 * 0.4) = 3 along axis 1 only: a 6-tap filter.
  KernelTest test("Resize", 18);
  test.input(f32({1, 8}, {3, 9, 1, 7, 2, 8, 4, 6})).no_input().input(f32({1}, {0.4f}));
  test.attribute("mode", "linear")
      .attribute("antialias", int64_t{1})
      .attribute("exclude_outside", int64_t{1})
      .attribute("axes", std::vector<int64_t>{1})
      .output(F::kFloat32, {1, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3}, {5.18181801f, 4.5999999f, 5.33333349f});
}

TEST(NnResizeKernel, Opset18AntialiasCubicOnNegativeAxisWithSizes) {
  KernelTest test("Resize", 18);
  test.input(f32({1, 8}, {3, 9, 1, 7, 2, 8, 4, 6})).no_input().no_input().initializer(i64({1}, {2}));
  test.attribute("mode", "cubic")
      .attribute("antialias", int64_t{1})
      .attribute("cubic_coeff_a", -0.5f)
      .attribute("axes", std::vector<int64_t>{-1})
      .output(F::kFloat32, {1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2}, {4.60253906f, 5.31347656f});
}

TEST(NnResizeKernel, Opset18AntialiasUpscaleKeepsTheCubicFilter) {
  KernelTest test("Resize", 18);
  test.input(f32({1, 3}, {1, 4, 2})).no_input().input(f32({2}, {1, 2}));
  test.attribute("mode", "cubic").attribute("antialias", int64_t{1}).output(F::kFloat32, {1, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 6}, {0.68359375f, 1.75f, 3.53125f, 3.86328125f, 2.55859375f, 1.7890625f});
}

TEST(NnResizeKernel, Opset18AxesTakeScalesInTheirOrder) {
  // axes [2, 1] with scales [0.5, 2] on a [2, 3, 4] tensor: [2, 6, 2].
  KernelTest test("Resize", 18);
  test.input(f32_iota({2, 3, 4})).no_input().input(f32({2}, {0.5f, 2}));
  test.attribute("mode", "linear").attribute("axes", std::vector<int64_t>{2, 1}).output(F::kFloat32, {2, 6, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 6, 2},
                       {0.5f,  2.5f,  1.5f,  3.5f,  3.5f,  5.5f,  5.5f,  7.5f,  7.5f,  9.5f,  8.5f,  10.5f,
                        12.5f, 14.5f, 13.5f, 15.5f, 15.5f, 17.5f, 17.5f, 19.5f, 19.5f, 21.5f, 20.5f, 22.5f});
}

TEST(NnResizeKernel, Opset18NotLargerKeepsTheAspectRatio) {
  // sizes [7, 8] of a 2x2 image: scale min(7/2, 8/2) = 3.5 on both axes, 7x7.
  KernelTest test("Resize", 18);
  test.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().no_input().input(i64({2}, {7, 8}));
  test.attribute("axes", std::vector<int64_t>{2, 3})
      .attribute("keep_aspect_ratio_policy", "not_larger")
      .output(F::kFloat32, {1, 1, 7, 7});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 7, 7}, {1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1,
                                              2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 3, 3, 3, 3, 4, 4, 4});
}

TEST(NnResizeKernel, Opset18NotSmallerLinear) {
  // sizes [3, 5]: scale max(3/2, 5/2) = 2.5, 5x5.
  KernelTest test("Resize", 18);
  test.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().no_input().input(i64({2}, {3, 5}));
  test.attribute("mode", "linear")
      .attribute("axes", std::vector<int64_t>{2, 3})
      .attribute("keep_aspect_ratio_policy", "not_smaller")
      .output(F::kFloat32, {1, 1, 5, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 5, 5},
                       {1,    1.10000002f, 1.5f, 1.89999998f, 2,    1.20000005f, 1.29999995f, 1.70000005f, 2.0999999f,
                        2.20000005f, 2,    2.0999999f, 2.5f, 2.9000001f, 3,    2.79999995f, 2.9000001f, 3.29999995f,
                        3.70000005f, 3.79999995f, 3,    3.0999999f, 3.5f, 3.9000001f, 4});
}

TEST(NnResizeKernel, Opset18NotLargerRoundsExtentsHalfUp) {
  // [1, 1, 3, 5], axes [3, 2], sizes [2, 4]: scale min(2/5, 4/3) = 0.4 gives extents
  // round(1.2) = 1 and round(2) = 2; align_corners divides by the resized lengths 1.2
  // and 2, so the row is row 0 and the columns 0 and 4. Runtime and constant sizes.
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "constant sizes" : "runtime sizes");
    KernelTest test("Resize", 18);
    test.input(f32_iota({1, 1, 3, 5}, 1.0f)).no_input().no_input();
    if (constant) {
      test.initializer(i64({2}, {2, 4}));
    } else {
      test.input(i64({2}, {2, 4}));
    }
    test.attribute("mode", "linear")
        .attribute("coordinate_transformation_mode", "align_corners")
        .attribute("axes", std::vector<int64_t>{3, 2})
        .attribute("keep_aspect_ratio_policy", "not_larger")
        .output(F::kFloat32, {1, 1, 1, 2});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {1, 1, 1, 2}, {1, 5});
  }
}

TEST(NnResizeKernel, Opset18SizesThatContradictTheOutput) {
  // not_larger of [7, 8] on 2x2 is 7x7, not 7x8.
  KernelTest constant("Resize", 18);
  constant.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().no_input().initializer(i64({2}, {7, 8}));
  constant.attribute("axes", std::vector<int64_t>{2, 3}).attribute("keep_aspect_ratio_policy", "not_larger");
  constant.output(F::kFloat32, {1, 1, 7, 8});
  expect_prepare_error(constant, StatusCode::kInvalidArgument, "contradicts the output");
  KernelTest runtime("Resize", 18);
  runtime.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().no_input().input(i64({2}, {7, 8}));
  runtime.attribute("axes", std::vector<int64_t>{2, 3}).attribute("keep_aspect_ratio_policy", "not_larger");
  runtime.output(F::kFloat32, {1, 1, 7, 8});
  int code = 0;
  (void)runtime.run(&code);
  EXPECT_EQ(code, reference_kernels::kKernelRuntimeSizeMismatch);
  KernelTest stretch("Resize", 18);
  stretch.input(f32({1, 2}, {1, 2})).no_input().no_input().input(i64({2}, {1, 3})).output(F::kFloat32, {1, 4});
  code = 0;
  (void)stretch.run(&code);
  EXPECT_EQ(code, reference_kernels::kKernelRuntimeSizeMismatch);
}

TEST(NnResizeKernel, Opset19HalfPixelSymmetricDownscale) {
  // Scale 0.6 of 4 is 2.4, extent 2: the sampling grid is centred (half_pixel gives
  // 1.33333, 3).
  KernelTest test("Resize", 19);
  test.input(f32({1, 1, 1, 4}, {1, 2, 3, 4})).no_input().input(f32({4}, {1, 1, 1, 0.6f}));
  test.attribute("mode", "linear").attribute("coordinate_transformation_mode", "half_pixel_symmetric");
  test.output(F::kFloat32, {1, 1, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 2}, {1.66666675f, 3.33333325f});
}

TEST(NnResizeKernel, Opset19HalfPixelSymmetricUpscale) {
  KernelTest test("Resize", 19);
  test.input(f32({1, 1, 2, 2}, {1, 2, 3, 4})).no_input().input(f32({4}, {1, 1, 2.3f, 2.94f}));
  test.attribute("mode", "linear").attribute("coordinate_transformation_mode", "half_pixel_symmetric");
  test.output(F::kFloat32, {1, 1, 4, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4, 5},
                       {1,           1.15986395f, 1.5f,        1.84013605f, 2,           1.56521738f, 1.72508132f,
                        2.06521749f, 2.40535355f, 2.56521749f, 2.43478251f, 2.59464645f, 2.93478251f, 3.27491856f,
                        3.43478251f, 3,           3.15986395f, 3.5f,        3.84013605f, 4});
}

TEST(NnResizeKernel, Opset18TfCropAndResizeRoiOnAxes) {
  // The roi lists only the axes [2, 3]: starts [0.4, 0.6], ends [1.2, 1.7].
  KernelTest test("Resize", 18);
  test.input(f32_4x4()).input(f32({4}, {0.4f, 0.6f, 1.2f, 1.7f})).no_input().input(i64({2}, {3, 3}));
  test.attribute("mode", "linear")
      .attribute("coordinate_transformation_mode", "tf_crop_and_resize")
      .attribute("extrapolation_value", 10.0f)
      .attribute("axes", std::vector<int64_t>{2, 3})
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {7.60000038f, 10, 10, 12.4000006f, 10, 10, 10, 10, 10});
}

TEST(NnResizeKernel, Opset18InvalidAttributesAndInputs) {
  {
    KernelTest test("Resize", 19);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 2}));
    test.attribute("coordinate_transformation_mode", "half_pixel_symmetric").output(F::kFloat32, {1, 8});
    EXPECT_TRUE(test.prepare().is_ok());
    KernelTest early("Resize", 18);
    early.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 2}));
    early.attribute("coordinate_transformation_mode", "half_pixel_symmetric").output(F::kFloat32, {1, 8});
    expect_prepare_error(early, StatusCode::kInvalidArgument, "needs opset 19");
  }
  {
    KernelTest test("Resize", 13);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({1}, {2}));
    test.attribute("axes", std::vector<int64_t>{1}).output(F::kFloat32, {1, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "needs opset 18");
  }
  {
    KernelTest test("Resize", 18);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {2, 2}));
    test.attribute("axes", std::vector<int64_t>{1, -1}).output(F::kFloat32, {2, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "names axis 1 twice");
  }
  {
    KernelTest test("Resize", 18);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 2}));
    test.attribute("axes", std::vector<int64_t>{1}).output(F::kFloat32, {1, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "must hold 1 values");
  }
  {
    KernelTest test("Resize", 18);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({1}, {2}));
    test.attribute("axes", std::vector<int64_t>{1}).output(F::kFloat32, {2, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "axis 0 is not in 'axes'");
  }
  {
    KernelTest test("Resize", 18);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 2})).input(i64({2}, {1, 8}));
    test.output(F::kFloat32, {1, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "both given");
  }
  {
    KernelTest test("Resize", 18);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 2}));
    test.attribute("antialias", int64_t{2}).output(F::kFloat32, {1, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "is not 0 or 1");
  }
  {
    KernelTest test("Resize", 18);
    test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 2}));
    test.attribute("keep_aspect_ratio_policy", "fit").output(F::kFloat32, {1, 8});
    expect_prepare_error(test, StatusCode::kInvalidArgument, "'fit' is not one of stretch, not_larger, not_smaller");
  }
}

TEST(NnResizeKernel, Opset18NonPositiveScaleFailsAtLaunch) {
  KernelTest test("Resize", 18);
  test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, -2}));
  test.attribute("mode", "linear").output(F::kFloat32, {1, 8});
  int code = 0;
  (void)test.run(&code);
  EXPECT_EQ(code, reference_kernels::kKernelInvalidRuntimeValue);
}

TEST(NnResizeKernel, Opset18AntialiasScaleTooSmallForTheOutputFailsAtLaunch) {
  // The output desc says 4 -> 2 (at most 6 taps), but scale 0.1 needs a 20-tap filter
  // the tables were not planned for.
  KernelTest test("Resize", 18);
  test.input(f32({1, 4}, {1, 2, 3, 4})).no_input().input(f32({2}, {1, 0.1f}));
  test.attribute("mode", "linear").attribute("antialias", int64_t{1}).output(F::kFloat32, {1, 2});
  int code = 0;
  (void)test.run(&code);
  EXPECT_EQ(code, reference_kernels::kKernelRuntimeSizeMismatch);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
