// Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7, 9): nearest, linear and
// cubic interpolation over any axes of an N-D tensor, every coordinate_transformation_mode
// (half_pixel_symmetric from opset 19), nearest_mode, cubic_coeff_a, exclude_outside,
// extrapolation_value and roi, with scales or sizes given as inputs (read at launch: they
// are often runtime data) or, for Upsample-7, as an attribute. Opset 18 adds `axes` (the
// axes scales/sizes/roi list; the others keep their extent), keep_aspect_ratio_policy
// (not_larger/not_smaller: one scale, the min/max of sizes/extent over the listed axes,
// and extents round(scale * extent)) and `antialias` (linear and cubic filters stretched
// by 1/scale when downscaling; no effect on nearest, as the spec says). The output extents
// come from the output desc; sizes read at launch are checked against them.
//
// The semantics follow the ONNX reference implementation (onnx/reference/ops/
// op_resize.py), which the conformance data were made with: an axis of input length n and
// scale s has the "resized length" L = s * n (not the integer output extent), which
// align_corners, pytorch_half_pixel, tf_crop_and_resize and half_pixel_symmetric divide
// by. Interpolation is separable: each axis gives every output coordinate a few taps
// (index, weight) and an output element sums the products over all axes' taps. An axis
// of scale 1 that keeps its extent is left as it is (the reference skips it). Opset-10
// Resize and Upsample use asymmetric coordinates and ONNX Runtime's nearest rounding
// (floor when upsampling, ceil when downsampling).

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "nn/nn_element.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

constexpr int kMaxResizeRank = 8;
// Source coordinates beyond this are rejected at launch (they would not convert to an
// index exactly).
constexpr double kMaxCoordinate = 1e15;

enum class Mode { kNearest, kLinear, kCubic };
enum class Coordinates {
  kHalfPixel,
  kAsymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kTfHalfPixelForNn,
  kTfCropAndResize,
  kHalfPixelSymmetric
};
enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };
enum class NearestRounding { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kLegacy };

struct ResizeParams {
  int rank = 0;
  std::array<int64_t, kMaxResizeRank> in_dims{}, out_dims{};
  std::array<int64_t, kMaxResizeRank> in_strides{};  // elements between neighbours along each axis of X
  Mode mode = Mode::kNearest;
  Coordinates coordinates = Coordinates::kHalfPixel;
  NearestRounding nearest = NearestRounding::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  // Where the scales come from: an input of `rank` float32 values, the attribute
  // (Upsample-7), or the ratio of output to input extents (sizes given).
  int scales_input = -1;
  std::array<double, kMaxResizeRank> attribute_scales{};
  bool scales_from_attribute = false;
  int roi_input = -1;  // tf_crop_and_resize only
  DataType roi_dtype = DataType::kUndefined;
  // Opset 18: the entry of scales/sizes/roi each axis reads (-1: not listed, scale 1),
  // of `listed` entries; sizes read at launch, with the aspect policy.
  std::array<int, kMaxResizeRank> slot{};
  int listed = 0;
  int sizes_input = -1;
  AspectPolicy policy = AspectPolicy::kStretch;
  bool antialias = false;
  int64_t taps = 1;         // tap slots per output coordinate: 1 nearest, 2 linear, 4 cubic, more antialiased
  int64_t total_out = 0;    // sum of the output extents over all axes
  int64_t output_count = 0;
};

// Workspace layout: per output coordinate of every axis (axes one after another),
// `taps` offsets into X and `taps` weights; one "outside the roi" flag per coordinate.
struct TapTables {
  int64_t* offsets;
  double* weights;
  uint8_t* outside;
};

size_t workspace_bytes(const ResizeParams& p) {
  const auto entries = static_cast<size_t>(p.total_out * p.taps);
  return entries * (sizeof(int64_t) + sizeof(double)) + static_cast<size_t>(p.total_out);
}

TapTables tap_tables(const ResizeParams& p, void* workspace) {
  auto* offsets = static_cast<int64_t*>(workspace);
  auto* weights = reinterpret_cast<double*>(offsets + p.total_out * p.taps);
  auto* outside = reinterpret_cast<uint8_t*>(weights + p.total_out * p.taps);
  return {offsets, weights, outside};
}

