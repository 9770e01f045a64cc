#include "ge/reference_kernels/spatial_geometry.h"

#include <string>

namespace ge::reference_kernels {

std::vector<int64_t> SpatialGeometry::output_dims() const {
  return std::vector<int64_t>(output.end() - rank, output.end());
}

Result<SpatialGeometry> compute_spatial_geometry(const KernelContext& context,
                                                 const std::vector<int64_t>& input_spatial,
                                                 const std::vector<int64_t>& kernel, bool ceil_mode) {
  const int64_t rank = static_cast<int64_t>(input_spatial.size());
  if (rank < 1 || rank > kMaxSpatialRank) {
    return unsupported_feature(context, std::to_string(rank) + "-D spatial input (1-D to 3-D are supported)");
  }
  if (static_cast<int64_t>(kernel.size()) != rank) {
    return invalid_attribute(
        context, "kernel_shape",
        "has " + std::to_string(kernel.size()) + " values for a " + std::to_string(rank) + "-D spatial input");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ints_attribute(context, "strides", std::vector<int64_t>(rank, 1)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                      ints_attribute(context, "dilations", std::vector<int64_t>(rank, 1)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ints_attribute(context, "pads", std::vector<int64_t>(2 * rank, 0)));
  GE_ASSIGN_OR_RETURN(std::string auto_pad, string_attribute(context, "auto_pad", "NOTSET"));

  auto check_list = [&](const std::vector<int64_t>& values, const char* name, size_t size, int64_t minimum) -> Status {
    if (values.size() != size) {
      return invalid_attribute(context, name,
                               "has " + std::to_string(values.size()) + " values, expected " + std::to_string(size) +
                                   " for a " + std::to_string(rank) + "-D spatial input");
    }
    for (int64_t value : values) {
      if (value < minimum) {
        return invalid_attribute(context, name,
                                 "has value " + std::to_string(value) + ", must be >= " + std::to_string(minimum));
      }
    }
    return Status::ok();
  };
  GE_RETURN_IF_ERROR(check_list(kernel, "kernel_shape", rank, 1));
  GE_RETURN_IF_ERROR(check_list(strides, "strides", rank, 1));
  GE_RETURN_IF_ERROR(check_list(dilations, "dilations", rank, 1));
  GE_RETURN_IF_ERROR(check_list(pads, "pads", 2 * rank, 0));
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID") {
    return invalid_attribute(context, "auto_pad",
                             "= '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }

  SpatialGeometry geometry;
  geometry.rank = static_cast<int>(rank);
  const int64_t offset = kMaxSpatialRank - rank;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t axis = offset + i;
    const int64_t in = input_spatial[i];
    const int64_t stride = strides[i];
    // In 128 bits: kernel_shape, dilations, strides and pads come from attributes, and
    // their products and sums may pass 2^63; extents that do not fit int64 are refused.
    using Wide = __int128;
    constexpr Wide kLimit = INT64_MAX;
    const Wide effective_kernel = (Wide(kernel[i]) - 1) * dilations[i] + 1;
    Wide pad_begin = pads[i];
    Wide pad_end = pads[i + rank];
    if (auto_pad == "VALID") {
      pad_begin = pad_end = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The pads that make the output ceil(in / stride) long; the odd one goes at the
      // end for SAME_UPPER and at the beginning for SAME_LOWER.
      const Wide target = (Wide(in) + stride - 1) / stride;
      Wide total = (target - 1) * stride + effective_kernel - in;
      if (total < 0) total = 0;
      pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pad_end = total - pad_begin;
    }
    const Wide padded = Wide(in) + pad_begin + pad_end;
    if (effective_kernel > kLimit || padded > kLimit) {
      return invalid_attribute(context, "kernel_shape",
                               "with the dilations, strides and pads gives a window or padded extent beyond "
                               "2^63 - 1 on spatial axis " + std::to_string(i));
    }
    if (padded < effective_kernel) {
      return invalid_attribute(context, "kernel_shape",
                               "gives a window of " + std::to_string(static_cast<int64_t>(effective_kernel)) +
                                   " on spatial axis " + std::to_string(i) + ", larger than the padded input extent " +
                                   std::to_string(static_cast<int64_t>(padded)));
    }
    const Wide span = padded - effective_kernel;
    Wide positions = ceil_mode ? (span + stride - 1) / stride : span / stride;
    // ceil_mode keeps a last window only if it starts inside the input or its begin
    // padding (ONNX >= 1.13, ONNX Runtime).
    if (ceil_mode && positions > 0 && positions * stride >= in + pad_begin) --positions;
    geometry.input[axis] = in;
    geometry.output[axis] = static_cast<int64_t>(positions) + 1;
    geometry.kernel[axis] = kernel[i];
    geometry.strides[axis] = stride;
    geometry.dilations[axis] = dilations[i];
    geometry.pads_begin[axis] = static_cast<int64_t>(pad_begin);
    geometry.pads_end[axis] = static_cast<int64_t>(pad_end);
  }
  return geometry;
}

Result<std::vector<int64_t>> spatial_attribute(const KernelContext& context, const std::string& name, size_t count,
                                               int64_t fallback, int64_t minimum) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> values,
                      ints_attribute(context, name, std::vector<int64_t>(count, fallback)));
  if (values.size() != count) {
    return invalid_attribute(context, name,
                             "holds " + std::to_string(values.size()) + " values, not " + std::to_string(count));
  }
  for (int64_t value : values) {
    if (value < minimum) {
      return invalid_attribute(context, name,
                               "holds " + std::to_string(value) + " (each must be at least " +
                                   std::to_string(minimum) + ")");
    }
  }
  return values;
}

}  // namespace ge::reference_kernels
