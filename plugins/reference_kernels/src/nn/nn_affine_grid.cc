// AffineGrid (opset 20): the sampling grid of an affine transform, for GridSample.
// theta is [N, 2, 3] (2-D) or [N, 3, 4] (3-D); size is the int64 vector [N, C, H, W] or
// [N, C, D, H, W]. Position i of an axis of n points is -1 + 2i / (n - 1) with
// align_corners (-1 when n is 1), else -1 + (2i + 1) / n; the grid holds
//   grid[n, (d,) h, w, :] = theta[n] @ [x_w, y_h, (z_d,) 1].
// The output dims fix H, W (and D); the size values are checked against them at launch
// when size is not a constant.

#include <algorithm>
#include <string>

#include "nn/nn_element.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct AffineGridParams {
  int64_t batch = 0;
  int64_t spatial_rank = 0;     // 2 or 3
  int64_t extent[3] = {1, 1, 1};  // D, H, W (D is 1 for 2-D)
  bool align_corners = false;
};

double grid_position(int64_t i, int64_t n, bool align_corners) {
  if (align_corners) return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
}

template <typename T>
int affine_grid_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const AffineGridParams*>(args.params);
  const auto* theta = static_cast<const T*>(args.inputs[0]);
  const auto* size = static_cast<const int64_t*>(args.inputs[1]);
  auto* grid = static_cast<T*>(args.outputs[0]);
  if (theta == nullptr || size == nullptr || grid == nullptr) return kKernelMissingAddress;
  const int64_t r = p.spatial_rank;
  if (size[0] != p.batch) return kKernelRuntimeShapeMismatch;
  for (int64_t k = 0; k < r; ++k) {
    if (size[2 + k] != p.extent[3 - r + k]) return kKernelRuntimeShapeMismatch;
  }
  const int64_t rows = r, cols = r + 1;
  T* out = grid;
  for (int64_t n = 0; n < p.batch; ++n) {
    const T* t = theta + n * rows * cols;
    for (int64_t d = 0; d < p.extent[0]; ++d) {
      for (int64_t h = 0; h < p.extent[1]; ++h) {
        for (int64_t w = 0; w < p.extent[2]; ++w) {
          // Homogeneous point [x, y, (z,) 1]: x along W, y along H, z along D.
          double point[4] = {grid_position(w, p.extent[2], p.align_corners),
                             grid_position(h, p.extent[1], p.align_corners), 1.0, 1.0};
          if (r == 3) point[2] = grid_position(d, p.extent[0], p.align_corners);
          for (int64_t row = 0; row < rows; ++row) {
            double value = 0;
            for (int64_t c = 0; c < cols; ++c) value += load(t[row * cols + c]) * point[c];
            *out++ = store<T>(value);
          }
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_affine_grid(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> theta_dims, input_dims(context, 0));
  const bool two_d = theta_dims.size() == 3 && theta_dims[1] == 2 && theta_dims[2] == 3;
  const bool three_d = theta_dims.size() == 3 && theta_dims[1] == 3 && theta_dims[2] == 4;
  if (!two_d && !three_d) {
    return invalid_node(context,
                        "theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), got " + shape_to_string(theta_dims));
  }
  AffineGridParams p;
  p.batch = theta_dims[0];
  p.spatial_rank = two_d ? 2 : 3;
  GE_ASSIGN_OR_RETURN(int64_t align_corners, int_attribute(context, "align_corners", 0));
  if (align_corners != 0 && align_corners != 1) {
    return invalid_attribute(context, "align_corners", "= " + std::to_string(align_corners) + ", expected 0 or 1");
  }
  p.align_corners = align_corners == 1;
  if (!has_input(context, 1)) return invalid_node(context, "input 'size' is required");
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kInt64));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> size_dims, input_dims(context, 1));
  if (size_dims != std::vector<int64_t>{p.spatial_rank + 2}) {
    return invalid_node(context, "size has shape " + shape_to_string(size_dims) + ", expected [" +
                                     std::to_string(p.spatial_rank + 2) + "] for theta " +
                                     shape_to_string(theta_dims));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != static_cast<size_t>(p.spatial_rank + 2) || out_dims[0] != p.batch ||
      out_dims.back() != p.spatial_rank) {
    return invalid_node(context, "output grid " + shape_to_string(out_dims) + " is not [N, " +
                                     (two_d ? "H, W, 2]" : "D, H, W, 3]") + " for theta " +
                                     shape_to_string(theta_dims));
  }
  for (int64_t k = 0; k < p.spatial_rank; ++k) p.extent[3 - p.spatial_rank + k] = out_dims[1 + k];
  if (const Tensor* size = context.node.input(1)->constant()) {
    const int64_t* values = size->data<int64_t>();
    std::vector<int64_t> expected{p.batch, values[1]};
    for (int64_t k = 0; k < p.spatial_rank; ++k) expected.push_back(out_dims[1 + k]);
    if (!std::equal(expected.begin(), expected.end(), values)) {
      return invalid_node(context, "size " + shape_to_string(std::vector<int64_t>(values, values + expected.size())) +
                                       " disagrees with theta's batch and the output grid " +
                                       shape_to_string(out_dims));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, out_dims));
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &affine_grid_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(nn::FloatingTypes{}));
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_affine_grid_kernels(std::vector<OpKernel>& table) {
  table.push_back({"AffineGrid", data_types(nn::FloatingTypes{}), &prepare_affine_grid});
}

}  // namespace ge::reference_kernels
