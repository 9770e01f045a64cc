// Resize (opsets 10, 11, 13) and Upsample (opsets 7, 9): nearest, linear and cubic
// interpolation over any axes of an N-D tensor, every coordinate_transformation_mode,
// nearest_mode, cubic_coeff_a, exclude_outside, extrapolation_value and roi, with scales
// or sizes given as inputs (read at launch: they are often runtime data) or, for
// Upsample-7, as an attribute. The output extents come from the output desc.
//
// The semantics follow the ONNX reference implementation (onnx/backend/test/case/node/
// resize.py), which the conformance data were made with: an axis of input length n and
// scale s has the "resized length" L = s * n (not the integer output extent), which
// align_corners, pytorch_half_pixel and tf_crop_and_resize divide by. Interpolation is
// separable: each axis gives every output coordinate a few taps (index, weight) and an
// output element sums the products over all axes' taps. Opset-10 Resize and Upsample
// use asymmetric coordinates and ONNX Runtime's nearest rounding (floor when
// upsampling, ceil when downsampling).

#include <array>
#include <cmath>
#include <string>

#include "nn_element.h"
#include "nn_kernels.h"
#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

using nn::load;
using nn::store;

constexpr int kMaxResizeRank = 8;
constexpr int64_t kMaxTaps = 4;

