// ConvInteger (opset 10) and QLinearConv (opset 10): Conv over 8-bit integers with zero
// points, accumulated exactly in int32. Input and weight are shifted by their zero
// points into int32 (so padding, which im2col fills with 0, acts as the input's zero
// point), then each (image, group) is one int32 GEMM as in Conv.
// ConvInteger outputs the int32 sums. QLinearConv adds the int32 bias and requantizes
// each output channel m with the float multiplier x_scale * w_scale[m] / y_scale,
// rounding half to even and saturating after adding y_zero_point, as ONNX Runtime does.
// Zero points and scales are read at launch (they may be runtime inputs); w_scale and
// w_zero_point may be per output channel.

#include <cmath>
#include <limits>
#include <string>

#include "nn/gemm_reference.h"
#include "nn/nn_im2col.h"
#include "quantization/nn_quantization.h"
#include "quantization/registration.h"

namespace ge::reference_kernels {
namespace {

using Int8Types = TypeList<int8_t, uint8_t>;

struct QuantizedConvParams {
  SpatialGeometry geometry;
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
  bool qlinear = false;
  // Input slots (-1: absent) of X, W and the quantisation parameters.
  int w_input = 1, x_zero_input = -1, w_zero_input = -1;
  int x_scale_input = -1, w_scale_input = -1, y_scale_input = -1, y_zero_input = -1, bias_input = -1;
  bool w_zero_per_channel = false, w_scale_per_channel = false;
  // Workspace layout in int32 elements.
  int64_t w_elements = 0, x_elements = 0, column_elements = 0, accumulator_elements = 0;
};

template <typename X, typename W, typename Y>
int quantized_conv_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizedConvParams*>(args.params);
  auto input = [&](int index) -> const void* { return index >= 0 ? args.inputs[index] : nullptr; };
  const auto* x = static_cast<const X*>(args.inputs[0]);
  const auto* w = static_cast<const W*>(input(p.w_input));
  const auto* x_zero = static_cast<const X*>(input(p.x_zero_input));
  const auto* w_zero = static_cast<const W*>(input(p.w_zero_input));
  if (x == nullptr || w == nullptr || args.outputs[0] == nullptr || args.workspace == nullptr ||
      (p.x_zero_input >= 0 && x_zero == nullptr) || (p.w_zero_input >= 0 && w_zero == nullptr)) {
    return kKernelMissingAddress;
  }
  const float* x_scale = static_cast<const float*>(input(p.x_scale_input));
  const float* w_scale = static_cast<const float*>(input(p.w_scale_input));
  const float* y_scale = static_cast<const float*>(input(p.y_scale_input));
  const auto* y_zero = static_cast<const Y*>(input(p.y_zero_input));
  const auto* bias = static_cast<const int32_t*>(input(p.bias_input));
  if (p.qlinear && (x_scale == nullptr || w_scale == nullptr || y_scale == nullptr ||
                    (p.y_zero_input >= 0 && y_zero == nullptr) || (p.bias_input >= 0 && bias == nullptr))) {
    return kKernelMissingAddress;
  }
  const SpatialGeometry& g = p.geometry;
  const int64_t in_size = g.input_size(), out_size = g.output_size();
  const int64_t group_in = p.in_channels / p.group, group_out = p.out_channels / p.group;
  const int64_t depth = group_in * g.kernel_size();
  auto* shifted_w = static_cast<int32_t*>(args.workspace);
  int32_t* shifted_x = shifted_w + p.w_elements;
  int32_t* columns = shifted_x + p.x_elements;
  int32_t* accumulator = columns + p.column_elements;

