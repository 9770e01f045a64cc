#pragma once
// The sliding-window geometry Conv, MaxPool and AveragePool share: kernel, strides,
// dilations and pads (explicit or from auto_pad) per spatial axis, and the output extents
// they give. Spatial ranks 1-3 are padded to 3 axes (leading unit axes) so that one
// 3-D loop serves every rank.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

inline constexpr int kMaxSpatialRank = 3;

struct SpatialGeometry {
  int rank = 0;  ///< the node's spatial rank (1-3); the arrays below are padded to 3
  std::array<int64_t, kMaxSpatialRank> input{1, 1, 1};
  std::array<int64_t, kMaxSpatialRank> output{1, 1, 1};
  std::array<int64_t, kMaxSpatialRank> kernel{1, 1, 1};
  std::array<int64_t, kMaxSpatialRank> strides{1, 1, 1};
  std::array<int64_t, kMaxSpatialRank> dilations{1, 1, 1};
  std::array<int64_t, kMaxSpatialRank> pads_begin{0, 0, 0};
  std::array<int64_t, kMaxSpatialRank> pads_end{0, 0, 0};

  int64_t input_size() const { return input[0] * input[1] * input[2]; }
  int64_t output_size() const { return output[0] * output[1] * output[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  /// The output dims of the node's spatial rank (unpadded).
  std::vector<int64_t> output_dims() const;
};

/// The taps k in [begin, end) of a window starting at `start` (tap k at start + k *
/// dilation, k < kernel) whose positions lie in [low, high). Computed, not searched: a
/// kernel_shape of 2^62 with auto_pad SAME is legal and looped 2^62 taps per output.
struct TapRange {
  int64_t begin = 0, end = 0;
  int64_t count() const { return end - begin; }
};
inline TapRange taps_within(int64_t start, int64_t kernel, int64_t dilation, int64_t low, int64_t high) {
  using Wide = __int128;  // start, kernel and dilation come from attributes: no overflow
  const Wide first = start >= low ? Wide(0) : (Wide(low) - start + dilation - 1) / dilation;
  const Wide last = start >= high ? Wide(0) : (Wide(high) - 1 - start) / dilation + 1;
  const Wide begin = first < kernel ? first : Wide(kernel);
  const Wide end = last < kernel ? last : Wide(kernel);
  return {static_cast<int64_t>(begin), static_cast<int64_t>(end < begin ? begin : end)};
}

/// Reads strides, dilations, pads and auto_pad from the node (defaults: ones, ones,
/// zeros, NOTSET) for `input_spatial` extents and `kernel` extents, and computes the
/// output extents as ONNX shape inference does (`ceil_mode` rounds up). Spatial rank
/// must be 1-3.
/// A per-spatial-axis ints attribute (dilations, strides, pads) of `count` values, each at
/// least `minimum`; `fallback` for each when the node has none. Errors name the attribute.
Result<std::vector<int64_t>> spatial_attribute(const KernelContext& context, const std::string& name, size_t count,
                                               int64_t fallback, int64_t minimum);

Result<SpatialGeometry> compute_spatial_geometry(const KernelContext& context,
                                                 const std::vector<int64_t>& input_spatial,
                                                 const std::vector<int64_t>& kernel, bool ceil_mode);

}  // namespace ge::reference_kernels
