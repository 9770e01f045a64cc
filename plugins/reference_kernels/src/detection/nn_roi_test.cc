// RoiAlign, MaxRoiPool and GridSample kernel tests. X = [[0, 1], [2, 3]] is the linear
// function f(y, x) = 2y + x on its pixels, so bilinear samples inside it are f at the
// sample point and averages are f at the mean point; the values are worked out by hand.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "detection/registration.h"
#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor ramp() { return f32({1, 1, 2, 2}, {0, 1, 2, 3}); }

// KernelTest is not movable: the helpers configure one the test owns.
void roi_align(KernelTest& test, const char* coordinates, const char* mode) {
  test.input(ramp())
      .input(f32({1, 4}, {0, 0, 1, 1}))
      .input(i64({1}, {0}))
      .attribute("coordinate_transformation_mode", coordinates)
      .attribute("mode", mode)
      .attribute("sampling_ratio", int64_t{2})
      .output(F::kFloat32, {1, 1, 1, 1});
}

// With several channels the kernel computes a region's samples once for all of them (up
// to 4 x 4 per bin when the grid is adaptive, else again per channel); each channel must
// equal the one-channel run of its plane, in both modes, for fixed and adaptive grids,
// with regions small and large (adaptive grids over 4) and partly outside the image.
TEST(NnRoiAlignKernel, ChannelsShareTheirRegionsSamples) {
  constexpr int64_t kChannels = 3, kHeight = 20, kWidth = 24, kRois = 5;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(2 * kChannels * kHeight * kWidth));
  for (float& v : x) v = value(rng);
  const std::vector<float> rois = {0, 0, 3, 2, 1.5f, 2.5f, 17, 19, -3, -2, 9, 7, 4, 4, 23.5f, 19.5f, 10, 3, 10.5f, 3.2f};
  const std::vector<int64_t> batch = {0, 1, 1, 0, 1};
  for (const char* mode : {"avg", "max"}) {
    for (const int64_t ratio : {int64_t{0}, int64_t{2}}) {
      SCOPED_TRACE(std::string(mode) + " sampling_ratio " + std::to_string(ratio));
      // KernelTest is not movable: each is configured in place.
      auto configure = [&](KernelTest& test, const std::vector<float>& data, int64_t channels) {
        test.input(f32({2, channels, kHeight, kWidth}, data))
            .input(f32({kRois, 4}, rois))
            .input(i64({kRois}, batch))
            .attribute("mode", mode)
            .attribute("sampling_ratio", ratio)
            .attribute("spatial_scale", 0.75f)
            .attribute("output_height", int64_t{3})
            .attribute("output_width", int64_t{4})
            .output(F::kFloat32, {kRois, channels, 3, 4});
      };
      KernelTest all("RoiAlign", 16);
      configure(all, x, kChannels);
      GE_RUN_KERNEL(together, all);
      for (int64_t c = 0; c < kChannels; ++c) {
        std::vector<float> plane;
        for (int64_t n = 0; n < 2; ++n) {
          const auto begin = x.begin() + (n * kChannels + c) * kHeight * kWidth;
          plane.insert(plane.end(), begin, begin + kHeight * kWidth);
        }
        KernelTest one("RoiAlign", 16);
        configure(one, plane, 1);
        GE_RUN_KERNEL(alone, one);
        for (int64_t r = 0; r < kRois; ++r) {
          for (int64_t k = 0; k < 12; ++k) {
            EXPECT_EQ(together[0].data<float>()[(r * kChannels + c) * 12 + k], alone[0].data<float>()[r * 12 + k])
                << "region " << r << " channel " << c << " bin " << k;
          }
        }
      }
    }
  }
}

TEST(NnRoiAlignKernel, HalfPixelClampsSamplesAtTheEdge) {
  // Region [-0.5, 0.5]^2: samples at -0.25 (clamped to 0) and 0.25 per axis; the mean
  // point (0.125, 0.125) gives 2 * 0.125 + 0.125.
  KernelTest test("RoiAlign", 16);
  roi_align(test, "half_pixel", "avg");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 1}, {0.375f});
}

TEST(NnRoiAlignKernel, OutputHalfPixel) {
  KernelTest test("RoiAlign", 16);
  roi_align(test, "output_half_pixel", "avg");  // samples 0.25, 0.75: f(0.5, 0.5)
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 1}, {1.5f});
}

TEST(NnRoiAlignKernel, MaxModeTakesLargestWeightedCorner) {
  // Sample (0.75, 0.75): corner (1, 1) weighs 0.75 * 0.75 -> 0.5625 * 3 = 1.6875.
  KernelTest test("RoiAlign", 16);
  roi_align(test, "output_half_pixel", "max");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 1}, {1.6875f});
}

TEST(NnRoiAlignKernel, BatchIndexOutOfRange) {
  KernelTest test("RoiAlign", 16);
  test.input(ramp()).input(f32({1, 4}, {0, 0, 1, 1})).input(i64({1}, {1})).output(F::kFloat32, {1, 1, 1, 1});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, kKernelIndexOutOfRange);
}