  const int32_t x_offset = x_zero != nullptr ? static_cast<int32_t>(x_zero[0]) : 0;
  for (int64_t m = 0; m < p.out_channels; ++m) {
    const int32_t w_offset = w_zero == nullptr ? 0 : static_cast<int32_t>(w_zero[p.w_zero_per_channel ? m : 0]);
    for (int64_t i = 0; i < depth; ++i) {
      shifted_w[m * depth + i] = static_cast<int32_t>(w[m * depth + i]) - w_offset;
    }
  }
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t gi = 0; gi < p.group; ++gi) {
      const X* x_group = x + (n * p.in_channels + gi * group_in) * in_size;
      for (int64_t i = 0; i < group_in * in_size; ++i) shifted_x[i] = static_cast<int32_t>(x_group[i]) - x_offset;
      im2col(shifted_x, group_in, g, columns);
      const int64_t first_channel = gi * group_out;
      int32_t* sums = p.qlinear
                          ? accumulator
                          : static_cast<int32_t*>(args.outputs[0]) + (n * p.out_channels + first_channel) * out_size;
      for (int64_t m = 0; m < group_out; ++m) {
        const int32_t initial = bias != nullptr ? bias[first_channel + m] : 0;
        std::fill(sums + m * out_size, sums + (m + 1) * out_size, initial);
      }
      gemm_accumulate(group_out, out_size, depth, shifted_w + first_channel * depth, depth, 1, columns, out_size, 1,
                      sums, out_size);
      if (!p.qlinear) continue;
      Y* y = static_cast<Y*>(args.outputs[0]) + (n * p.out_channels + first_channel) * out_size;
      const float y_offset = y_zero != nullptr ? static_cast<float>(y_zero[0]) : 0.0f;
      constexpr float kLowest = static_cast<float>(std::numeric_limits<Y>::lowest());
      constexpr float kHighest = static_cast<float>(std::numeric_limits<Y>::max());
      for (int64_t m = 0; m < group_out; ++m) {
        const int64_t channel = first_channel + m;
        const float multiplier = x_scale[0] * w_scale[p.w_scale_per_channel ? channel : 0] / y_scale[0];
        for (int64_t i = 0; i < out_size; ++i) {
          float value = std::nearbyint(static_cast<float>(sums[m * out_size + i]) * multiplier) + y_offset;
          value = value < kLowest ? kLowest : (value > kHighest ? kHighest : value);
          y[m * out_size + i] = static_cast<Y>(value);
        }
      }
    }
  }
  return kKernelOk;
}

template <typename X, typename W>
KernelFunction pick_output(DataType y_dtype, bool qlinear) {
  if (!qlinear) return &quantized_conv_kernel<X, W, int32_t>;
  return select_kernel(y_dtype, Int8Types{},
                       []<typename Y>() -> KernelFunction { return &quantized_conv_kernel<X, W, Y>; });
}