void cubic_coefficients(double ratio, double a, double coefficients[4]) {
  const double r1 = ratio + 1, r0 = ratio, s0 = 1 - ratio, s1 = 2 - ratio;
  coefficients[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
  coefficients[1] = ((a + 2) * r0 - (a + 3)) * r0 * r0 + 1;
  coefficients[2] = ((a + 2) * s0 - (a + 3)) * s0 * s0 + 1;
  coefficients[3] = ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a;
}

int64_t nearest_index(double x, NearestRounding rounding, bool downsampling) {
  const double lower = std::floor(x);
  const double fraction = x - lower;
  switch (rounding) {
    case NearestRounding::kRoundPreferFloor:
      return static_cast<int64_t>(fraction <= 0.5 ? lower : lower + 1);
    case NearestRounding::kRoundPreferCeil:
      return static_cast<int64_t>(fraction < 0.5 ? lower : lower + 1);
    case NearestRounding::kFloor:
      return static_cast<int64_t>(lower);
    case NearestRounding::kCeil:
      return static_cast<int64_t>(std::ceil(x));
    case NearestRounding::kLegacy:
      return static_cast<int64_t>(downsampling ? std::ceil(x) : std::trunc(x));
  }
  return static_cast<int64_t>(lower);
}

// The input coordinate of output coordinate `x` on an axis of input length `n`, scale
// `scale` and resized length `length`; `roi_start`/`roi_end` for tf_crop_and_resize.
double source_coordinate(const ResizeParams& p, int64_t x_index, int64_t n, int64_t out, double scale,
                         double length, double roi_start, double roi_end) {
  const double x = static_cast<double>(x_index);
  switch (p.coordinates) {
    case Coordinates::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    case Coordinates::kHalfPixelSymmetric: {
      // Centres the implicit roi on the output: differs from half_pixel only when the
      // integer extent is not the resized length.
      const double adjustment = static_cast<double>(out) / length;
      const double center = static_cast<double>(n) / 2;
      const double offset = center * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case Coordinates::kAsymmetric:
      return x / scale;
    case Coordinates::kPytorchHalfPixel:
      return length == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
    case Coordinates::kAlignCorners:
      return length == 1.0 ? 0.0 : x * static_cast<double>(n - 1) / (length - 1);
    case Coordinates::kTfHalfPixelForNn:
      return (x + 0.5) / scale;
    case Coordinates::kTfCropAndResize: {
      const double extent = (roi_end - roi_start) * static_cast<double>(n - 1);
      const double offset = roi_start * static_cast<double>(n - 1);
      return (length == 1.0 ? extent / 2 : x * extent / (length - 1)) + offset;
    }
  }
  return x;
}

// Taps of the antialiased filters: with s = min(scale, 1), tap j of the window starting
// `start` taps before the base index sits at (start + j - ratio) * s of the filter.
int64_t antialias_start(Mode mode, double scale) {
  const double s = std::min(scale, 1.0);
  return static_cast<int64_t>(std::floor((mode == Mode::kLinear ? -1.0 : -2.0) / s) + 1);
}

// Taps per output coordinate of a filter at `scale` (before any launch check).
double filter_taps(const ResizeParams& p, double scale) {
  if (p.mode == Mode::kNearest) return 1;
  if (!p.antialias) return p.mode == Mode::kLinear ? 2 : 4;
  const double s = std::min(scale, 1.0);
  return 2 - 2 * (std::floor((p.mode == Mode::kLinear ? -1.0 : -2.0) / s) + 1);
}

double cubic_antialias_weight(double x, double a) {
  x = std::fabs(x);
  const double x2 = x * x;
  const double x3 = x * x2;
  if (x <= 1) return (a + 2) * x3 - (a + 3) * x2 + 1;
  if (x < 2) return a * x3 - 5 * a * x2 + 8 * a * x - 4 * a;
  return 0.0;
}

// The weights of the `count` taps for `ratio` in (0, 1]; returns the offset of the first
// tap from the base index (the input index just below the source coordinate).
int64_t filter_weights(const ResizeParams& p, double ratio, double scale, int64_t count, double* weights) {
  if (!p.antialias) {
    if (p.mode == Mode::kLinear) {
      weights[0] = 1 - ratio;
      weights[1] = ratio;
      return 0;
    }
    cubic_coefficients(ratio, p.cubic_a, weights);
    return -1;
  }
  const double s = std::min(scale, 1.0);
  const int64_t start = antialias_start(p.mode, scale);
  double sum = 0;
  for (int64_t j = 0; j < count; ++j) {
    const double at = (static_cast<double>(start + j) - ratio) * s;
    weights[j] = p.mode == Mode::kLinear ? std::clamp(1 - std::fabs(at), 0.0, 1.0)
                                         : cubic_antialias_weight(at, p.cubic_a);
    sum += weights[j];
  }
  for (int64_t j = 0; j < count; ++j) weights[j] /= sum;
  return start;
}

// This launch's scale of every axis (1 for axes not listed); a launch error code when
// scales/sizes are invalid or contradict the output extents.
int axis_scales(const ResizeParams& p, const KernelArgs& args, std::array<double, kMaxResizeRank>& scales) {
  const auto* scale_values = p.scales_input >= 0 ? static_cast<const float*>(args.inputs[p.scales_input]) : nullptr;
  const auto* sizes = p.sizes_input >= 0 ? static_cast<const int64_t*>(args.inputs[p.sizes_input]) : nullptr;
  if (p.sizes_input >= 0 && sizes == nullptr) return kKernelMissingAddress;
  double common = 0;  // not_larger / not_smaller: the one scale of the listed axes
  if (sizes != nullptr && p.policy != AspectPolicy::kStretch) {
    bool first = true;
    for (int a = 0; a < p.rank; ++a) {
      if (p.slot[a] < 0) continue;
      const double ratio = static_cast<double>(sizes[p.slot[a]]) / static_cast<double>(p.in_dims[a]);
      if (first) {
        common = ratio;
      } else {
        common = p.policy == AspectPolicy::kNotLarger ? std::min(common, ratio) : std::max(common, ratio);
      }
      first = false;
    }
  }
  for (int a = 0; a < p.rank; ++a) {
    const int64_t n = p.in_dims[a];
    if (p.slot[a] < 0) {
      scales[a] = 1.0;
    } else if (scale_values != nullptr) {
      scales[a] = static_cast<double>(scale_values[p.slot[a]]);
    } else if (p.scales_from_attribute) {
      scales[a] = p.attribute_scales[a];
    } else if (sizes != nullptr && p.policy != AspectPolicy::kStretch) {
      scales[a] = common;
      const double extent = common * static_cast<double>(n) + 0.5;  // round half up
      if (!(extent >= 0 && extent < kMaxCoordinate) || static_cast<int64_t>(extent) != p.out_dims[a]) {
        return kernel_error(kKernelRuntimeSizeMismatch,
                            "sizes give axis " + std::to_string(a) + " the extent round(" + std::to_string(common) +
                                " * " + std::to_string(n) + ") but the output has " + std::to_string(p.out_dims[a]));
      }
    } else {
      if (sizes != nullptr && sizes[p.slot[a]] != p.out_dims[a]) {
        return kernel_error(kKernelRuntimeSizeMismatch, "sizes[" + std::to_string(p.slot[a]) + "] = " +
                                                            std::to_string(sizes[p.slot[a]]) + " but axis " +
                                                            std::to_string(a) + " of the output has " +
                                                            std::to_string(p.out_dims[a]));
      }
      scales[a] = static_cast<double>(p.out_dims[a]) / static_cast<double>(n);
    }
    if (!(scales[a] > 0) || !std::isfinite(scales[a])) {
      return kernel_error(kKernelInvalidRuntimeValue, "axis " + std::to_string(a) + " has the scale " +
                                                          std::to_string(scales[a]) + " (it must be positive)");
    }
  }
  return kKernelOk;
}

bool is_close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// Fills the tap tables of every axis from this launch's scales (and roi) and sets the
// number of taps each axis really needs (1 for an axis every coordinate maps straight
// to one input element, so that untouched N and C axes cost nothing); a launch error
// code when the scales or roi cannot be resized with.
int build_taps(const ResizeParams& p, const KernelArgs& args, const TapTables& tables,
               std::array<int64_t, kMaxResizeRank>& axis_taps) {
  std::array<double, kMaxResizeRank> scales{};
  if (const int code = axis_scales(p, args, scales); code != kKernelOk) return code;
  const void* roi = p.roi_input >= 0 ? args.inputs[p.roi_input] : nullptr;
  int64_t base = 0;
  for (int a = 0; a < p.rank; ++a) {
    const int64_t n = p.in_dims[a];
    const int64_t out = p.out_dims[a];
    const double scale = scales[a];
    const double length = scale * static_cast<double>(n);
    double roi_start = 0.0, roi_end = 1.0;
    if (roi != nullptr && p.slot[a] >= 0) {
      roi_start = nn::load_as_double(roi, p.roi_dtype, p.slot[a]);
      roi_end = nn::load_as_double(roi, p.roi_dtype, p.slot[a] + p.listed);
    }
    // The reference leaves an axis of scale 1 that keeps its extent (and roi) alone.
    const bool full_roi =
        p.coordinates != Coordinates::kTfCropAndResize || (roi_start == 0.0 && is_close(roi_end, 1.0));
    const bool identity = is_close(scale, 1.0) && out == n && full_roi;
    const double needed = identity ? 1 : filter_taps(p, scale);
    if (needed > static_cast<double>(p.taps)) {
      return kernel_error(kKernelRuntimeSizeMismatch, "the scale " + std::to_string(scale) + " of axis " +
                                                          std::to_string(a) + " does not give its output extent " +
                                                          std::to_string(out) + " (its filter needs " +
                                                          std::to_string(needed) + " taps)");
    }
    const auto count = static_cast<int64_t>(needed);
    bool single = true;  // every coordinate has one tap of weight 1
    for (int64_t x = 0; x < out; ++x) {
      const int64_t entry = base + x;
      int64_t* offsets = tables.offsets + entry * p.taps;
      double* weights = tables.weights + entry * p.taps;
      tables.outside[entry] = 0;
      if (identity) {
        offsets[0] = x * p.in_strides[a];
        weights[0] = 1.0;
        continue;
      }
      const double source = source_coordinate(p, x, n, out, scale, length, roi_start, roi_end);
      if (!(std::fabs(source) < kMaxCoordinate)) {
        return kernel_error(kKernelInvalidRuntimeValue, "output coordinate " + std::to_string(x) + " of axis " +
                                                            std::to_string(a) + " maps to the input coordinate " +
                                                            std::to_string(source));
      }
      tables.outside[entry] = p.coordinates == Coordinates::kTfCropAndResize &&
                              (source < 0 || source > static_cast<double>(n - 1));
      int64_t* indices = offsets;  // the input indices, turned into offsets below
      if (p.mode == Mode::kNearest) {
        indices[0] = nearest_index(source, p.nearest, scale < 1.0);
        weights[0] = 1.0;
      } else {
        // As the reference: the taps sit around the input index just below the source
        // coordinate, an integer coordinate counting as ratio 1 of the index before it.
        const double lower = std::floor(source);
        const bool exact = source == lower;
        const double ratio = exact ? 1.0 : source - lower;
        const int64_t below = static_cast<int64_t>(lower) - (exact ? 1 : 0);
        const int64_t first = below + filter_weights(p, ratio, scale, count, weights);
        for (int64_t t = 0; t < count; ++t) indices[t] = first + t;
        if (p.exclude_outside) {
          double sum = 0;
          for (int64_t t = 0; t < count; ++t) {
            if (indices[t] < 0 || indices[t] >= n) weights[t] = 0;
            sum += weights[t];
          }
          if (sum != 0) {
            for (int64_t t = 0; t < count; ++t) weights[t] /= sum;
          }
        }
      }
      int64_t nonzero = 0, only = 0;
      for (int64_t t = 0; t < count; ++t) {
        const int64_t clamped = indices[t] < 0 ? 0 : (indices[t] >= n ? n - 1 : indices[t]);
        offsets[t] = clamped * p.in_strides[a];
        if (weights[t] != 0) {
          ++nonzero;
          only = t;
        }
      }
      // Move the only non-zero tap first so that a single-tap axis reads tap 0.
      if (nonzero == 1 && weights[only] == 1.0) {
        offsets[0] = offsets[only];
        weights[0] = 1.0;
        for (int64_t t = 1; t < count; ++t) weights[t] = 0.0;
      } else if (count > 1) {
        single = false;
      }
      for (int64_t t = count; t < p.taps; ++t) weights[t] = 0.0;
    }
    axis_taps[a] = single ? 1 : count;
    base += out;
  }
  return kKernelOk;
}

// Nearest: copies, one output row (the last axis) at a time. The leading axes give a row
// its source offset once; a row whose source row and outside flags are the previous
// row's (upscaling replicates rows) is a copy of that output row.
template <typename T>
int nearest_rows(const ResizeParams& p, const TapTables& tables, const std::array<int64_t, kMaxResizeRank>& axis_base,
                 const T* x, T* y) {
  const int last = p.rank - 1;
  const int64_t width = p.out_dims[last];
  const int64_t rows = p.output_count / width;
  const int64_t* columns = tables.offsets + axis_base[last] * p.taps;
  const uint8_t* columns_outside = tables.outside + axis_base[last];
  std::array<int64_t, kMaxResizeRank> position{};  // output multi-index of the row, last axis 0
  int64_t previous_base = -1;
  for (int64_t r = 0; r < rows; ++r) {
    T* out = y + r * width;
    bool outside = false;
    int64_t base = 0;
    for (int a = 0; a < last; ++a) {
      outside = outside || tables.outside[axis_base[a] + position[a]] != 0;
      base += tables.offsets[(axis_base[a] + position[a]) * p.taps];
    }
    if (outside) {
      std::fill(out, out + width, store<T>(p.extrapolation));
      base = -1;
    } else if (base == previous_base) {
      std::copy(out - width, out, out);
    } else {
      for (int64_t j = 0; j < width; ++j) {
        out[j] = columns_outside[j] != 0 ? store<T>(p.extrapolation) : x[base + columns[j * p.taps]];  // exact copies
      }
    }
    previous_base = base;
    for (int a = last - 1; a >= 0; --a) {
      if (++position[a] < p.out_dims[a]) break;
      position[a] = 0;
    }
  }
  return kKernelOk;
}

// Linear, cubic or antialiased filters resizing only the last two axes (the leading ones
// identity, one tap of weight 1, as build_taps makes an axis it leaves alone): per plane,
// the taps of a row and of a column are looked up once, not per tap combination of every
// axis. The sum is the generic loop's, term by term in the same order, so the results
// are the same. False (nothing written) when the leading axes are not all identity.
template <typename T>
bool interpolate_planes(const ResizeParams& p, const TapTables& tables, const std::array<int64_t, kMaxResizeRank>& base,
                        const std::array<int64_t, kMaxResizeRank>& axis_taps, const T* x, T* y) {
  if (p.rank < 2) return false;
  const int h = p.rank - 2, w = p.rank - 1;
  int64_t planes = 1;
  for (int a = 0; a < h; ++a) {
    if (axis_taps[a] != 1 || p.out_dims[a] != p.in_dims[a]) return false;
    for (int64_t i = 0; i < p.out_dims[a]; ++i) {
      const int64_t entry = base[a] + i;
      if (tables.outside[entry] != 0 || tables.weights[entry * p.taps] != 1.0) return false;
    }
    planes *= p.out_dims[a];
  }
  const int64_t height = p.out_dims[h], width = p.out_dims[w];
  std::array<int64_t, kMaxResizeRank> position{};  // of the plane over the leading axes
  for (int64_t plane = 0; plane < planes; ++plane) {
    int64_t source = 0;
    for (int a = 0; a < h; ++a) source += tables.offsets[(base[a] + position[a]) * p.taps];
    T* out = y + plane * height * width;
    for (int64_t oy = 0; oy < height; ++oy) {
      const int64_t row = base[h] + oy;
      const int64_t* row_offsets = tables.offsets + row * p.taps;
      const double* row_weights = tables.weights + row * p.taps;
      for (int64_t ox = 0; ox < width; ++ox) {
        const int64_t column = base[w] + ox;
        if (tables.outside[row] != 0 || tables.outside[column] != 0) {
          out[oy * width + ox] = store<T>(p.extrapolation);
          continue;
        }
        const int64_t* column_offsets = tables.offsets + column * p.taps;
        const double* column_weights = tables.weights + column * p.taps;
        double sum = 0;
        for (int64_t ty = 0; ty < axis_taps[h]; ++ty) {
          for (int64_t tx = 0; tx < axis_taps[w]; ++tx) {
            const double weight = row_weights[ty] * column_weights[tx];
            if (weight != 0) sum += weight * load(x[source + row_offsets[ty] + column_offsets[tx]]);
          }
        }
        out[oy * width + ox] = store<T>(sum);
      }
    }
    for (int a = h - 1; a >= 0; --a) {
      if (++position[a] < p.out_dims[a]) break;
      position[a] = 0;
    }
  }
  return true;
}

template <typename T>
int resize_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ResizeParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr || (p.scales_input >= 0 && args.inputs[p.scales_input] == nullptr) ||
      (p.roi_input >= 0 && args.inputs[p.roi_input] == nullptr) || (p.output_count > 0 && args.workspace == nullptr)) {
    return kKernelMissingAddress;
  }
  if (p.output_count == 0) return kKernelOk;
  const TapTables tables = tap_tables(p, args.workspace);
  std::array<int64_t, kMaxResizeRank> axis_taps{};
  if (const int code = build_taps(p, args, tables, axis_taps); code != kKernelOk) return code;
  std::array<int64_t, kMaxResizeRank> axis_base{};  // first table entry of each axis
  for (int a = 1; a < p.rank; ++a) axis_base[a] = axis_base[a - 1] + p.out_dims[a - 1];

  if (p.mode == Mode::kNearest) return nearest_rows(p, tables, axis_base, x, y);
  if (interpolate_planes(p, tables, axis_base, axis_taps, x, y)) return kKernelOk;
  std::array<int64_t, kMaxResizeRank> position{};  // output multi-index
  for (int64_t flat = 0; flat < p.output_count; ++flat) {
    bool outside = false;
    for (int a = 0; a < p.rank; ++a) outside = outside || tables.outside[axis_base[a] + position[a]] != 0;
    if (outside) {
      y[flat] = store<T>(p.extrapolation);
    } else {
      // Sum over every combination of the axes' taps.
      std::array<int64_t, kMaxResizeRank> tap{};
      double sum = 0;
      while (true) {
        int64_t offset = 0;
        double weight = 1;
        for (int a = 0; a < p.rank; ++a) {
          const int64_t entry = (axis_base[a] + position[a]) * p.taps + tap[a];
          offset += tables.offsets[entry];
          weight *= tables.weights[entry];
        }
        if (weight != 0) sum += weight * load(x[offset]);
        int a = p.rank - 1;
        for (; a >= 0; --a) {
          if (++tap[a] < axis_taps[a]) break;
          tap[a] = 0;
        }
        if (a < 0) break;
      }
      y[flat] = store<T>(sum);
    }
    for (int a = p.rank - 1; a >= 0; --a) {
      if (++position[a] < p.out_dims[a]) break;
      position[a] = 0;
    }
  }
  return kKernelOk;
}

