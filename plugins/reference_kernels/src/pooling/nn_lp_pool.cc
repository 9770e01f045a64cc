// LpPool (opsets 1, 2, 11): (sum over the window of |x|^p)^(1/p) with kernel_shape,
// strides, pads or auto_pad (and dilations/ceil_mode where given); taps in the padding
// contribute 0.

#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "pooling/pool_common.h"
#include "pooling/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct LpPoolParams {
  SpatialGeometry geometry;
  int64_t planes = 0;
  double p = 2;
};

template <typename T>
int lp_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const LpPoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.planes * p.geometry.output_size() == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const SpatialGeometry& g = p.geometry;
  const int64_t in_d = g.input[0], in_h = g.input[1], in_w = g.input[2];
  int64_t out_index = 0;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* x_plane = x + plane * g.input_size();
    for (int64_t od = 0; od < g.output[0]; ++od) {
      const int64_t d0 = od * g.strides[0] - g.pads_begin[0];
      for (int64_t oh = 0; oh < g.output[1]; ++oh) {
        const int64_t h0 = oh * g.strides[1] - g.pads_begin[1];
        for (int64_t ow = 0; ow < g.output[2]; ++ow, ++out_index) {
          const int64_t w0 = ow * g.strides[2] - g.pads_begin[2];
          double sum = 0;
          const TapRange td = taps_within(d0, g.kernel[0], g.dilations[0], 0, in_d);
          const TapRange th = taps_within(h0, g.kernel[1], g.dilations[1], 0, in_h);
          const TapRange tw = taps_within(w0, g.kernel[2], g.dilations[2], 0, in_w);
          for (int64_t kd = td.begin; kd < td.end; ++kd) {
            const int64_t id = d0 + kd * g.dilations[0];
            for (int64_t kh = th.begin; kh < th.end; ++kh) {
              const int64_t ih = h0 + kh * g.dilations[1];
              for (int64_t kw = tw.begin; kw < tw.end; ++kw) {
                const int64_t iw = w0 + kw * g.dilations[2];
                sum += std::pow(std::fabs(load(x_plane[(id * in_h + ih) * in_w + iw])), p.p);
              }
            }
          }
          y[out_index] = store<T>(std::pow(sum, 1.0 / p.p));
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_lp_pool(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(PoolShape shape, read_pool_shape(context));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, shape.output_dims));
  LpPoolParams params{shape.geometry, shape.planes, 2.0};
  const Attribute* attribute = context.node.attribute("p");
  if (attribute != nullptr && attribute->holds<float>()) {  // opset 1
    params.p = attribute->get<float>();
  } else {
    GE_ASSIGN_OR_RETURN(int64_t p, int_attribute(context, "p", 2));
    params.p = static_cast<double>(p);
  }
  if (!(params.p > 0)) return invalid_attribute(context, "p", "must be positive");
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &lp_pool_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_nn_lp_pool_kernels(std::vector<OpKernel>& table) {
  table.push_back({"LpPool", data_types(nn::FloatingTypes{}), &prepare_lp_pool});
}

}  // namespace ge::reference_kernels
