// DeformConv (opsets 19 and 22): convolution whose kernel taps sample X at positions moved
// by `offset`, as onnx/reference/ops/op_deform_conv.py (which runs GridSample with
// align_corners=1, bilinear, zero padding), generalised to N spatial axes:
//   Y[n, oc, o] = B[oc] + sum over ic of oc's group and kernel taps k of
//                 W[oc, ic % (C / group), k] * mask[n, g, k, o] * X[n, ic](p)
//   p_d = o_d * strides_d - pads_begin_d + k_d * dilations_d + offset[n, g, k, d, o]
// where g = ic / (C / offset_group), offset is [N, offset_group * prod(kernel) * D, out...]
// and mask [N, offset_group * prod(kernel), out...] (ones when omitted). X(p) interpolates
// multilinearly between the 2^D neighbours of p; a neighbour outside X counts as 0.
// float and double; sums in double; float16/bfloat16 run the float32 loop on converted
// copies (nn_float_bridge.h). The sampled taps of one group go to the workspace
// (C / group * prod(kernel) * prod(out) doubles) and are shared by its output channels.

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "ge/reference_kernels/spatial_geometry.h"
#include "nn/nn_float_bridge.h"
#include "nn/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels {
namespace {

constexpr int kMaxSpatial = tensor::kMaxRank - 2;
using Spatial = std::array<int64_t, kMaxSpatial>;

struct DeformConvParams {
  int spatial = 0;
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1, offset_group = 1;
  Spatial in{}, out{}, kernel{}, strides{}, pads_begin{}, dilations{};
  int64_t in_size = 0, out_size = 0, kernel_size = 0;  // products
  bool has_bias = false, has_mask = false;
};

// Multilinear sample of `image` (extents p.in) at `at`; 0 outside.
template <typename T>
double sample(const DeformConvParams& p, const T* image, const std::array<double, kMaxSpatial>& at) {
  Spatial low{};
  std::array<double, kMaxSpatial> frac{};
  for (int d = 0; d < p.spatial; ++d) {
    // Every neighbour lies outside (or has weight 0) unless -1 < at < extent; this also
    // keeps NaN and huge offsets away from the integer conversion.
    if (!(at[d] > -1.0 && at[d] < static_cast<double>(p.in[d]))) return 0.0;
    const double floor = std::floor(at[d]);
    low[d] = static_cast<int64_t>(floor);
    frac[d] = at[d] - floor;
  }
  double value = 0.0;
  for (int corner = 0; corner < (1 << p.spatial); ++corner) {
    double weight = 1.0;
    int64_t offset = 0;
    bool inside = true;
    for (int d = 0; d < p.spatial && inside; ++d) {
      const bool high = (corner >> d) & 1;
      const int64_t index = low[d] + (high ? 1 : 0);
      inside = index >= 0 && index < p.in[d];
      weight *= high ? frac[d] : 1.0 - frac[d];
      offset = offset * p.in[d] + index;
    }
    if (inside && weight != 0.0) value += weight * static_cast<double>(image[offset]);
  }
  return value;
}

template <typename T>
int deform_conv_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const DeformConvParams*>(args.params);
  const int64_t y_count = p.batch * p.out_channels * p.out_size;
  if (y_count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* w = static_cast<const T*>(args.inputs[1]);
  const auto* offset = static_cast<const T*>(args.inputs[2]);
  const auto* bias = p.has_bias ? static_cast<const T*>(args.inputs[3]) : nullptr;
  const auto* mask = p.has_mask ? static_cast<const T*>(args.inputs[4]) : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  auto* columns = static_cast<double*>(args.workspace);
  const int64_t group_channels = p.channels / p.group;
  const int64_t group_outputs = p.out_channels / p.group;
  const int64_t offset_channels = p.channels / p.offset_group;
  const bool work = group_channels * p.kernel_size > 0;
  if (y == nullptr || (p.has_bias && bias == nullptr) || (p.has_mask && mask == nullptr) ||
      (work && (x == nullptr || w == nullptr || offset == nullptr || columns == nullptr))) {
    return kKernelMissingAddress;
  }
  const int64_t taps = p.kernel_size * p.out_size;  // one input channel's column
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.group; ++g) {
      // Sampled (and masked) taps of the group's input channels.
      for (int64_t c = 0; c < group_channels; ++c) {
        const int64_t ic = g * group_channels + c;
        const int64_t og = ic / offset_channels;
        const T* image = x + (n * p.channels + ic) * p.in_size;
        const T* shifts = offset + (n * p.offset_group + og) * p.kernel_size * p.spatial * p.out_size;
        const T* scales = mask != nullptr ? mask + (n * p.offset_group + og) * p.kernel_size * p.out_size : nullptr;
        Spatial k{};
        for (int64_t kf = 0; kf < p.kernel_size; ++kf) {
          Spatial o{};
          for (int64_t of = 0; of < p.out_size; ++of) {
            std::array<double, kMaxSpatial> at{};
            for (int d = 0; d < p.spatial; ++d) {
              at[d] = static_cast<double>(o[d] * p.strides[d] - p.pads_begin[d] + k[d] * p.dilations[d]) +
                      static_cast<double>(shifts[(kf * p.spatial + d) * p.out_size + of]);
            }
            double value = sample(p, image, at);
            if (scales != nullptr) value *= static_cast<double>(scales[kf * p.out_size + of]);
            columns[c * taps + kf * p.out_size + of] = value;
            for (int d = p.spatial - 1; d >= 0; --d) {
              if (++o[d] < p.out[d]) break;
              o[d] = 0;
            }
          }
          for (int d = p.spatial - 1; d >= 0; --d) {
            if (++k[d] < p.kernel[d]) break;
            k[d] = 0;
          }
        }
      }
      for (int64_t m = 0; m < group_outputs; ++m) {
        const int64_t oc = g * group_outputs + m;
        const T* weights = w + oc * group_channels * p.kernel_size;
        T* out = y + (n * p.out_channels + oc) * p.out_size;
        const double start = bias != nullptr ? static_cast<double>(bias[oc]) : 0.0;
        for (int64_t of = 0; of < p.out_size; ++of) {
          double sum = start;
          for (int64_t tap = 0; tap < group_channels * p.kernel_size; ++tap) {
            sum += static_cast<double>(weights[tap]) * columns[tap * p.out_size + of];
          }
          out[of] = static_cast<T>(sum);
        }
      }
    }
  }
  return kKernelOk;
}