template <typename E>
Result<E> parse_choice(const KernelContext& context, const std::string& attribute, const std::string& fallback,
                       std::initializer_list<std::pair<const char*, E>> choices) {
  GE_ASSIGN_OR_RETURN(std::string value, string_attribute(context, attribute, fallback));
  std::string names;
  for (const auto& [name, choice] : choices) {
    if (value == name) return choice;
    names += names.empty() ? name : std::string(", ") + name;
  }
  return invalid_attribute(context, attribute, "= '" + value + "' is not one of " + names);
}

// An optional input counts as given when it is present and not empty (opset-11 models
// pass an empty scales tensor when sizes are given).
bool given(const KernelContext& context, size_t index) {
  if (!has_input(context, index)) return false;
  const TensorDesc& desc = context.node.input(index)->desc();
  return desc.element_count() != 0;
}

// Opset 18's axes, keep_aspect_ratio_policy and antialias (rejected before opset 18).
Status prepare_opset18_attributes(const KernelContext& context, const std::vector<int64_t>& x_dims,
                                  const std::vector<int64_t>& y_dims, ResizeParams& p) {
  if (context.opset < 18) {
    for (const char* name : {"axes", "keep_aspect_ratio_policy", "antialias"}) {
      if (context.node.has_attribute(name)) {
        return invalid_attribute(context, name,
                                 "needs opset 18 (the model imports opset " + std::to_string(context.opset) + ")");
      }
    }
    return Status::ok();
  }
  GE_ASSIGN_OR_RETURN(int64_t antialias, int_attribute(context, "antialias", 0));
  if (antialias != 0 && antialias != 1) {
    return invalid_attribute(context, "antialias", "= " + std::to_string(antialias) + " is not 0 or 1");
  }
  p.antialias = antialias == 1;
  GE_ASSIGN_OR_RETURN(p.policy, parse_choice<AspectPolicy>(context, "keep_aspect_ratio_policy", "stretch",
                                                           {{"stretch", AspectPolicy::kStretch},
                                                            {"not_larger", AspectPolicy::kNotLarger},
                                                            {"not_smaller", AspectPolicy::kNotSmaller}}));
  if (!context.node.has_attribute("axes")) return Status::ok();
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ints_attribute(context, "axes", {}));
  const int64_t rank = p.rank;
  p.slot.fill(-1);
  p.listed = static_cast<int>(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axes", axes[i], rank));
    if (p.slot[axis] >= 0) return invalid_attribute(context, "axes", "names axis " + std::to_string(axis) + " twice");
    p.slot[axis] = static_cast<int>(i);
  }
  for (int64_t a = 0; a < rank; ++a) {
    if (p.slot[a] < 0 && y_dims[a] != x_dims[a]) {
      return invalid_node(context, "axis " + std::to_string(a) + " is not in 'axes' but the output " +
                                       shape_to_string(y_dims) + " changes it (X is " + shape_to_string(x_dims) +
                                       ")");
    }
  }
  return Status::ok();
}

