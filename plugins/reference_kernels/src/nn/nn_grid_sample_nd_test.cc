// GridSample-20 on N-D inputs: X [N, C, D1, ..., Dr], grid [N, D1_out, ..., Dr_out, r]
// with the innermost axis's coordinate first. Hand-derived cases (identity grids,
// whole- and half-voxel shifts, nearest's round half to even) and random cases checked
// against `reference_grid_sample` below, a scalar transcription of the ONNX reference
// (onnx/reference/ops/op_grid_sample.py): it interpolates one axis at a time, outermost
// first, where the kernel sums a tensor product of per-axis taps.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ge/reference_kernels/half_float.h"
#include "testing/kernel_test_util.h"
#include "testing/nn_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

const char* const kPaddings[] = {"zeros", "border", "reflection"};

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t count = 1;
  for (size_t i = from; i < to; ++i) count *= dims[i];
  return count;
}

double round_half_to_even(double v) {
  const double low = std::floor(v);
  const double fraction = v - low;
  if (fraction > 0.5) return low + 1;
  if (fraction < 0.5) return low;
  return std::fmod(low, 2.0) == 0 ? low : low + 1;
}

// Folds x into [low, high] as a triangle wave of period 2 (high - low).
double fold(double x, double low, double high) {
  const double range = high - low;
  if (range <= 0) return low;
  double t = std::fmod(x - low, 2 * range);
  if (t < 0) t += 2 * range;
  return t <= range ? low + t : high - (t - range);
}

// Keys' cubic convolution kernel, a = -0.75, at distance t.
double keys(double t) {
  constexpr double a = -0.75;
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

std::vector<double> reference_grid_sample(const std::vector<int64_t>& x_dims, const std::vector<double>& x,
                                          const std::vector<int64_t>& grid_dims, const std::vector<double>& grid,
                                          const std::string& mode, const std::string& padding, bool align_corners) {
  const size_t rank = x_dims.size() - 2;
  const int64_t batch = x_dims[0], channels = x_dims[1];
  const int64_t image_size = product(x_dims, 2, x_dims.size());
  const int64_t points = product(grid_dims, 1, grid_dims.size() - 1);
  std::vector<double> y(static_cast<size_t>(batch * channels * points));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const double* image = x.data() + (n * channels + c) * image_size;
      for (int64_t o = 0; o < points; ++o) {
        std::vector<double> location(rank);
        for (size_t a = 0; a < rank; ++a) {
          const double length = static_cast<double>(x_dims[2 + a]);
          const double g = grid[static_cast<size_t>((n * points + o) * static_cast<int64_t>(rank)) + rank - 1 - a];
          double s = align_corners ? (g + 1) / 2 * (length - 1) : ((g + 1) * length - 1) / 2;
          if (mode == "nearest") s = round_half_to_even(s);
          const double low = align_corners ? 0 : -0.5, high = align_corners ? length - 1 : length - 0.5;
          if (s < low || s > high) {
            if (padding == "border") s = std::min(std::max(s, 0.0), length - 1);
            if (padding == "reflection") s = fold(s, low, high);
          }
          location[a] = s;
        }
        // The value of the (rank - a)-D slice at `offset` sampled at location[a..].
        std::function<double(size_t, int64_t)> sample = [&](size_t a, int64_t offset) -> double {
          if (a == rank) return image[offset];
          const int64_t length = x_dims[2 + a];
          const int64_t stride = product(x_dims, 3 + a, x_dims.size());
          const double low = align_corners ? 0 : -0.5;
          const double high = align_corners ? static_cast<double>(length - 1) : static_cast<double>(length) - 0.5;
          auto at = [&](int64_t i) -> double {
            if (padding == "zeros") {
              if (i < 0 || i >= length) return 0;
            } else if (padding == "border") {
              i = std::min<int64_t>(std::max<int64_t>(i, 0), length - 1);
            } else {
              i = static_cast<int64_t>(fold(static_cast<double>(i), low, high));
              EXPECT_TRUE(i >= 0 && i < length) << i;
            }
            return sample(a + 1, offset + i * stride);
          };
          const double s = location[a];
          if (mode == "nearest") return at(static_cast<int64_t>(s));
          const auto first = static_cast<int64_t>(std::floor(s));
          if (mode == "linear") return (1 - (s - static_cast<double>(first))) * at(first) + (s - first) * at(first + 1);
          double sum = 0;
          for (int64_t i = first - 1; i <= first + 2; ++i) sum += keys(s - static_cast<double>(i)) * at(i);
          return sum;
        };
        y[static_cast<size_t>((n * channels + c) * points + o)] = sample(0, 0);
      }
    }
  }
  return y;
}