Result<int64_t> positive_attribute(const KernelContext& context, const std::string& name) {
  GE_ASSIGN_OR_RETURN(int64_t value, int_attribute(context, name, 1));
  if (value < 1) return invalid_attribute(context, name, "is " + std::to_string(value) + "; it must be at least 1");
  return value;
}

Result<PreparedKernel> prepare_deform_conv(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  if (!nn::is_floating_dtype(dtype)) return unsupported_dtype(context, dtype, data_types(nn::FloatingTypes{}));
  for (size_t index = 1; index <= 4; ++index) {
    if (index <= 2 || has_input(context, index)) GE_RETURN_IF_ERROR(check_input_dtype(context, index, dtype));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> w_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> offset_dims, input_dims(context, 2));
  const int64_t spatial = static_cast<int64_t>(x_dims.size()) - 2;
  if (spatial < 1) return invalid_node(context, "input 0 (X) " + shape_to_string(x_dims) + " needs rank 3 or more");
  if (spatial > kMaxSpatial) {
    return unsupported_feature(context, std::to_string(spatial) + " spatial axes (1-" + std::to_string(kMaxSpatial) +
                                            " are supported)");
  }
  const auto count = static_cast<size_t>(spatial);
  DeformConvParams p;
  p.spatial = static_cast<int>(spatial);
  GE_ASSIGN_OR_RETURN(p.group, positive_attribute(context, "group"));
  GE_ASSIGN_OR_RETURN(p.offset_group, positive_attribute(context, "offset_group"));
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  if (w_dims.size() != x_dims.size()) {
    return invalid_node(context, "input 1 (W) " + shape_to_string(w_dims) + " must have the rank of X " +
                                     shape_to_string(x_dims));
  }
  p.out_channels = w_dims[0];
  if (w_dims[1] * p.group != p.channels || p.out_channels % p.group != 0) {
    return invalid_node(context, "X " + shape_to_string(x_dims) + " and W " + shape_to_string(w_dims) +
                                     " do not fit group " + std::to_string(p.group) +
                                     " (W's dim 1 * group must be X's channels; W's dim 0 a multiple of group)");
  }
  if (p.channels % p.offset_group != 0) {
    return invalid_attribute(context, "offset_group",
                             "is " + std::to_string(p.offset_group) + " but X's " + std::to_string(p.channels) +
                                 " channels are not a multiple of it");
  }
  const std::vector<int64_t> w_kernel(w_dims.begin() + 2, w_dims.end());
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel_shape, ints_attribute(context, "kernel_shape", w_kernel));
  if (kernel_shape != w_kernel) {
    return invalid_attribute(context, "kernel_shape",
                             "is " + shape_to_string(kernel_shape) + " but W's kernel is " + shape_to_string(w_kernel));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, spatial_attribute(context, "dilations", count, 1, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, spatial_attribute(context, "strides", count, 1, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, spatial_attribute(context, "pads", 2 * count, 0, 0));
  std::vector<int64_t> y_dims = {p.batch, p.out_channels};
  p.in_size = p.out_size = p.kernel_size = 1;
  for (size_t d = 0; d < count; ++d) {
    p.in[d] = x_dims[2 + d];
    p.kernel[d] = w_kernel[d];
    p.strides[d] = strides[d];
    p.dilations[d] = dilations[d];
    p.pads_begin[d] = pads[d];
    const int64_t room = p.in[d] + pads[d] + pads[count + d] - (dilations[d] * (p.kernel[d] - 1) + 1);
    if (room < 0) {
      return invalid_node(context, "the dilated kernel does not fit the padded input on spatial axis " +
                                       std::to_string(d));
    }
    p.out[d] = room / strides[d] + 1;
    y_dims.push_back(p.out[d]);
    p.in_size *= p.in[d];
    p.out_size *= p.out[d];
    p.kernel_size *= p.kernel[d];
  }
  std::vector<int64_t> expected = {p.batch, p.offset_group * p.kernel_size * spatial};
  expected.insert(expected.end(), y_dims.begin() + 2, y_dims.end());
  if (offset_dims != expected) {
    return invalid_node(context, "input 2 (offset) is " + shape_to_string(offset_dims) + ", expected " +
                                     shape_to_string(expected) + " (N, offset_group * kernel size * " +
                                     std::to_string(spatial) + ", output positions)");
  }
  if (has_input(context, 3)) {
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 3));
    if (b_dims != std::vector<int64_t>{p.out_channels}) {
      return invalid_node(context, "input 3 (B) is " + shape_to_string(b_dims) + ", expected [" +
                                       std::to_string(p.out_channels) + "]");
    }
    p.has_bias = true;
  }
  if (has_input(context, 4)) {
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> mask_dims, input_dims(context, 4));
    expected[1] = p.offset_group * p.kernel_size;
    if (mask_dims != expected) {
      return invalid_node(context, "input 4 (mask) is " + shape_to_string(mask_dims) + ", expected " +
                                       shape_to_string(expected) +
                                       " (N, offset_group * kernel size, output positions)");
    }
    p.has_mask = true;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  const auto workspace = static_cast<size_t>(p.channels / p.group * p.kernel_size * p.out_size) * sizeof(double);
  nn::FloatBridge bridge{{product(x_dims), product(w_dims), product(offset_dims), p.has_bias ? p.out_channels : 0,
                          p.has_mask ? p.batch * p.offset_group * p.kernel_size * p.out_size : 0},
                         {product(y_dims)}};
  return nn::prepare_with_bridge<DeformConvParams, &deform_conv_kernel<float>>(
      context, dtype, p, std::move(bridge), workspace, workspace, {},
      []<typename T>() -> KernelFunction { return &deform_conv_kernel<T>; });
}

}  // namespace

void add_nn_deform_conv_kernels(std::vector<OpKernel>& table) {
  table.push_back({"DeformConv", data_types(nn::FloatingTypes{}), &prepare_deform_conv});
}

}  // namespace ge::reference_kernels
