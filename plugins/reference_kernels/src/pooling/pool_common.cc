#include "pooling/pool_common.h"

#include <string>

namespace ge::reference_kernels {

Result<PoolShape> read_pool_shape(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 3) {
    return invalid_node(context, "input X must have rank >= 3 ([N, C, spatial...]), got " + shape_to_string(x_dims));
  }
  if (!context.node.has_attribute("kernel_shape")) return invalid_attribute(context, "kernel_shape", "is required");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ints_attribute(context, "kernel_shape", {}));
  GE_ASSIGN_OR_RETURN(int64_t ceil_mode, int_attribute(context, "ceil_mode", 0));
  if (ceil_mode != 0 && ceil_mode != 1) {
    return invalid_attribute(context, "ceil_mode", "= " + std::to_string(ceil_mode) + " must be 0 or 1");
  }
  PoolShape shape;
  const std::vector<int64_t> spatial(x_dims.begin() + 2, x_dims.end());
  GE_ASSIGN_OR_RETURN(shape.geometry, compute_spatial_geometry(context, spatial, kernel, ceil_mode == 1));
  shape.planes = x_dims[0] * x_dims[1];
  shape.output_dims = {x_dims[0], x_dims[1]};
  for (int64_t dim : shape.geometry.output_dims()) shape.output_dims.push_back(dim);
  return shape;
}

}  // namespace ge::reference_kernels
