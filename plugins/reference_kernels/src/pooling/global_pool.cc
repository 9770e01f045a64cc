// The global pools: GlobalAveragePool, GlobalMaxPool (opset 1) and GlobalLpPool (opsets 1,
// 2) reduce each [N, C] plane over all spatial axes to its mean, its max, or its Lp norm
// (sum |x|^p)^(1/p) with attribute p (default 2); the output keeps the spatial axes with
// extent 1. float16/bfloat16: GlobalAveragePool computes in float32 through the float
// bridge, the others load and store each element.

#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "nn/nn_float_bridge.h"
#include "pooling/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct GlobalPoolParams {
  int64_t planes = 0, plane_size = 0;
  double p = 2;
};

/// y[plane] = reduce(the plane's elements, params) for each [N, C] plane.
template <typename T, typename Reduce>
int reduce_planes(const KernelArgs& args, Reduce reduce) {
  const auto& p = *static_cast<const GlobalPoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.planes == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t plane = 0; plane < p.planes; ++plane) y[plane] = reduce(x + plane * p.plane_size, p);
  return kKernelOk;
}

template <typename T>
int global_average_pool_kernel(const KernelArgs& args) {
  return reduce_planes<T>(args, [](const T* values, const GlobalPoolParams& p) {
    double sum = 0.0;  // double keeps the float32 reference accurate
    for (int64_t i = 0; i < p.plane_size; ++i) sum += static_cast<double>(values[i]);
    return static_cast<T>(sum / static_cast<double>(p.plane_size));
  });
}

template <typename T>
int global_max_pool_kernel(const KernelArgs& args) {
  return reduce_planes<T>(args, [](const T* values, const GlobalPoolParams& p) {
    double best = -INFINITY;
    for (int64_t i = 0; i < p.plane_size; ++i) {
      const double v = load(values[i]);
      if (v > best || std::isnan(v)) best = v;
      if (std::isnan(best)) break;  // NaN wins, as in numpy's max
    }
    return store<T>(best);
  });
}

template <typename T>
int global_lp_pool_kernel(const KernelArgs& args) {
  return reduce_planes<T>(args, [](const T* values, const GlobalPoolParams& p) {
    double sum = 0;
    for (int64_t i = 0; i < p.plane_size; ++i) sum += std::pow(std::fabs(load(values[i])), p.p);
    return store<T>(std::pow(sum, 1.0 / p.p));
  });
}

Result<PreparedKernel> prepare_global_pool(const KernelContext& context) {
  const std::string& op = context.node.op_type();
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) {
    return invalid_node(context, "input X must have rank >= 2 ([N, C, spatial...]), got " + shape_to_string(x_dims));
  }
  std::vector<int64_t> y_dims(x_dims.size(), 1);
  y_dims[0] = x_dims[0];
  y_dims[1] = x_dims[1];
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  GlobalPoolParams params{x_dims[0] * x_dims[1], product(x_dims, 2, x_dims.size()), 2.0};
  if (op == "GlobalAveragePool") {
    nn::FloatBridge bridge{{product(x_dims)}, {params.planes}};
    return nn::prepare_with_bridge<GlobalPoolParams, &global_average_pool_kernel<float>>(
        context, dtype, params, std::move(bridge), 0, 0, {},
        []<typename T>() -> KernelFunction { return &global_average_pool_kernel<T>; });
  }
  const bool lp = op == "GlobalLpPool";
  if (lp) {
    // Opset 1 has a float p, opset 2 an int.
    const Attribute* attribute = context.node.attribute("p");
    if (attribute != nullptr && attribute->holds<float>()) {
      params.p = attribute->get<float>();
    } else {
      GE_ASSIGN_OR_RETURN(int64_t p, int_attribute(context, "p", 2));
      params.p = static_cast<double>(p);
    }
    if (!(params.p > 0)) return invalid_attribute(context, "p", "must be positive");
  }
  KernelFunction function = select_kernel(dtype, nn::FloatingTypes{}, [&]<typename T>() -> KernelFunction {
    return lp ? &global_lp_pool_kernel<T> : &global_max_pool_kernel<T>;
  });
  return make_kernel(context, function, params);
}

}  // namespace

void add_global_pool_kernels(std::vector<OpKernel>& table) {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    table.push_back({op, data_types(nn::FloatingTypes{}), &prepare_global_pool});
  }
}

}  // namespace ge::reference_kernels
