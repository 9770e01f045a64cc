// GridSample (opset 16): samples X [N, C, H, W] at the normalised locations of grid
// [N, H_out, W_out, 2] ((x, y) in [-1, 1]) with mode bilinear, nearest (round half to
// even) or bicubic (Keys, a = -0.75), padding_mode zeros, border or reflection and
// align_corners, as ONNX Runtime does: a location outside the image is first clamped
// (border) or reflected (reflection) into it; then each tap reads the pixel, or for
// taps outside the image 0 (zeros), the clamped pixel (border) or the reflected pixel
// (reflection).

#include <algorithm>
#include <cmath>
#include <string>

#include "nn_element.h"
#include "nn_kernels.h"
#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

using nn::load;
using nn::store;

enum class SampleMode { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridSampleParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0, out_height = 0, out_width = 0;
  SampleMode mode = SampleMode::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
};

double denormalize(double n, int64_t length, bool align_corners) {
  return align_corners ? (n + 1) / 2 * static_cast<double>(length - 1)
                       : ((n + 1) * static_cast<double>(length) - 1) / 2;
}

// Reflects x by the nearer border until it lies in [low, high].
double reflect(double x, double low, double high) {
  const double range = high - low;
  if (range <= 0) return low;
  if (x < low) {
    const double d = low - x;
    const auto n = static_cast<int64_t>(d / range);
    const double r = d - static_cast<double>(n) * range;
    return n % 2 == 0 ? low + r : high - r;
  }
  if (x > high) {
    const double d = x - high;
    const auto n = static_cast<int64_t>(d / range);
    const double r = d - static_cast<double>(n) * range;
    return n % 2 == 0 ? high - r : low + r;
  }
  return x;
}