// A constant `sizes` must give the output extents (the same check as at launch).
Status check_constant_sizes(const KernelContext& context, const ResizeParams& p) {
  const Value* value = context.node.input(3);
  if (value == nullptr || value->constant() == nullptr || p.output_count == 0) return Status::ok();
  const Tensor& sizes = *value->constant();
  const void* inputs[4] = {nullptr, nullptr, nullptr, sizes.raw_data()};
  KernelArgs args;
  args.inputs = inputs;
  std::array<double, kMaxResizeRank> scales{};
  if (axis_scales(p, args, scales) != kKernelOk) {
    return invalid_node(context, "input 'sizes' contradicts the output: " + take_kernel_error_detail());
  }
  return Status::ok();
}

// Tap slots per output coordinate. An antialiased filter widens as the scale falls; its
// smallest scale follows from the extents (floor(scale * n) = out for scales,
// round(scale * n) = out for sizes), and a launch whose scale needs more is refused.
Status plan_taps(const KernelContext& context, ResizeParams& p) {
  p.taps = static_cast<int64_t>(filter_taps(p, 1.0));
  if (!p.antialias || p.mode == Mode::kNearest) return Status::ok();
  for (int a = 0; a < p.rank; ++a) {
    if (p.out_dims[a] == 0 || p.in_dims[a] == 0) continue;
    const double lowest = (static_cast<double>(p.out_dims[a]) - 0.5) / static_cast<double>(p.in_dims[a]);
    const double taps = filter_taps(p, lowest);
    // The tables hold total_out * taps entries of 16 bytes: keep them under 4 GiB.
    if (taps * static_cast<double>(p.total_out) > static_cast<double>(int64_t{1} << 28)) {
      return unsupported_feature(context, "antialiased downscaling of axis " + std::to_string(a) + " from " +
                                              std::to_string(p.in_dims[a]) + " to " + std::to_string(p.out_dims[a]) +
                                              " (its filter tables would need " + std::to_string(taps) +
                                              " taps for each of " + std::to_string(p.total_out) +
                                              " output coordinates)");
    }
    p.taps = std::max(p.taps, static_cast<int64_t>(taps));
  }
  return Status::ok();
}