Result<PreparedKernel> prepare_quantized_conv(const KernelContext& context) {
  QuantizedConvParams p;
  p.qlinear = context.node.op_type() == "QLinearConv";
  if (p.qlinear) {
    p.x_scale_input = 1;
    p.x_zero_input = 2;
    p.w_input = 3;
    p.w_scale_input = 4;
    p.w_zero_input = 5;
    p.y_scale_input = 6;
    p.y_zero_input = 7;
    p.bias_input = 8;
  } else {
    p.x_zero_input = 2;
    p.w_zero_input = 3;
  }
  for (int* slot : {&p.x_zero_input, &p.w_zero_input, &p.y_zero_input, &p.bias_input}) {
    if (*slot >= 0 && !has_input(context, static_cast<size_t>(*slot))) *slot = -1;
  }
  for (int slot : {p.w_input, p.x_scale_input, p.w_scale_input, p.y_scale_input}) {
    if (slot >= 0 && !has_input(context, static_cast<size_t>(slot))) {
      return invalid_node(context, "input " + std::to_string(slot) + " is required");
    }
  }
  const DataType x_dtype = input_dtype(context, 0);
  const DataType w_dtype = input_dtype(context, static_cast<size_t>(p.w_input));
  const std::vector<DataType> int8_types = data_types(Int8Types{});
  if (w_dtype != DataType::kInt8 && w_dtype != DataType::kUInt8) {
    return unsupported_feature(
        context, "weight dtype " + std::string(data_type_name(w_dtype)) + " (int8 and uint8 are supported)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> w_dims, input_dims(context, static_cast<size_t>(p.w_input)));
  if (x_dims.size() < 3 || w_dims.size() != x_dims.size()) {
    return invalid_node(context, "input X " + shape_to_string(x_dims) + " and weight W " + shape_to_string(w_dims) +
                                     " must have the same rank >= 3 ([N, C, spatial...])");
  }
  p.batch = x_dims[0];
  p.in_channels = x_dims[1];
  p.out_channels = w_dims[0];
  GE_ASSIGN_OR_RETURN(p.group, int_attribute(context, "group", 1));
  if (p.group < 1 || p.in_channels % p.group != 0 || p.out_channels % p.group != 0 ||
      w_dims[1] * p.group != p.in_channels) {
    return invalid_node(context, "group = " + std::to_string(p.group) + " does not fit X " + shape_to_string(x_dims) +
                                     " and W " + shape_to_string(w_dims));
  }
  const std::vector<int64_t> weight_kernel(w_dims.begin() + 2, w_dims.end());
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ints_attribute(context, "kernel_shape", weight_kernel));
  if (kernel != weight_kernel) {
    return invalid_attribute(
        context, "kernel_shape",
        "= " + shape_to_string(kernel) + " does not match the spatial dims of W " + shape_to_string(w_dims));
  }
  const std::vector<int64_t> x_spatial(x_dims.begin() + 2, x_dims.end());
  GE_ASSIGN_OR_RETURN(p.geometry, compute_spatial_geometry(context, x_spatial, kernel, false));

  GE_RETURN_IF_ERROR(check_quantization_parameter(context, p.x_zero_input, "x_zero_point", x_dtype, 0).status());
  GE_ASSIGN_OR_RETURN(p.w_zero_per_channel,
                      check_quantization_parameter(context, p.w_zero_input, "w_zero_point", w_dtype, p.out_channels));
  DataType y_dtype = DataType::kInt32;
  if (p.qlinear) {
    GE_RETURN_IF_ERROR(
        check_quantization_parameter(context, p.x_scale_input, "x_scale", DataType::kFloat32, 0).status());
    GE_ASSIGN_OR_RETURN(p.w_scale_per_channel, check_quantization_parameter(context, p.w_scale_input, "w_scale",
                                                                            DataType::kFloat32, p.out_channels));
    GE_RETURN_IF_ERROR(
        check_quantization_parameter(context, p.y_scale_input, "y_scale", DataType::kFloat32, 0).status());
    GE_RETURN_IF_ERROR(check_scale_values(context, p.x_scale_input, "x_scale"));
    GE_RETURN_IF_ERROR(check_scale_values(context, p.w_scale_input, "w_scale"));
    GE_RETURN_IF_ERROR(check_scale_values(context, p.y_scale_input, "y_scale"));
    y_dtype = p.y_zero_input >= 0 ? input_dtype(context, static_cast<size_t>(p.y_zero_input))
                                  : context.node.output(0)->desc().dtype;
    if (y_dtype != DataType::kInt8 && y_dtype != DataType::kUInt8) {
      return unsupported_dtype(context, y_dtype, int8_types);
    }
    GE_RETURN_IF_ERROR(check_quantization_parameter(context, p.y_zero_input, "y_zero_point", y_dtype, 0).status());
    if (p.bias_input >= 0) {
      GE_RETURN_IF_ERROR(check_input_dtype(context, static_cast<size_t>(p.bias_input), DataType::kInt32));
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, static_cast<size_t>(p.bias_input)));
      if (b_dims != std::vector<int64_t>{p.out_channels}) {
        return invalid_node(context, "bias B has shape " + shape_to_string(b_dims) + ", expected [" +
                                         std::to_string(p.out_channels) + "]");
      }
    }
  }
  std::vector<int64_t> y_dims{p.batch, p.out_channels};
  for (int64_t dim : p.geometry.output_dims()) y_dims.push_back(dim);
  GE_RETURN_IF_ERROR(check_output(context, 0, y_dtype, y_dims));

  const SpatialGeometry& g = p.geometry;
  const int64_t group_in = p.in_channels / p.group;
  p.w_elements = p.out_channels * group_in * g.kernel_size();
  p.x_elements = group_in * g.input_size();
  p.column_elements = group_in * g.kernel_size() * g.output_size();
  p.accumulator_elements = p.qlinear ? (p.out_channels / p.group) * g.output_size() : 0;
  const bool qlinear = p.qlinear;
  KernelFunction function = select_kernel(x_dtype, Int8Types{}, [&]<typename X>() -> KernelFunction {
    return select_kernel(w_dtype, Int8Types{},
                         [&]<typename W>() -> KernelFunction { return pick_output<X, W>(y_dtype, qlinear); });
  });
  const size_t workspace =
      static_cast<size_t>(p.w_elements + p.x_elements + p.column_elements + p.accumulator_elements) * sizeof(int32_t);
  return make_kernel(context, function, std::move(p), workspace, "im2col");
}

}  // namespace

void add_nn_quantized_conv_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ConvInteger", data_types(Int8Types{}), &prepare_quantized_conv});
  table.push_back({"QLinearConv", data_types(Int8Types{}), &prepare_quantized_conv});
}

}  // namespace ge::reference_kernels