// The grid that samples every pixel of spatial dims `dims` at its centre, batch 1.
std::vector<double> identity_grid(const std::vector<int64_t>& dims, bool align_corners) {
  const size_t rank = dims.size();
  std::vector<double> grid;
  const int64_t points = product(dims, 0, rank);
  for (int64_t p = 0; p < points; ++p) {
    std::vector<int64_t> index(rank);
    int64_t rest = p;
    for (size_t a = rank; a-- > 0;) {
      index[a] = rest % dims[a];
      rest /= dims[a];
    }
    for (size_t a = rank; a-- > 0;) {  // innermost axis first
      const auto d = static_cast<double>(dims[a]), i = static_cast<double>(index[a]);
      grid.push_back(align_corners ? (d == 1 ? 0 : -1 + 2 * i / (d - 1)) : (2 * i + 1) / d - 1);
    }
  }
  return grid;
}

std::vector<float> to_float(const std::vector<double>& values) { return {values.begin(), values.end()}; }

std::vector<double> uniform(size_t count, double low, double high, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  std::vector<double> values(count);
  // Through float, so that the float32 tensors hold exactly what the reference reads.
  for (double& v : values) v = static_cast<float>(distribution(engine));
  return values;
}

void configure(KernelTest& test, const std::vector<int64_t>& x_dims, const std::vector<double>& x,
               const std::vector<int64_t>& grid_dims, const std::vector<double>& grid, const std::string& mode,
               const std::string& padding, bool align_corners) {
  std::vector<int64_t> y_dims = {x_dims[0], x_dims[1]};
  y_dims.insert(y_dims.end(), grid_dims.begin() + 1, grid_dims.end() - 1);
  test.input(f32(x_dims, to_float(x)))
      .input(f32(grid_dims, to_float(grid)))
      .attribute("mode", mode)
      .attribute("padding_mode", padding)
      .attribute("align_corners", static_cast<int64_t>(align_corners))
      .output(F::kFloat32, y_dims);
}

// Runs float32 GridSample-20 and checks it against `expected` and the reference.
void expect_grid_sample(const std::vector<int64_t>& x_dims, const std::vector<double>& x,
                        const std::vector<int64_t>& grid_dims, const std::vector<double>& grid, const std::string& mode,
                        const std::string& padding, bool align_corners, const std::vector<double>& expected) {
  SCOPED_TRACE(mode + ", " + padding + ", align_corners " + std::to_string(align_corners));
  const std::vector<double> reference = reference_grid_sample(x_dims, x, grid_dims, grid, mode, padding, align_corners);
  KernelTest test("GridSample", 20);
  configure(test, x_dims, x, grid_dims, grid, mode, padding, align_corners);
  GE_RUN_KERNEL(out, test);
  const std::vector<int64_t> y_dims = out[0].shape();
  {
    SCOPED_TRACE("vs the scalar reference");
    expect_tensor<float>(out[0], y_dims, to_float(reference));
  }
  if (!expected.empty()) {
    SCOPED_TRACE("vs the hand-derived values");
    expect_tensor<float>(out[0], y_dims, to_float(expected));
  }
}

TEST(NnGridSampleNdKernel, IdentityGridReproducesVolume) {
  const std::vector<int64_t> x_dims = {1, 2, 2, 3, 4};
  std::vector<double> x;
  for (int i = 0; i < 48; ++i) x.push_back(-5 + 0.5 * i);
  for (bool align_corners : {false, true}) {
    for (const char* mode : {"linear", "nearest"}) {
      for (const char* padding : kPaddings) {
        expect_grid_sample(x_dims, x, {1, 2, 3, 4, 3}, identity_grid({2, 3, 4}, align_corners), mode, padding,
                           align_corners, x);
      }
    }
  }
}

// X [1, 1, 3, 2, 5] (D, H, W) holds 100 d + 10 h + w. With align_corners a whole voxel
// is 2 / (length - 1): 1 along D, 0.5 along W, exact in float. Shifting the identity grid
// by one voxel along an axis reads the next voxel; past the last one zeros reads 0,
// border the last voxel and reflection the one before it.
TEST(NnGridSampleNdKernel, WholeVoxelShiftAlongDepthAndWidth) {
  const std::vector<int64_t> spatial = {3, 2, 5};
  const std::vector<int64_t> x_dims = {1, 1, 3, 2, 5};
  std::vector<double> x;
  for (int d = 0; d < 3; ++d) {
    for (int h = 0; h < 2; ++h) {
      for (int w = 0; w < 5; ++w) x.push_back(100 * d + 10 * h + w);
    }
  }
  // axis: 0 = D (grid coordinate z, index 2), 2 = W (coordinate x, index 0).
  for (int axis : {0, 2}) {
    std::vector<double> grid = identity_grid(spatial, true);
    const size_t coordinate = 2 - static_cast<size_t>(axis);
    for (size_t i = coordinate; i < grid.size(); i += 3) grid[i] += 2.0 / static_cast<double>(spatial[axis] - 1);
    for (const char* mode : {"linear", "nearest"}) {
      for (const char* padding : kPaddings) {
        std::vector<double> expected;
        for (int d = 0; d < 3; ++d) {
          for (int h = 0; h < 2; ++h) {
            for (int w = 0; w < 5; ++w) {
              int index[3] = {d, h, w};
              const int last = static_cast<int>(spatial[axis]) - 1;
              if (index[axis] < last) {
                ++index[axis];
              } else if (std::string(padding) == "reflection") {
                index[axis] = last - 1;
              } else if (std::string(padding) == "zeros") {
                expected.push_back(0);
                continue;
              }
              expected.push_back(100 * index[0] + 10 * index[1] + index[2]);
            }
          }
        }
        SCOPED_TRACE("shift along axis " + std::to_string(axis));
        expect_grid_sample(x_dims, x, {1, 3, 2, 5, 3}, grid, mode, padding, true, expected);
      }
    }
  }
}