TEST(NnMaxRoiPoolKernel, Bins) {
  // X = 0..8 in 3x3; region (0,0)-(2,2) is 3x3, bins of 1.5 cover rows/cols [0, 2) and [1, 3).
  KernelTest test("MaxRoiPool", 1);
  test.input(f32_iota({1, 1, 3, 3}))
      .input(f32({2, 5}, {0, 0, 0, 2, 2, 0, 0, 0, 1, 1}))
      .attribute("pooled_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {2, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  // Second region (0,0)-(1,1): 2x2 in bins of 1 -> the four pixels.
  expect_tensor<float>(out[0], {2, 1, 2, 2}, {4, 5, 7, 8, 0, 1, 3, 4});
}

TEST(NnMaxRoiPoolKernel, NanInABinWins) {
  // X = 0..8 in 3x3 with x[1][1] = nan: the four 1.5-pixel bins of region (0,0)-(2,2) all
  // hold pixel (1, 1), so all are nan (numpy's max); the region (2,2)-(2,2) is pixel 8.
  Tensor x = f32_iota({1, 1, 3, 3});
  x.data<float>()[4] = std::nanf("");
  KernelTest test("MaxRoiPool", 1);
  test.input(x)
      .input(f32({2, 5}, {0, 0, 0, 2, 2, 0, 2, 2, 2, 2}))
      .attribute("pooled_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {2, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  const float nan = std::nanf("");
  expect_tensor<float>(out[0], {2, 1, 2, 2}, {nan, nan, nan, nan, 8, 8, 8, 8});
}

void grid_sample(KernelTest& test, std::vector<float> grid, int64_t points, const char* mode, const char* padding,
                 int64_t align_corners) {
  test.input(ramp())
      .input(f32({1, 1, points, 2}, std::move(grid)))
      .attribute("mode", mode)
      .attribute("padding_mode", padding)
      .attribute("align_corners", align_corners)
      .output(F::kFloat32, {1, 1, 1, points});
}

TEST(NnGridSampleKernel, BilinearAlignCorners) {
  // (-1,-1) -> pixel (0,0); (1,1) -> (1,1); (0,0) -> (0.5,0.5); (0.5,-1) -> x 0.75, y 0.
  KernelTest test("GridSample", 16);
  grid_sample(test, {-1, -1, 1, 1, 0, 0, 0.5f, -1}, 4, "bilinear", "zeros", 1);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 4}, {0, 3, 1.5f, 0.75f});
}

TEST(NnGridSampleKernel, Opset20NamesTheModesLinearAndCubic) {
  KernelTest linear("GridSample", 20);
  grid_sample(linear, {-1, -1, 1, 1, 0, 0, 0.5f, -1}, 4, "linear", "zeros", 1);
  GE_RUN_KERNEL(out, linear);
  expect_tensor<float>(out[0], {1, 1, 1, 4}, {0, 3, 1.5f, 0.75f});  // as BilinearAlignCorners

  KernelTest old_name("GridSample", 20);
  grid_sample(old_name, {0, 0}, 1, "bilinear", "zeros", 1);
  Result<PreparedKernel> refused = old_name.prepare();
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("not one of linear, nearest, cubic"), std::string::npos)
      << refused.status().message();
}

TEST(NnGridSampleKernel, BilinearZerosPadding) {
  // Without align_corners the corners are pixel edges: (-1,-1) -> (-0.5,-0.5), a quarter
  // of pixel (0,0); (1,1) -> (1.5,1.5), a quarter of pixel (1,1).
  KernelTest test("GridSample", 16);
  grid_sample(test, {0, 0, -1, -1, 1, 1}, 3, "bilinear", "zeros", 0);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 3}, {1.5f, 0, 0.75f});
}

TEST(NnGridSampleKernel, BorderAndReflection) {
  KernelTest border("GridSample", 16);
  grid_sample(border, {1, 1}, 1, "bilinear", "border", 0);  // clamped to pixel (1,1)
  GE_RUN_KERNEL(border_out, border);
  expect_tensor<float>(border_out[0], {1, 1, 1, 1}, {3});
  // x = 2 reflects about 1.5 to 1; y = 0.5: f(0.5, 1) = 2.
  KernelTest reflection("GridSample", 16);
  grid_sample(reflection, {1.5f, 0}, 1, "bilinear", "reflection", 0);
  GE_RUN_KERNEL(reflection_out, reflection);
  expect_tensor<float>(reflection_out[0], {1, 1, 1, 1}, {2});
}

TEST(NnGridSampleKernel, Nearest) {
  // x = 0.6 -> 1, y = 0.3 -> 0: pixel (0, 1).
  KernelTest test("GridSample", 16);
  grid_sample(test, {0.1f, -0.2f}, 1, "nearest", "zeros", 0);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 1}, {1});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
