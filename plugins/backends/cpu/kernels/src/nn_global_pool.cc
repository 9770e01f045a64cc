// GlobalMaxPool (opset 1) and GlobalLpPool (opsets 1, 2): the max, or the Lp norm
// (sum |x|^p)^(1/p) with attribute p (default 2), of each [N, C] plane over all spatial
// axes; the output keeps the spatial axes with extent 1.

#include <cmath>
#include <string>

#include "nn_element.h"
#include "nn_kernels.h"
#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

using nn::load;
using nn::store;

struct GlobalPoolParams {
  int64_t planes = 0, plane_size = 0;
  double p = 2;
};

template <typename T>
int global_max_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GlobalPoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.planes == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* values = x + plane * p.plane_size;
    double best = -INFINITY;
    for (int64_t i = 0; i < p.plane_size; ++i) {
      const double v = load(values[i]);
      if (v > best || std::isnan(v)) best = v;
      if (std::isnan(best)) break;  // NaN wins, as in numpy's max
    }
    y[plane] = store<T>(best);
  }
  return kKernelOk;
}

template <typename T>
int global_lp_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GlobalPoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.planes == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* values = x + plane * p.plane_size;
    double sum = 0;
    for (int64_t i = 0; i < p.plane_size; ++i) sum += std::pow(std::fabs(load(values[i])), p.p);
    y[plane] = store<T>(std::pow(sum, 1.0 / p.p));
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_global_pool(const KernelContext& context) {
  const bool lp = context.node.op_type() == "GlobalLpPool";
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

void add_nn_global_pool_kernels(std::vector<OpKernel>& table) {
  table.push_back({"GlobalMaxPool", data_types(nn::FloatingTypes{}), &prepare_global_pool});
  table.push_back({"GlobalLpPool", data_types(nn::FloatingTypes{}), &prepare_global_pool});
}

}  // namespace ge::cpu_kernels
