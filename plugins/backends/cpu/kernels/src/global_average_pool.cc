// GlobalAveragePool (opset 1): the mean of each [N, C] plane over all spatial axes;
// float16/bfloat16 compute in float32.

#include "nn_float_bridge.h"
#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

struct GlobalAveragePoolParams {
  int64_t planes = 0;
  int64_t plane_size = 0;
};

template <typename T>
int global_average_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GlobalAveragePoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.planes == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    double sum = 0.0;  // double keeps the float32 reference accurate
    const T* x_plane = x + plane * p.plane_size;
    for (int64_t i = 0; i < p.plane_size; ++i) sum += static_cast<double>(x_plane[i]);
    y[plane] = static_cast<T>(sum / static_cast<double>(p.plane_size));
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_global_average_pool(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) {
    return invalid_node(context, "input X must have rank >= 2 ([N, C, spatial...]), got " + shape_to_string(x_dims));
  }
  std::vector<int64_t> y_dims(x_dims.size(), 1);
  y_dims[0] = x_dims[0];
  y_dims[1] = x_dims[1];
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  GlobalAveragePoolParams params{x_dims[0] * x_dims[1], product(x_dims, 2, x_dims.size())};
  nn::FloatBridge bridge{{product(x_dims)}, {params.planes}};
  return nn::prepare_with_bridge<GlobalAveragePoolParams, &global_average_pool_kernel<float>>(
      context, dtype, params, std::move(bridge), 0, 0, {},
      []<typename T>() -> KernelFunction { return &global_average_pool_kernel<T>; });
}

}  // namespace

void add_global_average_pool_kernels(std::vector<OpKernel>& table) {
  table.push_back({"GlobalAveragePool", data_types(nn::FloatingTypes{}), &prepare_global_average_pool});
}

}  // namespace ge::cpu_kernels
