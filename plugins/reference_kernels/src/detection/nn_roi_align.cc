// RoiAlign (opsets 10, 16): for each region of interest (x1, y1, x2, y2) in `rois` on
// image batch_indices[r] of X [N, C, H, W], an output_height x output_width grid of bins,
// each the average (mode avg) or maximum (mode max) of sampling_ratio^2 bilinear samples
// (adaptive ceil(roi extent / bins) per axis when sampling_ratio is 0). Coordinates are
// scaled by spatial_scale and, with coordinate_transformation_mode half_pixel (the
// opset-16 default), shifted by -0.5; output_half_pixel (opset 10's behaviour) instead
// forces regions to be at least 1 x 1. Sampling follows ONNX Runtime: samples more than
// one pixel outside the image count as 0, others are clamped to the edge; max mode takes
// the maximum over samples of the largest weighted corner. A batch index outside [0, N)
// is reported at launch (kKernelIndexOutOfRange).

#include <algorithm>
#include <cmath>
#include <string>

#include "detection/registration.h"
#include "nn/nn_element.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct RoiAlignParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t rois = 0, pooled_height = 1, pooled_width = 1;
  int64_t sampling_ratio = 0;
  double spatial_scale = 1.0;
  bool half_pixel = true;
  bool max_mode = false;
  int64_t table_samples = 0;  // samples of one region the workspace holds
};

struct Sample {
  int64_t position[4];
  double weight[4];
};

// The four corners and weights of a bilinear sample at (y, x); all weights 0 outside.
Sample bilinear_sample(double y, double x, int64_t height, int64_t width) {
  Sample s{{0, 0, 0, 0}, {0, 0, 0, 0}};
  if (y < -1.0 || y > static_cast<double>(height) || x < -1.0 || x > static_cast<double>(width)) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<double>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<double>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1.0 - ly, hx = 1.0 - lx;
  s.position[0] = y_low * width + x_low;
  s.position[1] = y_low * width + x_high;
  s.position[2] = y_high * width + x_low;
  s.position[3] = y_high * width + x_high;
  s.weight[0] = hy * hx;
  s.weight[1] = hy * lx;
  s.weight[2] = ly * hx;
  s.weight[3] = ly * lx;
  return s;
}

