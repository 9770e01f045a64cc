// Conv (opsets 1, 11): grouped, strided, padded (explicit or auto_pad), dilated 1-D to
// 3-D convolution with optional bias; float16/bfloat16 compute in float32. Each (image, group) is one GEMM of the group's
// weights [M/g, C/g * kernel] with the im2col matrix [C/g * kernel, output positions].

#include <algorithm>
#include <cstring>
#include <string>

#include "ge/reference_kernels/spatial_geometry.h"
#include "nn/gemm_reference.h"
#include "nn/nn_float_bridge.h"
#include "nn/nn_im2col.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

struct ConvParams {
  SpatialGeometry geometry;
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  bool has_bias = false;
  // A 1x1 window with unit strides and no pads: the input already is the im2col matrix.
  bool pointwise = false;
  int64_t column_elements = 0;  // workspace elements of the im2col matrix
};

template <typename T>
int conv_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ConvParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* w = static_cast<const T*>(args.inputs[1]);
  const T* bias = p.has_bias ? static_cast<const T*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  auto* columns = static_cast<T*>(args.workspace);
  // Empty tensors are legal and have no address: a batch of 0 (or no output channels or
  // positions) writes nothing; no input channels leave Y = bias.
  if (p.batch * p.out_channels * p.geometry.output_size() == 0) return kKernelOk;
  const bool reads_x = p.in_channels > 0;
  if ((reads_x && (x == nullptr || w == nullptr)) || y == nullptr || (p.has_bias && bias == nullptr) ||
      (!p.pointwise && p.column_elements > 0 && columns == nullptr)) {
    return kKernelMissingAddress;
  }
  const SpatialGeometry& g = p.geometry;
  const int64_t in_size = g.input_size();
  const int64_t out_size = g.output_size();
  const int64_t group_in = p.in_channels / p.group;
  const int64_t group_out = p.out_channels / p.group;
  const int64_t depth = group_in * g.kernel_size();
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t gi = 0; gi < p.group; ++gi) {
      const T* x_group = x + (n * p.in_channels + gi * group_in) * in_size;
      const T* w_group = w + gi * group_out * depth;
      T* y_group = y + (n * p.out_channels + gi * group_out) * out_size;
      const T* matrix = x_group;
      if (!p.pointwise) {
        im2col(x_group, group_in, g, columns);
        matrix = columns;
      }
      for (int64_t m = 0; m < group_out; ++m) {
        const T initial = bias != nullptr ? bias[gi * group_out + m] : T(0);
        std::fill(y_group + m * out_size, y_group + (m + 1) * out_size, initial);
      }
      gemm_accumulate(group_out, out_size, depth, w_group, depth, 1, matrix, out_size, 1, y_group, out_size);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_conv(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> w_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  if (x_dims.size() < 3) {
    return invalid_node(context, "input X must have rank >= 3 ([N, C, spatial...]), got " + shape_to_string(x_dims));
  }
  if (w_dims.size() != x_dims.size()) {
    return invalid_node(
        context, "weight W " + shape_to_string(w_dims) + " must have the rank of input X " + shape_to_string(x_dims));
  }
  ConvParams params;
  params.batch = x_dims[0];
  params.in_channels = x_dims[1];
  params.out_channels = w_dims[0];
  GE_ASSIGN_OR_RETURN(params.group, int_attribute(context, "group", 1));
  if (params.group < 1) {
    return invalid_attribute(context, "group", "= " + std::to_string(params.group) + " must be >= 1");
  }
  if (params.in_channels % params.group != 0) {
    return invalid_attribute(context, "group",
                             "= " + std::to_string(params.group) + " does not divide the " +
                                 std::to_string(params.in_channels) + " input channels");
  }
  if (params.out_channels % params.group != 0) {
    return invalid_attribute(context, "group",
                             "= " + std::to_string(params.group) + " does not divide the " +
                                 std::to_string(params.out_channels) + " output channels of W");
  }
  if (w_dims[1] * params.group != params.in_channels) {
    return invalid_node(context, "weight W " + shape_to_string(w_dims) + " has " + std::to_string(w_dims[1]) +
                                     " input channels per group, but X has " + std::to_string(params.in_channels) +
                                     " channels in " + std::to_string(params.group) + " group(s)");
  }
  const std::vector<int64_t> weight_kernel(w_dims.begin() + 2, w_dims.end());
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ints_attribute(context, "kernel_shape", weight_kernel));
  if (kernel != weight_kernel) {
    return invalid_attribute(
        context, "kernel_shape",
        "= " + shape_to_string(kernel) + " does not match the spatial dims of W " + shape_to_string(w_dims));
  }
  const std::vector<int64_t> x_spatial(x_dims.begin() + 2, x_dims.end());
  GE_ASSIGN_OR_RETURN(params.geometry, compute_spatial_geometry(context, x_spatial, kernel, false));
  params.has_bias = has_input(context, 2);
  if (params.has_bias) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 2));
    if (b_dims != std::vector<int64_t>{params.out_channels}) {
      return invalid_node(context, "bias B has shape " + shape_to_string(b_dims) + ", expected [" +
                                       std::to_string(params.out_channels) + "]");
    }
  }
  std::vector<int64_t> y_dims{params.batch, params.out_channels};
  for (int64_t dim : params.geometry.output_dims()) y_dims.push_back(dim);
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));

  const SpatialGeometry& g = params.geometry;
  params.pointwise = g.kernel_size() == 1 && g.input == g.output &&
                     std::all_of(g.pads_begin.begin(), g.pads_begin.end(), [](int64_t v) { return v == 0; });
  params.column_elements =
      params.pointwise ? 0 : (params.in_channels / params.group) * g.kernel_size() * g.output_size();
  // float16/bfloat16 run the float32 loop on converted copies.
  nn::FloatBridge bridge{{product(x_dims), product(w_dims), params.has_bias ? params.out_channels : 0},
                         {product(y_dims)}};
  const auto columns = static_cast<size_t>(params.column_elements);
  const char* variant = params.pointwise ? "pointwise" : "im2col";
  return nn::prepare_with_bridge<ConvParams, &conv_kernel<float>>(
      context, dtype, std::move(params), std::move(bridge), columns * sizeof(float), columns * element_size(dtype),
      variant, []<typename T>() -> KernelFunction { return &conv_kernel<T>; });
}

}  // namespace

void add_conv_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Conv", data_types(nn::FloatingTypes{}), &prepare_conv});
}

}  // namespace ge::reference_kernels
