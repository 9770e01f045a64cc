// AveragePool (opsets 1-11, and the dilations of opset 19): kernel_shape, strides, pads
// or auto_pad, ceil_mode and count_include_pad. The divisor counts the taps inside the
// input, or with count_include_pad the taps inside input plus pads (a window that
// ceil_mode pushes past the end pads is cut there), as ONNX Runtime does.
// float16/bfloat16 compute in float32.

#include <algorithm>
#include <string>

#include "nn/nn_float_bridge.h"
#include "pooling/pool_common.h"
#include "pooling/registration.h"

namespace ge::reference_kernels {
namespace {

struct AveragePoolParams {
  SpatialGeometry geometry;
  int64_t planes = 0;
  bool count_include_pad = false;
};

template <typename T>
int average_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const AveragePoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.planes * p.geometry.output_size() == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const SpatialGeometry& g = p.geometry;
  const int64_t in_d = g.input[0], in_h = g.input[1], in_w = g.input[2];
  const int64_t in_size = g.input_size();
  // Taps of one axis inside the input, and inside input plus end pad.
  auto count_taps = [&](int axis, int64_t start, int64_t& inside, int64_t& inside_padded) {
    inside = taps_within(start, g.kernel[axis], g.dilations[axis], 0, g.input[axis]).count();
    inside_padded = taps_within(start, g.kernel[axis], g.dilations[axis], start,
                                g.input[axis] + g.pads_end[axis])
                        .count();
  };
  int64_t out_index = 0;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* x_plane = x + plane * in_size;
    for (int64_t od = 0; od < g.output[0]; ++od) {
      const int64_t d0 = od * g.strides[0] - g.pads_begin[0];
      int64_t d_inside, d_padded;
      count_taps(0, d0, d_inside, d_padded);
      for (int64_t oh = 0; oh < g.output[1]; ++oh) {
        const int64_t h0 = oh * g.strides[1] - g.pads_begin[1];
        int64_t h_inside, h_padded;
        count_taps(1, h0, h_inside, h_padded);
        for (int64_t ow = 0; ow < g.output[2]; ++ow, ++out_index) {
          const int64_t w0 = ow * g.strides[2] - g.pads_begin[2];
          int64_t w_inside, w_padded;
          count_taps(2, w0, w_inside, w_padded);
          double sum = 0.0;  // double keeps the float32 reference accurate
          const TapRange td = taps_within(d0, g.kernel[0], g.dilations[0], 0, in_d);
          const TapRange th = taps_within(h0, g.kernel[1], g.dilations[1], 0, in_h);
          const TapRange tw = taps_within(w0, g.kernel[2], g.dilations[2], 0, in_w);
          for (int64_t kd = td.begin; kd < td.end; ++kd) {
            const int64_t id = d0 + kd * g.dilations[0];
            for (int64_t kh = th.begin; kh < th.end; ++kh) {
              const int64_t ih = h0 + kh * g.dilations[1];
              for (int64_t kw = tw.begin; kw < tw.end; ++kw) {
                const int64_t iw = w0 + kw * g.dilations[2];
                sum += static_cast<double>(x_plane[(id * in_h + ih) * in_w + iw]);
              }
            }
          }
          // A window entirely in padding divides 0 by 0 (NaN), as ONNX Runtime does.
          const int64_t divisor = p.count_include_pad ? d_padded * h_padded * w_padded : d_inside * h_inside * w_inside;
          y[out_index] = static_cast<T>(sum / static_cast<double>(divisor));
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_average_pool(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(PoolShape shape, read_pool_shape(context));
  GE_ASSIGN_OR_RETURN(int64_t count_include_pad, int_attribute(context, "count_include_pad", 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, shape.output_dims));
  AveragePoolParams params{shape.geometry, shape.planes, count_include_pad != 0};
  nn::FloatBridge bridge{{shape.planes * params.geometry.input_size()}, {product(shape.output_dims)}};
  return nn::prepare_with_bridge<AveragePoolParams, &average_pool_kernel<float>>(
      context, dtype, params, std::move(bridge), 0, 0, {},
      []<typename T>() -> KernelFunction { return &average_pool_kernel<T>; });
}

}  // namespace

void add_average_pool_kernels(std::vector<OpKernel>& table) {
  table.push_back({"AveragePool", data_types(nn::FloatingTypes{}), &prepare_average_pool});
}

}  // namespace ge::reference_kernels
