// MaxRoiPool (opset 1): for each region (batch_id, x1, y1, x2, y2) of `rois`, scaled by
// spatial_scale and rounded to pixels (at least 1 x 1), a pooled_shape grid of bins, each
// the maximum of X over its pixels (0 for a bin that falls outside the image), as in
// Caffe and ONNX Runtime. A batch id outside [0, N) is reported at launch.

#include <algorithm>
#include <cmath>
#include <string>

#include "detection/registration.h"
#include "nn/nn_element.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct MaxRoiPoolParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t rois = 0, pooled_height = 1, pooled_width = 1;
  double spatial_scale = 1.0;
};

template <typename T>
int max_roi_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const MaxRoiPoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* rois = static_cast<const T*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || rois == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t r = 0; r < p.rois; ++r) {
    const T* roi = rois + r * 5;
    const auto image = static_cast<int64_t>(load(roi[0]));
    if (image < 0 || image >= p.batch) return kKernelIndexOutOfRange;
    const auto start_w = static_cast<int64_t>(std::round(load(roi[1]) * p.spatial_scale));
    const auto start_h = static_cast<int64_t>(std::round(load(roi[2]) * p.spatial_scale));
    const auto end_w = static_cast<int64_t>(std::round(load(roi[3]) * p.spatial_scale));
    const auto end_h = static_cast<int64_t>(std::round(load(roi[4]) * p.spatial_scale));
    const int64_t roi_height = std::max<int64_t>(end_h - start_h + 1, 1);
    const int64_t roi_width = std::max<int64_t>(end_w - start_w + 1, 1);
    const double bin_h = static_cast<double>(roi_height) / static_cast<double>(p.pooled_height);
    const double bin_w = static_cast<double>(roi_width) / static_cast<double>(p.pooled_width);
    for (int64_t c = 0; c < p.channels; ++c) {
      const T* x_plane = x + (image * p.channels + c) * p.height * p.width;
      T* out = y + (r * p.channels + c) * p.pooled_height * p.pooled_width;
      for (int64_t ph = 0; ph < p.pooled_height; ++ph) {
        auto clamp_h = [&](int64_t v) { return std::clamp<int64_t>(v + start_h, 0, p.height); };
        const int64_t h_begin = clamp_h(static_cast<int64_t>(std::floor(static_cast<double>(ph) * bin_h)));
        const int64_t h_end = clamp_h(static_cast<int64_t>(std::ceil(static_cast<double>(ph + 1) * bin_h)));
        for (int64_t pw = 0; pw < p.pooled_width; ++pw) {
          auto clamp_w = [&](int64_t v) { return std::clamp<int64_t>(v + start_w, 0, p.width); };
          const int64_t w_begin = clamp_w(static_cast<int64_t>(std::floor(static_cast<double>(pw) * bin_w)));
          const int64_t w_end = clamp_w(static_cast<int64_t>(std::ceil(static_cast<double>(pw + 1) * bin_w)));
          double best = 0;
          if (h_end > h_begin && w_end > w_begin) {
            best = -INFINITY;
            for (int64_t h = h_begin; h < h_end; ++h) {
              for (int64_t w = w_begin; w < w_end; ++w) {
                const double v = load(x_plane[h * p.width + w]);
                if (v > best || std::isnan(v)) best = v;  // NaN wins, as in MaxPool and numpy's max
                if (std::isnan(best)) break;
              }
            }
          }
          out[ph * p.pooled_width + pw] = store<T>(best);
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_max_roi_pool(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() != 4) return invalid_node(context, "input X must be 4-D [N, C, H, W], got " + shape_to_string(x_dims));
  if (!has_input(context, 1)) return invalid_node(context, "input 'rois' is required");
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> roi_dims, input_dims(context, 1));
  if (roi_dims.size() != 2 || roi_dims[1] != 5) {
    return invalid_node(context, "rois " + shape_to_string(roi_dims) + " must be [num_rois, 5]");
  }
  if (!context.node.has_attribute("pooled_shape")) return invalid_attribute(context, "pooled_shape", "is required");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> pooled, ints_attribute(context, "pooled_shape", {}));
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) {
    return invalid_attribute(context, "pooled_shape", "must be two positive extents [height, width]");
  }
  MaxRoiPoolParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.height = x_dims[2];
  p.width = x_dims[3];
  p.rois = roi_dims[0];
  p.pooled_height = pooled[0];
  p.pooled_width = pooled[1];
  GE_ASSIGN_OR_RETURN(float spatial_scale, float_attribute(context, "spatial_scale", 1.0f));
  p.spatial_scale = spatial_scale;
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, {p.rois, p.channels, p.pooled_height, p.pooled_width}));
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &max_roi_pool_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_max_roi_pool_kernels(std::vector<OpKernel>& table) {
  table.push_back({"MaxRoiPool", data_types(nn::FloatingTypes{}), &prepare_max_roi_pool});
}

}  // namespace ge::reference_kernels
