#pragma once
// What MaxPool and AveragePool read the same way: X's [N, C, spatial...] dims and the
// window geometry from kernel_shape, strides, pads, auto_pad, dilations and ceil_mode.

#include <cstdint>
#include <vector>

#include "ge/reference_kernels/spatial_geometry.h"

namespace ge::reference_kernels {

struct PoolShape {
  SpatialGeometry geometry;
  int64_t planes = 0;                ///< N * C: each pooled independently
  std::vector<int64_t> output_dims;  ///< [N, C, output spatial...]
};

/// Reads X (input 0) and the pooling attributes; kernel_shape is required.
Result<PoolShape> read_pool_shape(const KernelContext& context);

}  // namespace ge::reference_kernels