void cubic_coefficients(double t, double coefficients[4]) {
  constexpr double a = -0.75;
  t = std::fabs(t);
  coefficients[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  coefficients[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  coefficients[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
  coefficients[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
}

template <typename T>
int grid_sample_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GridSampleParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* grid = static_cast<const T*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || grid == nullptr || y == nullptr) return kKernelMissingAddress;
  const double x_min = p.align_corners ? 0.0 : -0.5;
  const double y_min = x_min;
  const double x_max = p.align_corners ? static_cast<double>(p.width - 1) : static_cast<double>(p.width) - 0.5;
  const double y_max = p.align_corners ? static_cast<double>(p.height - 1) : static_cast<double>(p.height) - 0.5;
  const int64_t out_plane = p.out_height * p.out_width;
  for (int64_t n = 0; n < p.batch; ++n) {
    const T* points = grid + n * out_plane * 2;
    for (int64_t c = 0; c < p.channels; ++c) {
      const T* image = x + (n * p.channels + c) * p.height * p.width;
      T* out = y + (n * p.channels + c) * out_plane;
      auto pixel = [&](int64_t r, int64_t col) -> double {
        if (p.padding == Padding::kZeros) {
          return (r >= 0 && r < p.height && col >= 0 && col < p.width) ? load(image[r * p.width + col]) : 0.0;
        }
        if (p.padding == Padding::kBorder) {
          r = std::clamp<int64_t>(r, 0, p.height - 1);
          col = std::clamp<int64_t>(col, 0, p.width - 1);
        } else {
          col = static_cast<int64_t>(reflect(static_cast<double>(col), x_min, x_max));
          r = static_cast<int64_t>(reflect(static_cast<double>(r), y_min, y_max));
          r = std::clamp<int64_t>(r, 0, p.height - 1);
          col = std::clamp<int64_t>(col, 0, p.width - 1);
        }
        return load(image[r * p.width + col]);
      };
      for (int64_t i = 0; i < out_plane; ++i) {
        double sx = denormalize(load(points[i * 2]), p.width, p.align_corners);
        double sy = denormalize(load(points[i * 2 + 1]), p.height, p.align_corners);
        if (p.mode == SampleMode::kNearest) {
          sx = std::nearbyint(sx);
          sy = std::nearbyint(sy);
        }
        if (sx < x_min || sx > x_max || sy < y_min || sy > y_max) {
          if (p.padding == Padding::kBorder) {
            sx = std::clamp(sx, 0.0, static_cast<double>(p.width - 1));
            sy = std::clamp(sy, 0.0, static_cast<double>(p.height - 1));
          } else if (p.padding == Padding::kReflection) {
            sx = reflect(sx, x_min, x_max);
            sy = reflect(sy, y_min, y_max);
          }
        }
        double value = 0;
        if (p.mode == SampleMode::kNearest) {
          value = pixel(static_cast<int64_t>(sy), static_cast<int64_t>(sx));
        } else if (p.mode == SampleMode::kBilinear) {
          const auto x1 = static_cast<int64_t>(std::floor(sx)), y1 = static_cast<int64_t>(std::floor(sy));
          const int64_t x2 = x1 + 1, y2 = y1 + 1;
          const double dx2 = static_cast<double>(x2) - sx, dx1 = sx - static_cast<double>(x1);
          const double dy2 = static_cast<double>(y2) - sy, dy1 = sy - static_cast<double>(y1);
          value = dy2 * (dx2 * pixel(y1, x1) + dx1 * pixel(y1, x2)) + dy1 * (dx2 * pixel(y2, x1) + dx1 * pixel(y2, x2));
        } else {
          const int64_t x0 = static_cast<int64_t>(std::floor(sx)) - 1, y0 = static_cast<int64_t>(std::floor(sy)) - 1;
          double cx[4], cy[4];
          cubic_coefficients(sx - static_cast<double>(x0) - 1, cx);
          cubic_coefficients(sy - static_cast<double>(y0) - 1, cy);
          for (int64_t h = 0; h < 4; ++h) {
            double row = 0;
            for (int64_t w = 0; w < 4; ++w) row += cx[w] * pixel(y0 + h, x0 + w);
            value += cy[h] * row;
          }
        }
        out[i] = store<T>(value);
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_grid_sample(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() != 4) {
    return unsupported_feature(context, "a rank-" + std::to_string(x_dims.size()) + " input (4-D [N, C, H, W] only)");
  }
  if (!has_input(context, 1)) return invalid_node(context, "input 'grid' is required");
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> grid_dims, input_dims(context, 1));
  if (grid_dims.size() != 4 || grid_dims[0] != x_dims[0] || grid_dims[3] != 2) {
    return invalid_node(context, "grid " + shape_to_string(grid_dims) + " must be [N, H_out, W_out, 2] for X " +
                                     shape_to_string(x_dims));
  }
  GridSampleParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.height = x_dims[2];
  p.width = x_dims[3];
  p.out_height = grid_dims[1];
  p.out_width = grid_dims[2];
  // GridSample-20 renamed the modes for N-D sampling: "linear" and "cubic" (the default
  // "linear"); on 4-D inputs they are the bilinear and bicubic of GridSample-16.
  const bool nd_names = context.opset >= 20;
  const char* linear = nd_names ? "linear" : "bilinear";
  const char* cubic = nd_names ? "cubic" : "bicubic";
  GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", linear));
  GE_ASSIGN_OR_RETURN(std::string padding, string_attribute(context, "padding_mode", "zeros"));
  GE_ASSIGN_OR_RETURN(int64_t align_corners, int_attribute(context, "align_corners", 0));
  if (mode == linear) {
    p.mode = SampleMode::kBilinear;
  } else if (mode == "nearest") {
    p.mode = SampleMode::kNearest;
  } else if (mode == cubic) {
    p.mode = SampleMode::kBicubic;
  } else {
    return invalid_attribute(context, "mode",
                             "= '" + mode + "' is not one of " + linear + ", nearest, " + cubic + " (opset " +
                                 std::to_string(context.opset) + ")");
  }
  if (padding == "zeros") {
    p.padding = Padding::kZeros;
  } else if (padding == "border") {
    p.padding = Padding::kBorder;
  } else if (padding == "reflection") {
    p.padding = Padding::kReflection;
  } else {
    return invalid_attribute(context, "padding_mode", "= '" + padding + "' is not one of zeros, border, reflection");
  }
  p.align_corners = align_corners != 0;
  if ((p.height == 0 || p.width == 0) && p.out_height * p.out_width > 0 && p.channels > 0) {
    return invalid_node(context, "cannot sample the empty image X " + shape_to_string(x_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, {p.batch, p.channels, p.out_height, p.out_width}));
  KernelFunction function =
      nn::select(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &grid_sample_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_grid_sample_kernels(std::vector<OpKernel>& table) {
  table.push_back({"GridSample", nn::dtypes(nn::FloatingTypes{}), &prepare_grid_sample});
}

}  // namespace ge::cpu_kernels
