// GridSample (opsets 16, 20): samples X [N, C, D1, ..., Dr] (opset 16: 4-D [N, C, H, W]
// only) at the normalised locations of grid [N, D1_out, ..., Dr_out, r] (coordinates in
// [-1, 1], innermost axis first: (x, y, z, ...)) with mode linear (multilinear over 2^r
// taps; opset 16 "bilinear"), nearest (round half to even) or cubic (Keys, a = -0.75,
// 4^r taps; opset 16 "bicubic", 4-D X only), padding_mode zeros, border or reflection and
// align_corners, as ONNX Runtime does: a location outside the image is first clamped
// (border) or reflected (reflection) into it; then each tap reads the pixel, or for
// taps outside the image 0 (zeros), the clamped pixel (border) or the reflected pixel
// (reflection).

#include <algorithm>
#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

enum class SampleMode { kLinear, kNearest, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

// Spatial ranks the kernel takes: 1 (X [N, C, W]) up to this; linear mode reads 2^r taps
// a point.
constexpr int kMaxSpatialRank = 6;

struct GridSampleParams {
  int64_t batch = 0, channels = 0;
  int rank = 0;                           // spatial axes r
  int64_t in_dims[kMaxSpatialRank] = {};  // D1..Dr of X
  int64_t out_points = 0;                 // D1_out * ... * Dr_out
  SampleMode mode = SampleMode::kLinear;
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

// One spatial axis of X: its length, the range [low, high] a location is clamped or
// reflected into, and its element stride.
struct Axis {
  int64_t length = 0;
  double low = 0, high = 0;
  int64_t stride = 0;

