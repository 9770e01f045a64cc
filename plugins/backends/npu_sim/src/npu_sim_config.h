#pragma once
/// The npu_sim device's fixed facts and cost model, read from the plugin's registry
/// options (`[plugin.options]`), e.g.
///   capacity_mib = 64, queue_depth = 256, launch_ns = 2000.0,
///   bandwidth_gbps = 100.0, vector_gelems = 64.0, matrix_gelems = 512.0

#include <cstddef>
#include <string>

#include "ge/plugin_options.h"
#include "ge/status.h"

namespace ge {

struct NpuSimConfig {
  size_t capacity_bytes = size_t{256} << 20;  ///< device memory
  size_t queue_depth = 1024;                  ///< tasks a stream may hold before submit blocks
  double launch_ns = 2000.0;                  ///< fixed cost of every task
  double bandwidth_bytes_per_ns = 100.0;      ///< device memory bandwidth (GB/s)
  double vector_elements_per_ns = 64.0;       ///< elementwise and other "vector" ops
  double matrix_elements_per_ns = 512.0;      ///< Conv, ConvTranspose, Gemm, MatMul

  /// Reads the options above; fails with kInvalidArgument naming a non-positive value.
  static Result<NpuSimConfig> from_options(const PluginOptions& options);
};

}  // namespace ge
