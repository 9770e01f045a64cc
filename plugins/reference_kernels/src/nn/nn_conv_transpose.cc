// ConvTranspose (opsets 1, 11): grouped, strided, dilated 1-D to 3-D transposed
// convolution with pads, auto_pad, output_padding, output_shape and an optional bias.
// It is the adjoint of Conv: per (image, group) one GEMM gives the column matrix
// W_g^T [M/g * kernel, C/g] x X_g [C/g, input positions], which col2im scatter-adds
// into the output planes (initialised with the bias). float16/bfloat16 compute in
// float32.
//
// Output extents and pads per spatial axis (ONNX spec): with output_shape given, or with
// auto_pad SAME_UPPER/SAME_LOWER (output = input * stride), the total padding is
// stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - output; SAME_UPPER
// puts the odd unit at the end, the others at the beginning. Otherwise the output is
// that expression with the explicit pads subtracted.

#include <algorithm>
#include <string>

#include "nn/gemm_reference.h"
#include "nn/nn_float_bridge.h"
#include "nn/nn_im2col.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

struct ConvTransposeParams {
  // The geometry of the forward convolution this op is the adjoint of: its input is
  // our output Y, its output our input X.
  SpatialGeometry geometry;
  int64_t batch = 0;
  int64_t in_channels = 0;   // C
  int64_t out_channels = 0;  // M
  int64_t group = 1;
  bool has_bias = false;
  int64_t column_elements = 0;
};