  // The element offset of tap `i` along this axis, or -1 for a zero (zeros padding).
  int64_t tap_offset(int64_t i, Padding padding) const {
    if (padding == Padding::kZeros) return i >= 0 && i < length ? i * stride : -1;
    if (padding == Padding::kReflection) i = static_cast<int64_t>(reflect(static_cast<double>(i), low, high));
    return std::clamp<int64_t>(i, 0, length - 1) * stride;
  }
};

// The taps of one sample point: along each axis up to 4 element offsets (-1: a zero)
// and their weights.
struct Taps {
  int count = 0;  // a point's taps along each axis: 1, 2 or 4
  int64_t offset[kMaxSpatialRank][4];
  double weight[kMaxSpatialRank][4];
};

// The sum over the taps of axes Axis.. of the product of their weights times the pixel.
// Summing the innermost axis first keeps the 2-D results those of the former
// bilinear/bicubic code.
template <typename T, int Axis = 0>
double accumulate(const T* image, const Taps& taps, int rank, int64_t offset) {
  if constexpr (Axis == kMaxSpatialRank) {
    return 0;  // not reached: rank <= kMaxSpatialRank
  } else {
    double sum = 0;
    for (int k = 0; k < taps.count; ++k) {
      const int64_t tap = taps.offset[Axis][k];
      double value = 0;
      if (tap >= 0) {
        value = Axis + 1 == rank ? load(image[offset + tap]) : accumulate<T, Axis + 1>(image, taps, rank, offset + tap);
      }
      sum += taps.weight[Axis][k] * value;
    }
    return sum;
  }
}

template <typename T>
int grid_sample_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GridSampleParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* grid = static_cast<const T*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || grid == nullptr || y == nullptr) return kKernelMissingAddress;
  const int rank = p.rank;
  Axis axes[kMaxSpatialRank];
  int64_t image_size = 1;
  for (int a = rank - 1; a >= 0; --a) {
    Axis& axis = axes[a];
    axis.length = p.in_dims[a];
    axis.low = p.align_corners ? 0.0 : -0.5;
    axis.high = p.align_corners ? static_cast<double>(axis.length - 1) : static_cast<double>(axis.length) - 0.5;
    axis.stride = image_size;
    image_size *= axis.length;
  }
  Taps taps;
  taps.count = p.mode == SampleMode::kNearest ? 1 : p.mode == SampleMode::kLinear ? 2 : 4;
  for (int64_t n = 0; n < p.batch; ++n) {
    const T* points = grid + n * p.out_points * rank;
    const T* images = x + n * p.channels * image_size;
    T* out = y + n * p.channels * p.out_points;
    for (int64_t i = 0; i < p.out_points; ++i) {
      // The location's coordinates list the innermost axis first: (x, y, z, ...).
      bool is_nan = false;
      for (int a = 0; a < rank; ++a) {
        const Axis& axis = axes[a];
        double s = denormalize(load(points[i * rank + (rank - 1 - a)]), axis.length, p.align_corners);
        if (std::isnan(s)) {  // a NaN location samples NaN
          is_nan = true;
          s = 0;
        }
        if (p.mode == SampleMode::kNearest) s = std::nearbyint(s);
        if (s < axis.low || s > axis.high) {
          if (p.padding == Padding::kBorder) {
            s = std::clamp(s, 0.0, static_cast<double>(axis.length - 1));
          } else if (p.padding == Padding::kReflection) {
            s = reflect(s, axis.low, axis.high);
          } else {
            // Every tap is outside already; this keeps the integer conversions defined.
            s = std::clamp(s, axis.low - 8, axis.high + 8);
          }
        }
        if (p.mode == SampleMode::kNearest) {
          taps.offset[a][0] = axis.tap_offset(static_cast<int64_t>(s), p.padding);
          taps.weight[a][0] = 1;
        } else if (p.mode == SampleMode::kLinear) {
          const auto low = static_cast<int64_t>(std::floor(s));
          taps.offset[a][0] = axis.tap_offset(low, p.padding);
          taps.offset[a][1] = axis.tap_offset(low + 1, p.padding);
          taps.weight[a][0] = static_cast<double>(low + 1) - s;
          taps.weight[a][1] = s - static_cast<double>(low);
        } else {
          const int64_t first = static_cast<int64_t>(std::floor(s)) - 1;
          for (int k = 0; k < 4; ++k) taps.offset[a][k] = axis.tap_offset(first + k, p.padding);
          cubic_coefficients(s - static_cast<double>(first) - 1, taps.weight[a]);
        }
      }
      for (int64_t c = 0; c < p.channels; ++c) {
        const double value = is_nan ? std::nan("") : accumulate(images + c * image_size, taps, rank, 0);
        out[c * p.out_points + i] = store<T>(value);
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_grid_sample(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  // GridSample-20 generalised the op from 4-D X to N-D.
  const bool nd = context.opset >= 20;
  if (!nd && x_dims.size() != 4) {
    return invalid_node(context, "X " + shape_to_string(x_dims) + " must be 4-D [N, C, H, W] (N-D X needs opset 20)");
  }
  if (x_dims.size() < 3 || x_dims.size() > 2 + static_cast<size_t>(kMaxSpatialRank)) {
    return unsupported_feature(context, "a rank-" + std::to_string(x_dims.size()) + " input (3-D to " +
                                            std::to_string(2 + kMaxSpatialRank) + "-D [N, C, D1, ..., Dr] only)");
  }
  const int rank = static_cast<int>(x_dims.size()) - 2;
  if (!has_input(context, 1)) return invalid_node(context, "input 'grid' is required");
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> grid_dims, input_dims(context, 1));
  if (grid_dims.size() != x_dims.size() || grid_dims[0] != x_dims[0] || grid_dims.back() != rank) {
    const std::string expected =
        rank == 2 ? "[N, H_out, W_out, 2]" : "[N, D1_out, ..., Dr_out, r] with r = " + std::to_string(rank);
    return invalid_node(
        context, "grid " + shape_to_string(grid_dims) + " must be " + expected + " for X " + shape_to_string(x_dims));
  }
  GridSampleParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.rank = rank;
  p.out_points = 1;
  std::vector<int64_t> y_dims = {p.batch, p.channels};
  int64_t in_points = 1;
  for (int a = 0; a < rank; ++a) {
    p.in_dims[a] = x_dims[2 + a];
    in_points *= p.in_dims[a];
    p.out_points *= grid_dims[1 + a];
    y_dims.push_back(grid_dims[1 + a]);
  }
  // GridSample-20 renamed the modes for N-D sampling: "linear" and "cubic" (the default
  // "linear"); on 4-D inputs they are the bilinear and bicubic of GridSample-16.
  const char* linear = nd ? "linear" : "bilinear";
  const char* cubic = nd ? "cubic" : "bicubic";
  GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", linear));
  GE_ASSIGN_OR_RETURN(std::string padding, string_attribute(context, "padding_mode", "zeros"));
  GE_ASSIGN_OR_RETURN(int64_t align_corners, int_attribute(context, "align_corners", 0));
  if (mode == linear) {
    p.mode = SampleMode::kLinear;
  } else if (mode == "nearest") {
    p.mode = SampleMode::kNearest;
  } else if (mode == cubic) {
    p.mode = SampleMode::kCubic;
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
  if (in_points == 0 && p.out_points > 0 && p.channels > 0) {
    return invalid_node(context, "cannot sample the empty image X " + shape_to_string(x_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &grid_sample_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_grid_sample_kernels(std::vector<OpKernel>& table) {
  table.push_back({"GridSample", data_types(nn::FloatingTypes{}), &prepare_grid_sample});
}

}  // namespace ge::reference_kernels