template <typename T>
int roi_align_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RoiAlignParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* rois = static_cast<const T*>(args.inputs[1]);
  const auto* batch_indices = static_cast<const int64_t*>(args.inputs[2]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || rois == nullptr || batch_indices == nullptr || y == nullptr) return kKernelMissingAddress;
  const int64_t plane = p.height * p.width;
  const double offset = p.half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < p.rois; ++r) {
    const int64_t image = batch_indices[r];
    if (image < 0 || image >= p.batch) return kKernelIndexOutOfRange;
    const double start_w = load(rois[r * 4 + 0]) * p.spatial_scale - offset;
    const double start_h = load(rois[r * 4 + 1]) * p.spatial_scale - offset;
    const double end_w = load(rois[r * 4 + 2]) * p.spatial_scale - offset;
    const double end_h = load(rois[r * 4 + 3]) * p.spatial_scale - offset;
    double roi_width = end_w - start_w, roi_height = end_h - start_h;
    if (!p.half_pixel) {
      roi_width = std::max(roi_width, 1.0);
      roi_height = std::max(roi_height, 1.0);
    }
    const double bin_h = roi_height / static_cast<double>(p.pooled_height);
    const double bin_w = roi_width / static_cast<double>(p.pooled_width);
    const int64_t grid_h = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(std::ceil(bin_h));
    const int64_t grid_w = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(std::ceil(bin_w));
    const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
    // The samples depend on the region, not the channel: computed once into the workspace
    // (in the order the channels then read them), else, where an adaptive grid needs more
    // than it holds, again per channel.
    const int64_t per_bin = grid_h * grid_w;
    const bool tabulated = args.workspace != nullptr && per_bin * p.pooled_height * p.pooled_width <= p.table_samples;
    auto sample_at = [&](int64_t ph, int64_t pw, int64_t iy, int64_t ix) {
      const double sy =
          start_h + static_cast<double>(ph) * bin_h + (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
      const double sx =
          start_w + static_cast<double>(pw) * bin_w + (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
      return bilinear_sample(sy, sx, p.height, p.width);
    };
    auto* table = static_cast<Sample*>(args.workspace);
    if (tabulated) {
      Sample* next = table;
      for (int64_t ph = 0; ph < p.pooled_height; ++ph) {
        for (int64_t pw = 0; pw < p.pooled_width; ++pw) {
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            for (int64_t ix = 0; ix < grid_w; ++ix) *next++ = sample_at(ph, pw, iy, ix);
          }
        }
      }
    }
    for (int64_t c = 0; c < p.channels; ++c) {
      const T* x_plane = x + (image * p.channels + c) * plane;
      T* out = y + (r * p.channels + c) * p.pooled_height * p.pooled_width;
      const Sample* next = table;
      for (int64_t ph = 0; ph < p.pooled_height; ++ph) {
        for (int64_t pw = 0; pw < p.pooled_width; ++pw) {
          double value = 0;
          bool first = true;
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const Sample s = tabulated ? *next++ : sample_at(ph, pw, iy, ix);
              if (p.max_mode) {
                double sample = s.weight[0] * load(x_plane[s.position[0]]);
                for (int k = 1; k < 4; ++k) sample = std::max(sample, s.weight[k] * load(x_plane[s.position[k]]));
                value = first ? sample : std::max(value, sample);
                first = false;
              } else {
                for (int k = 0; k < 4; ++k) value += s.weight[k] * load(x_plane[s.position[k]]);
              }
            }
          }
          out[ph * p.pooled_width + pw] = store<T>(p.max_mode ? value : value / count);
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_roi_align(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() != 4) return invalid_node(context, "input X must be 4-D [N, C, H, W], got " + shape_to_string(x_dims));
  if (!has_input(context, 1) || !has_input(context, 2)) {
    return invalid_node(context, "inputs 'rois' and 'batch_indices' are required");
  }
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 2, DataType::kInt64));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> roi_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 2));
  if (roi_dims.size() != 2 || roi_dims[1] != 4 || index_dims != std::vector<int64_t>{roi_dims[0]}) {
    return invalid_node(context, "rois " + shape_to_string(roi_dims) + " must be [num_rois, 4] and batch_indices " +
                                     shape_to_string(index_dims) + " [num_rois]");
  }
  RoiAlignParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.height = x_dims[2];
  p.width = x_dims[3];
  p.rois = roi_dims[0];
  GE_ASSIGN_OR_RETURN(p.pooled_height, int_attribute(context, "output_height", 1));
  GE_ASSIGN_OR_RETURN(p.pooled_width, int_attribute(context, "output_width", 1));
  GE_ASSIGN_OR_RETURN(p.sampling_ratio, int_attribute(context, "sampling_ratio", 0));
  GE_ASSIGN_OR_RETURN(float spatial_scale, float_attribute(context, "spatial_scale", 1.0f));
  p.spatial_scale = spatial_scale;
  GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", "avg"));
  if (mode != "avg" && mode != "max") return invalid_attribute(context, "mode", "= '" + mode + "' is not avg or max");
  p.max_mode = mode == "max";
  // Opset 10 had no attribute and behaved as output_half_pixel.
  GE_ASSIGN_OR_RETURN(std::string coordinates,
                      string_attribute(context, "coordinate_transformation_mode",
                                       context.opset >= 16 ? "half_pixel" : "output_half_pixel"));
  if (coordinates != "half_pixel" && coordinates != "output_half_pixel") {
    return invalid_attribute(context, "coordinate_transformation_mode",
                             "= '" + coordinates + "' is not half_pixel or output_half_pixel");
  }
  p.half_pixel = coordinates == "half_pixel";
  if (p.pooled_height < 1 || p.pooled_width < 1 || p.sampling_ratio < 0) {
    return invalid_node(context, "output_height and output_width must be >= 1 and sampling_ratio >= 0");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, {p.rois, p.channels, p.pooled_height, p.pooled_width}));
  // A fixed sampling ratio: every region's samples; adaptive: up to 4 x 4 per bin. At most
  // 4 MiB of them (else each channel computes its samples again).
  constexpr int64_t kMaxTable = (int64_t{4} << 20) / static_cast<int64_t>(sizeof(Sample));
  const int64_t grid = p.sampling_ratio > 0 ? std::min<int64_t>(p.sampling_ratio, kMaxTable) : 4;
  const int64_t bins = p.pooled_height * p.pooled_width;
  const bool fits = p.channels > 1 && bins <= kMaxTable && grid * grid <= kMaxTable / bins;
  p.table_samples = fits ? bins * grid * grid : 0;
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &roi_align_kernel<T>; });
  return make_kernel(context, function, p, static_cast<size_t>(p.table_samples) * sizeof(Sample));
}

}  // namespace

void add_nn_roi_align_kernels(std::vector<OpKernel>& table) {
  table.push_back({"RoiAlign", data_types(nn::FloatingTypes{}), &prepare_roi_align});
}

}  // namespace ge::reference_kernels