template <typename T>
int conv_transpose_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ConvTransposeParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* w = static_cast<const T*>(args.inputs[1]);
  const T* bias = p.has_bias ? static_cast<const T*>(args.inputs[2]) : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  auto* columns = static_cast<T*>(args.workspace);
  // Empty tensors are legal and have no address: a batch of 0 (or no output channels or
  // positions) writes nothing; no input channels leave Y = bias.
  if (p.batch * p.out_channels * p.geometry.input_size() == 0) return kKernelOk;
  const bool reads_x = p.in_channels > 0 && p.geometry.output_size() > 0;
  if ((reads_x && (x == nullptr || w == nullptr)) || y == nullptr || (p.has_bias && bias == nullptr) ||
      (p.column_elements > 0 && columns == nullptr)) {
    return kKernelMissingAddress;
  }
  const SpatialGeometry& g = p.geometry;
  const int64_t x_size = g.output_size();  // positions of one input plane
  const int64_t y_size = g.input_size();   // positions of one output plane
  const int64_t group_in = p.in_channels / p.group;
  const int64_t group_out = p.out_channels / p.group;
  const int64_t rows = group_out * g.kernel_size();  // column matrix rows
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t gi = 0; gi < p.group; ++gi) {
      const T* x_group = x + (n * p.in_channels + gi * group_in) * x_size;
      const T* w_group = w + gi * group_in * rows;  // [C/g, M/g * kernel]
      T* y_group = y + (n * p.out_channels + gi * group_out) * y_size;
      std::fill(columns, columns + rows * x_size, T(0));
      // A(r, c) = W_g[c, r]: row stride 1, column stride `rows`.
      gemm_accumulate(rows, x_size, group_in, w_group, 1, rows, x_group, x_size, 1, columns, x_size);
      for (int64_t m = 0; m < group_out; ++m) {
        const T initial = bias != nullptr ? bias[gi * group_out + m] : T(0);
        std::fill(y_group + m * y_size, y_group + (m + 1) * y_size, initial);
      }
      col2im_accumulate(columns, group_out, g, y_group);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_conv_transpose(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> w_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  if (x_dims.size() < 3) {
    return invalid_node(context, "input X must have rank >= 3 ([N, C, spatial...]), got " + shape_to_string(x_dims));
  }
  if (w_dims.size() != x_dims.size()) {
    return invalid_node(context, "weight W " + shape_to_string(w_dims) + " must have the rank of input X " +
                                     shape_to_string(x_dims));
  }
  const int64_t rank = static_cast<int64_t>(x_dims.size()) - 2;
  if (rank > kMaxSpatialRank) {
    return unsupported_feature(context, std::to_string(rank) + "-D spatial input (1-D to 3-D are supported)");
  }
  ConvTransposeParams params;
  params.batch = x_dims[0];
  params.in_channels = x_dims[1];
  GE_ASSIGN_OR_RETURN(params.group, int_attribute(context, "group", 1));
  if (params.group < 1 || params.in_channels % params.group != 0) {
    return invalid_attribute(context, "group",
                             "= " + std::to_string(params.group) + " must be >= 1 and divide the " +
                                 std::to_string(params.in_channels) + " input channels");
  }
  if (w_dims[0] != params.in_channels) {
    return invalid_node(context, "weight W " + shape_to_string(w_dims) + " must have X's " +
                                     std::to_string(params.in_channels) + " channels as its first dim");
  }
  params.out_channels = w_dims[1] * params.group;

  const std::vector<int64_t> weight_kernel(w_dims.begin() + 2, w_dims.end());
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ints_attribute(context, "kernel_shape", weight_kernel));
  if (kernel != weight_kernel) {
    return invalid_attribute(context, "kernel_shape",
                             "= " + shape_to_string(kernel) + " does not match the spatial dims of W " +
                                 shape_to_string(w_dims));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ints_attribute(context, "strides", std::vector<int64_t>(rank, 1)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                      ints_attribute(context, "dilations", std::vector<int64_t>(rank, 1)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ints_attribute(context, "pads", std::vector<int64_t>(2 * rank, 0)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> output_padding,
                      ints_attribute(context, "output_padding", std::vector<int64_t>(rank, 0)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> output_shape, ints_attribute(context, "output_shape", {}));
  GE_ASSIGN_OR_RETURN(std::string auto_pad, string_attribute(context, "auto_pad", "NOTSET"));
  auto check_list = [&](const std::vector<int64_t>& values, const char* name, int64_t size, int64_t minimum) -> Status {
    if (static_cast<int64_t>(values.size()) != size) {
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
  GE_RETURN_IF_ERROR(check_list(strides, "strides", rank, 1));
  GE_RETURN_IF_ERROR(check_list(dilations, "dilations", rank, 1));
  GE_RETURN_IF_ERROR(check_list(pads, "pads", 2 * rank, 0));
  GE_RETURN_IF_ERROR(check_list(output_padding, "output_padding", rank, 0));
  if (!output_shape.empty()) {
    // Some exporters give [N, C, spatial...]; the spatial extents are the last ones.
    if (static_cast<int64_t>(output_shape.size()) != rank && static_cast<int64_t>(output_shape.size()) != rank + 2) {
      return invalid_attribute(context, "output_shape",
                               "has " + std::to_string(output_shape.size()) + " values for a " +
                                   std::to_string(rank) + "-D spatial input");
    }
    output_shape.erase(output_shape.begin(), output_shape.end() - rank);
    GE_RETURN_IF_ERROR(check_list(output_shape, "output_shape", rank, 0));
  }
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID") {
    return invalid_attribute(context, "auto_pad",
                             "= '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }

  SpatialGeometry& g = params.geometry;
  g.rank = static_cast<int>(rank);
  const int64_t offset = kMaxSpatialRank - rank;
  std::vector<int64_t> y_dims{params.batch, params.out_channels};
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t in = x_dims[2 + i];
    const int64_t effective_kernel = (kernel[i] - 1) * dilations[i] + 1;
    const int64_t natural = strides[i] * (in - 1) + output_padding[i] + effective_kernel;
    int64_t pad_begin = pads[i], pad_end = pads[rank + i];
    int64_t out;
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (!output_shape.empty() || same) {
      out = !output_shape.empty() ? output_shape[i] : in * strides[i];
      const int64_t total = std::max<int64_t>(0, natural - out);
      if (auto_pad == "SAME_UPPER") {
        pad_begin = total / 2;
        pad_end = total - pad_begin;
      } else {
        pad_end = total / 2;
        pad_begin = total - pad_end;
      }
    } else {
      if (auto_pad == "VALID") pad_begin = pad_end = 0;
      out = natural - pad_begin - pad_end;
    }
    if (out < 1) {
      return invalid_node(context, "spatial axis " + std::to_string(i) + " of the output would have extent " +
                                       std::to_string(out) + "; check pads and output_shape");
    }
    const int64_t axis = offset + i;
    g.input[axis] = out;
    g.output[axis] = in;
    g.kernel[axis] = kernel[i];
    g.strides[axis] = strides[i];
    g.dilations[axis] = dilations[i];
    g.pads_begin[axis] = pad_begin;
    g.pads_end[axis] = pad_end;
    y_dims.push_back(out);
  }
  params.has_bias = has_input(context, 2);
  if (params.has_bias) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 2));
    if (b_dims != std::vector<int64_t>{params.out_channels}) {
      return invalid_node(context, "bias B has shape " + shape_to_string(b_dims) + ", expected [" +
                                       std::to_string(params.out_channels) + "]");
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  params.column_elements = (params.out_channels / params.group) * g.kernel_size() * g.output_size();
  nn::FloatBridge bridge{{product(x_dims), product(w_dims), params.has_bias ? params.out_channels : 0},
                         {product(y_dims)}};
  const auto columns = static_cast<size_t>(params.column_elements);
  return nn::prepare_with_bridge<ConvTransposeParams, &conv_transpose_kernel<float>>(
      context, dtype, std::move(params), std::move(bridge), columns * sizeof(float), columns * element_size(dtype),
      "col2im", []<typename T>() -> KernelFunction { return &conv_transpose_kernel<T>; });
}

}  // namespace

void add_nn_conv_transpose_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ConvTranspose", data_types(nn::FloatingTypes{}), &prepare_conv_transpose});
}

}  // namespace ge::reference_kernels