// Without align_corners H = 2 spans [-1, 1] with centres -0.5, 0.5; adding 0.5 (half a
// voxel) to y samples h + 0.5: the mean of rows 0 and 1, then at 1.5 (the edge, not
// outside) half of row 1 and half of the tap past it: 0 (zeros) or row 1 again.
TEST(NnGridSampleNdKernel, HalfVoxelShiftAlongHeightAveragesRows) {
  const std::vector<int64_t> x_dims = {1, 1, 2, 2, 2};
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8};  // [d][h][w]
  std::vector<double> grid = identity_grid({2, 2, 2}, false);
  for (size_t i = 1; i < grid.size(); i += 3) grid[i] += 0.5;
  for (const char* padding : kPaddings) {
    const bool zeros = std::string(padding) == "zeros";
    const double k = zeros ? 0.5 : 1;
    // rows (h 0, h 1) of d 0: (1, 2), (3, 4); of d 1: (5, 6), (7, 8).
    const std::vector<double> expected = {2, 3, 3 * k, 4 * k, 6, 7, 7 * k, 8 * k};
    expect_grid_sample(x_dims, x, {1, 2, 2, 2, 3}, grid, "linear", padding, false, expected);
  }
}

// align_corners, length 5: z = -0.75, -0.25, 0.25, 0.75 land on 0.5, 1.5, 2.5, 3.5, which
// round half to even to 0, 2, 2, 4. The length-1 axes map every coordinate to 0.
TEST(NnGridSampleNdKernel, NearestRoundsHalfToEven) {
  const std::vector<double> x = {10, 11, 12, 13, 14};
  const std::vector<double> expected = {10, 12, 12, 14};
  for (const char* padding : kPaddings) {
    expect_grid_sample({1, 1, 5, 1, 1}, x, {1, 4, 1, 1, 3},
                       {0.3, -0.9, -0.75, 0.3, -0.9, -0.25, 0.3, -0.9, 0.25, 0.3, -0.9, 0.75}, "nearest", padding, true,
                       expected);
    expect_grid_sample({1, 1, 5}, x, {1, 4, 1}, {-0.75, -0.25, 0.25, 0.75}, "nearest", padding, true, expected);
  }
}

// 3-D X [N, C, W]: one spatial axis. Without align_corners W = 4 has centres at
// -0.75, -0.25, 0.25, 0.75; x = 0 is midway between pixels 1 and 2, x = -1 is the left
// edge (-0.5: half of pixel 0 and half of the tap before it), x = 1.5 is outside.
TEST(NnGridSampleNdKernel, OneSpatialAxis) {
  const std::vector<double> x = {1, 2, 4, 8, -1, -2, -4, -8};  // [1, 2, 4]
  const std::vector<double> grid = {0, -1, 1.5, -0.75};
  // 1.5 -> 4.5: zeros 0; border pixel 3; reflection about 3.5 -> 2.5, between 2 and 3.
  expect_grid_sample({1, 2, 4}, x, {1, 4, 1}, grid, "linear", "zeros", false, {3, 0.5, 0, 1, -3, -0.5, 0, -1});
  expect_grid_sample({1, 2, 4}, x, {1, 4, 1}, grid, "linear", "border", false, {3, 1, 8, 1, -3, -1, -8, -1});
  expect_grid_sample({1, 2, 4}, x, {1, 4, 1}, grid, "linear", "reflection", false, {3, 1, 6, 1, -3, -1, -6, -1});
  for (bool align_corners : {false, true}) {
    for (const char* mode : {"linear", "nearest"}) {
      for (const char* padding : kPaddings) {
        expect_grid_sample({2, 3, 5}, uniform(30, -2, 2, 7), {2, 6, 1}, uniform(12, -1.6, 1.6, 8), mode, padding,
                           align_corners, {});
      }
    }
  }
}