enum class Mode { kNearest, kLinear, kCubic };
enum class Coordinates {
  kHalfPixel,
  kAsymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
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
  int64_t taps = 1;         // taps per output coordinate: 1 nearest, 2 linear, 4 cubic
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
double source_coordinate(const ResizeParams& p, int64_t x_index, int64_t n, double scale, double length,
                         double roi_start, double roi_end) {
  const double x = static_cast<double>(x_index);
  switch (p.coordinates) {
    case Coordinates::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
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

// Fills the tap tables of every axis from this launch's scales (and roi); returns the
// number of taps each axis really needs (1 for an axis every coordinate maps straight to
// one input element, so that untouched N and C axes cost nothing).
void build_taps(const ResizeParams& p, const KernelArgs& args, const TapTables& tables,
                std::array<int64_t, kMaxResizeRank>& axis_taps) {
  const void* scales = p.scales_input >= 0 ? args.inputs[p.scales_input] : nullptr;
  const void* roi = p.roi_input >= 0 ? args.inputs[p.roi_input] : nullptr;
  int64_t base = 0;
  for (int a = 0; a < p.rank; ++a) {
    const int64_t n = p.in_dims[a];
    const int64_t out = p.out_dims[a];
    double scale, length;
    if (scales != nullptr) {
      scale = static_cast<double>(static_cast<const float*>(scales)[a]);
      length = scale * static_cast<double>(n);
    } else if (p.scales_from_attribute) {
      scale = p.attribute_scales[a];
      length = scale * static_cast<double>(n);
    } else {
      scale = static_cast<double>(out) / static_cast<double>(n);
      length = static_cast<double>(out);
    }
    double roi_start = 0.0, roi_end = 1.0;
    if (roi != nullptr) {
      roi_start = nn::load_as_double(roi, p.roi_dtype, a);
      roi_end = nn::load_as_double(roi, p.roi_dtype, a + p.rank);
    }
    bool single = true;  // every coordinate has one tap of weight 1
    for (int64_t x = 0; x < out; ++x) {
      const int64_t entry = base + x;
      int64_t* offsets = tables.offsets + entry * p.taps;
      double* weights = tables.weights + entry * p.taps;
      const double source = source_coordinate(p, x, n, scale, length, roi_start, roi_end);
      tables.outside[entry] = p.coordinates == Coordinates::kTfCropAndResize &&
                              (source < 0 || source > static_cast<double>(n - 1));
      int64_t index[kMaxTaps];
      if (p.mode == Mode::kNearest) {
        index[0] = nearest_index(source, p.nearest, scale < 1.0);
        weights[0] = 1.0;
      } else {
        const double lower = std::floor(source);
        const double ratio = source - lower;
        const auto first = static_cast<int64_t>(lower);
        if (p.mode == Mode::kLinear) {
          index[0] = first;
          index[1] = first + 1;
          weights[0] = 1 - ratio;
          weights[1] = ratio;
        } else {
          for (int64_t t = 0; t < 4; ++t) index[t] = first - 1 + t;
          cubic_coefficients(ratio, p.cubic_a, weights);
        }
        if (p.exclude_outside) {
          double sum = 0;
          for (int64_t t = 0; t < p.taps; ++t) {
            if (index[t] < 0 || index[t] >= n) weights[t] = 0;
            sum += weights[t];
          }
          if (sum != 0) {
            for (int64_t t = 0; t < p.taps; ++t) weights[t] /= sum;
          }
        }
      }
      int64_t nonzero = 0;
      for (int64_t t = 0; t < p.taps; ++t) {
        const int64_t clamped = index[t] < 0 ? 0 : (index[t] >= n ? n - 1 : index[t]);
        offsets[t] = clamped * p.in_strides[a];
        if (weights[t] != 0) ++nonzero;
      }
      if (p.taps > 1) {
        // Move the only non-zero tap first so that a single-tap axis reads tap 0.
        int64_t only = -1;
        for (int64_t t = 0; t < p.taps; ++t) {
          if (weights[t] != 0) only = t;
        }
        if (nonzero == 1 && weights[only] == 1.0) {
          offsets[0] = offsets[only];
          weights[0] = 1.0;
          for (int64_t t = 1; t < p.taps; ++t) weights[t] = 0.0;
        } else {
          single = false;
        }
      }
    }
    axis_taps[a] = single ? 1 : p.taps;
    base += out;
  }
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
  build_taps(p, args, tables, axis_taps);
  std::array<int64_t, kMaxResizeRank> axis_base{};  // first table entry of each axis
  for (int a = 1; a < p.rank; ++a) axis_base[a] = axis_base[a - 1] + p.out_dims[a - 1];

  std::array<int64_t, kMaxResizeRank> position{};  // output multi-index
  for (int64_t flat = 0; flat < p.output_count; ++flat) {
    bool outside = false;
    for (int a = 0; a < p.rank; ++a) outside = outside || tables.outside[axis_base[a] + position[a]] != 0;
    if (outside) {
      y[flat] = store<T>(p.extrapolation);
    } else if (p.mode == Mode::kNearest) {
      int64_t offset = 0;
      for (int a = 0; a < p.rank; ++a) offset += tables.offsets[(axis_base[a] + position[a]) * p.taps];
      y[flat] = x[offset];  // a copy: exact for every dtype
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
    GE_ASSIGN_OR_RETURN(p.mode, parse_choice<Mode>(context, "mode", "nearest",
                                                   {{"nearest", Mode::kNearest},
                                                    {"linear", Mode::kLinear},
                                                    {"cubic", Mode::kCubic}}));
    GE_ASSIGN_OR_RETURN(p.coordinates,
                        parse_choice<Coordinates>(context, "coordinate_transformation_mode", "half_pixel",
                                                  {{"half_pixel", Coordinates::kHalfPixel},
                                                   {"asymmetric", Coordinates::kAsymmetric},
                                                   {"pytorch_half_pixel", Coordinates::kPytorchHalfPixel},
                                                   {"align_corners", Coordinates::kAlignCorners},
                                                   {"tf_half_pixel_for_nn", Coordinates::kTfHalfPixelForNn},
                                                   {"tf_crop_and_resize", Coordinates::kTfCropAndResize}}));
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
    if (given(context, 2)) {
      p.scales_input = 2;
    } else if (!given(context, 3)) {
      return invalid_node(context, "one of the inputs 'scales' and 'sizes' must be given (non-empty)");
    } else {
      GE_RETURN_IF_ERROR(check_input_dtype(context, 3, DataType::kInt64));
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes_dims, input_dims(context, 3));
      if (product(sizes_dims) != rank) {
        return invalid_node(context, "input 'sizes' " + shape_to_string(sizes_dims) + " must hold " +
                                         std::to_string(rank) + " values, one per axis of X");
      }
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
      if (product(roi_dims) != 2 * rank) {
        return invalid_node(context, "input 'roi' " + shape_to_string(roi_dims) + " must hold " +
                                         std::to_string(2 * rank) + " values (starts, then ends)");
      }
      p.roi_input = 1;
    }
  }
  if (p.scales_input >= 0) {
    const size_t index = static_cast<size_t>(p.scales_input);
    if (!has_input(context, index)) return invalid_node(context, "input 'scales' is missing");
    GE_RETURN_IF_ERROR(check_input_dtype(context, index, DataType::kFloat32));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> scales_dims, input_dims(context, index));
    if (product(scales_dims) != rank) {
      return invalid_node(context, "input 'scales' " + shape_to_string(scales_dims) + " must hold " +
                                       std::to_string(rank) + " values, one per axis of X");
    }
  }
  p.taps = p.mode == Mode::kNearest ? 1 : (p.mode == Mode::kLinear ? 2 : 4);
  // Integer inputs may interpolate too (ONNX allows every type); the sum is rounded.
  KernelFunction function =
      nn::select(dtype, nn::AllNumericTypes{}, []<typename T>() -> KernelFunction { return &resize_kernel<T>; });
  if (function == nullptr) {
    const std::vector<DataType> supported = nn::dtypes(nn::AllNumericTypes{});
    return unsupported_dtype(context, dtype, supported);
  }
  const size_t workspace = workspace_bytes(p);
  const char* variant = p.mode == Mode::kNearest ? "nearest" : (p.mode == Mode::kLinear ? "linear" : "cubic");
  return make_kernel(context, function, p, workspace, variant);
}

}  // namespace

void add_nn_resize_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Resize", nn::dtypes(nn::AllNumericTypes{}), &prepare_resize});
  table.push_back({"Upsample", nn::dtypes(nn::AllNumericTypes{}), &prepare_resize});
}

}  // namespace ge::cpu_kernels