Result<PreparedKernel> prepare_resize(const KernelContext& context) {
  const bool upsample = context.node.op_type() == "Upsample";
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank < 1 || rank > kMaxResizeRank) {
    return unsupported_feature(context, "rank-" + std::to_string(rank) + " input (ranks 1-8 are supported)");
  }
  if (y_dims.size() != x_dims.size()) {
    return invalid_node(context, "output " + shape_to_string(y_dims) + " must have the rank of input X " +
                                     shape_to_string(x_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  ResizeParams p;
  p.rank = static_cast<int>(rank);
  int64_t stride = 1;
  for (int64_t a = rank - 1; a >= 0; --a) {
    p.in_dims[a] = x_dims[a];
    p.out_dims[a] = y_dims[a];
    p.in_strides[a] = stride;
    stride *= x_dims[a];
    p.total_out += y_dims[a];
    if (y_dims[a] > 0 && x_dims[a] == 0) {
      return invalid_node(context, "cannot resize the empty axis " + std::to_string(a) + " of X " +
                                       shape_to_string(x_dims) + " to " + std::to_string(y_dims[a]));
    }
  }
  p.output_count = product(y_dims);

  const bool legacy = upsample || context.opset < 11;  // Upsample and Resize-10
  p.listed = p.rank;
  for (int a = 0; a < p.rank; ++a) p.slot[a] = a;
  if (legacy) {
    GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", "nearest"));
    if (mode == "nearest") {
      p.mode = Mode::kNearest;
    } else if (mode == "linear" || mode == "bilinear") {
      p.mode = Mode::kLinear;
    } else {
      return invalid_attribute(context, "mode", "= '" + mode + "' is not one of nearest, linear");
    }
    p.coordinates = Coordinates::kAsymmetric;
    p.nearest = NearestRounding::kLegacy;
    if (upsample && context.opset < 9) {
      if (!context.node.has_attribute("scales")) return invalid_attribute(context, "scales", "is required");
      std::vector<float> scales = context.node.get_floats("scales");
      if (static_cast<int64_t>(scales.size()) != rank) {
        return invalid_attribute(context, "scales",
                                 "has " + std::to_string(scales.size()) + " values for a rank-" +
                                     std::to_string(rank) + " input");
      }
      for (int64_t a = 0; a < rank; ++a) p.attribute_scales[a] = scales[a];
      p.scales_from_attribute = true;
    } else {
      p.scales_input = 1;
    }
  } else {
    GE_RETURN_IF_ERROR(prepare_opset18_attributes(context, x_dims, y_dims, p));
    GE_ASSIGN_OR_RETURN(p.mode, parse_choice<Mode>(context, "mode", "nearest",
                                                   {{"nearest", Mode::kNearest},
                                                    {"linear", Mode::kLinear},
                                                    {"cubic", Mode::kCubic}}));
    GE_ASSIGN_OR_RETURN(p.coordinates,
                        parse_choice<Coordinates>(context, "coordinate_transformation_mode", "half_pixel",
                                                  {{"half_pixel", Coordinates::kHalfPixel},
                                                   {"half_pixel_symmetric", Coordinates::kHalfPixelSymmetric},
                                                   {"asymmetric", Coordinates::kAsymmetric},
                                                   {"pytorch_half_pixel", Coordinates::kPytorchHalfPixel},
                                                   {"align_corners", Coordinates::kAlignCorners},
                                                   {"tf_half_pixel_for_nn", Coordinates::kTfHalfPixelForNn},
                                                   {"tf_crop_and_resize", Coordinates::kTfCropAndResize}}));
    if (p.coordinates == Coordinates::kHalfPixelSymmetric && context.opset < 19) {
      return invalid_attribute(context, "coordinate_transformation_mode",
                               "= 'half_pixel_symmetric' needs opset 19 (the model imports opset " +
                                   std::to_string(context.opset) + ")");
    }
    GE_ASSIGN_OR_RETURN(p.nearest, parse_choice<NearestRounding>(
                                       context, "nearest_mode", "round_prefer_floor",
                                       {{"round_prefer_floor", NearestRounding::kRoundPreferFloor},
                                        {"round_prefer_ceil", NearestRounding::kRoundPreferCeil},
                                        {"floor", NearestRounding::kFloor},
                                        {"ceil", NearestRounding::kCeil}}));
    GE_ASSIGN_OR_RETURN(float cubic_a, float_attribute(context, "cubic_coeff_a", -0.75f));
    GE_ASSIGN_OR_RETURN(int64_t exclude_outside, int_attribute(context, "exclude_outside", 0));
    GE_ASSIGN_OR_RETURN(float extrapolation, float_attribute(context, "extrapolation_value", 0.0f));
    p.cubic_a = cubic_a;
    p.exclude_outside = exclude_outside != 0;
    p.extrapolation = extrapolation;
    const std::string listed = std::to_string(p.listed) + " values, one per " +
                               (context.node.has_attribute("axes") ? "entry of 'axes'" : "axis of X");
    const bool scales_given = given(context, 2), sizes_given = given(context, 3);
    if (scales_given && sizes_given && context.opset >= 18) {
      return invalid_node(context, "the inputs 'scales' and 'sizes' are both given (give one)");
    }
    if (scales_given) {
      p.scales_input = 2;
    } else if (!sizes_given) {
      return invalid_node(context, "one of the inputs 'scales' and 'sizes' must be given (non-empty)");
    } else {
      GE_RETURN_IF_ERROR(check_input_dtype(context, 3, DataType::kInt64));
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes_dims, input_dims(context, 3));
      if (product(sizes_dims) != p.listed) {
        return invalid_node(context, "input 'sizes' " + shape_to_string(sizes_dims) + " must hold " + listed);
      }
      p.sizes_input = 3;
      GE_RETURN_IF_ERROR(check_constant_sizes(context, p));
    }
    if (p.coordinates == Coordinates::kTfCropAndResize) {
      if (!given(context, 1)) {
        return invalid_node(context, "coordinate_transformation_mode 'tf_crop_and_resize' needs the input 'roi'");
      }
      p.roi_dtype = input_dtype(context, 1);
      if (!nn::is_floating_dtype(p.roi_dtype)) {
        return unsupported_feature(context, "roi of dtype " + std::string(data_type_name(p.roi_dtype)));
      }
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> roi_dims, input_dims(context, 1));
      if (product(roi_dims) != 2 * p.listed) {
        return invalid_node(context, "input 'roi' " + shape_to_string(roi_dims) + " must hold " +
                                         std::to_string(2 * p.listed) + " values (starts, then ends)");
      }
      p.roi_input = 1;
    }
  }
  if (p.scales_input >= 0) {
    const size_t index = static_cast<size_t>(p.scales_input);
    if (!has_input(context, index)) return invalid_node(context, "input 'scales' is missing");
    GE_RETURN_IF_ERROR(check_input_dtype(context, index, DataType::kFloat32));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> scales_dims, input_dims(context, index));
    if (product(scales_dims) != p.listed) {
      return invalid_node(context, "input 'scales' " + shape_to_string(scales_dims) + " must hold " +
                                       std::to_string(p.listed) + " values, one per " +
                                       (p.listed == p.rank && !context.node.has_attribute("axes") ? "axis of X"
                                                                                                : "entry of 'axes'"));
    }
  }
  GE_RETURN_IF_ERROR(plan_taps(context, p));
  // Integer inputs may interpolate too (ONNX allows every type); the sum is rounded.
  KernelFunction function =
      select_kernel(dtype, nn::AllNumericTypes{}, []<typename T>() -> KernelFunction { return &resize_kernel<T>; });
  if (function == nullptr) {
    const std::vector<DataType> supported = data_types(nn::AllNumericTypes{});
    return unsupported_dtype(context, dtype, supported);
  }
  const size_t workspace = workspace_bytes(p);
  const char* variant = p.mode == Mode::kNearest ? "nearest" : (p.mode == Mode::kLinear ? "linear" : "cubic");
  return make_kernel(context, function, p, workspace, p.antialias ? std::string(variant) + ".antialias" : variant);
}

}  // namespace

void add_nn_resize_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Resize", data_types(nn::AllNumericTypes{}), &prepare_resize});
  table.push_back({"Upsample", data_types(nn::AllNumericTypes{}), &prepare_resize});
}

}  // namespace ge::reference_kernels