// Random X and a grid reaching past [-1, 1] (so every padding mode matters), for 5-D,
// and for 4-D the path GridSample-16 also takes, cubic included.
TEST(NnGridSampleNdKernel, RandomMatchesScalarReference) {
  uint32_t seed = 1;
  for (bool align_corners : {false, true}) {
    for (const char* padding : kPaddings) {
      for (const char* mode : {"linear", "nearest"}) {
        expect_grid_sample({2, 2, 3, 4, 5}, uniform(240, -2, 2, seed), {2, 2, 3, 4, 3},
                           uniform(144, -1.4, 1.4, seed + 100), mode, padding, align_corners, {});
        ++seed;
      }
      for (const char* mode : {"linear", "nearest", "cubic"}) {
        expect_grid_sample({2, 3, 4, 5}, uniform(120, -2, 2, seed), {2, 3, 2, 2}, uniform(24, -1.4, 1.4, seed + 100),
                           mode, padding, align_corners, {});
        ++seed;
      }
    }
  }
}

TEST(NnGridSampleNdKernel, Float64) {
  const std::vector<int64_t> x_dims = {1, 2, 3, 2, 4}, grid_dims = {1, 2, 2, 3, 3};
  const std::vector<double> x = uniform(48, -3, 3, 41), grid = uniform(36, -1.3, 1.3, 42);
  for (const char* padding : kPaddings) {
    KernelTest test("GridSample", 20);
    test.input(f64(x_dims, x))
        .input(f64(grid_dims, grid))
        .attribute("padding_mode", std::string(padding))  // mode: "linear", the default
        .output(F::kFloat64, {1, 2, 2, 2, 3});
    GE_RUN_KERNEL(out, test);
    expect_tensor<double>(out[0], {1, 2, 2, 2, 3},
                          reference_grid_sample(x_dims, x, grid_dims, grid, "linear", padding, false), 1e-12);
  }
}

// An identity grid with align_corners on lengths 2 and 3 is -1, 0, 1: exact in float16,
// so the samples are X's values bit for bit.
TEST(NnGridSampleNdKernel, Float16IdentityGrid) {
  std::vector<uint16_t> x_bits, grid_bits;
  for (int i = 0; i < 12; ++i) x_bits.push_back(float16_from_float(static_cast<float>(i) - 4.5f));
  for (double g : identity_grid({2, 2, 3}, true)) grid_bits.push_back(float16_from_float(static_cast<float>(g)));
  for (const char* mode : {"linear", "nearest"}) {
    KernelTest test("GridSample", 22);
    test.input(float16_bits({1, 1, 2, 2, 3}, x_bits))
        .input(float16_bits({1, 2, 2, 3, 3}, grid_bits))
        .attribute("mode", std::string(mode))
        .attribute("align_corners", int64_t{1})
        .output(F::kFloat16, {1, 1, 2, 2, 3});
    GE_RUN_KERNEL(out, test);
    EXPECT_EQ(bits_of(out[0]), x_bits) << mode;
  }
}

// ONNX's cubic is N-cubic (4 taps per spatial axis), as its reference implements it.
TEST(NnGridSampleNdKernel, CubicOnOneAndThreeSpatialAxes) {
  uint32_t seed = 300;
  for (bool align_corners : {false, true}) {
    for (const char* padding : kPaddings) {
      expect_grid_sample({1, 2, 3, 4, 5}, uniform(120, -2, 2, seed), {1, 2, 2, 3, 3}, uniform(36, -1.4, 1.4, seed + 100),
                         "cubic", padding, align_corners, {});
      expect_grid_sample({2, 1, 6}, uniform(12, -2, 2, seed + 1), {2, 5, 1}, uniform(10, -1.4, 1.4, seed + 101),
                         "cubic", padding, align_corners, {});
      seed += 2;
    }
  }
}

TEST(NnGridSampleNdKernel, ShapesAreChecked) {
  KernelTest opset16("GridSample", 16);
  configure(opset16, {1, 1, 2, 2, 2}, std::vector<double>(8, 1), {1, 1, 1, 1, 3}, {0, 0, 0}, "bilinear", "zeros",
            false);
  expect_invalid(opset16, "must be 4-D [N, C, H, W] (N-D X needs opset 20)");
  KernelTest coordinates("GridSample", 20);  // 3 spatial axes but 2 coordinates
  configure(coordinates, {1, 1, 2, 2, 2}, std::vector<double>(8, 1), {1, 1, 1, 1, 2}, {0, 0}, "linear", "zeros", false);
  expect_invalid(coordinates, "must be [N, D1_out, ..., Dr_out, r] with r = 3");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
