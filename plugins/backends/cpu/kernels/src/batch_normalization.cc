// BatchNormalization in inference mode (opsets 1-15):
//   Y = (X - mean) / sqrt(var + epsilon) * scale + B
// per channel (axis 1), or per element of X's [C, D1, ...] block when a pre-9 node has
// spatial = 0. Training mode (and its extra outputs) is not supported.

#include <cmath>
#include <string>

#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

struct BatchNormalizationParams {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t inner = 0;         // elements per (n, c): product of the spatial dims
  bool per_element = false;  // spatial = 0: one parameter set per (c, spatial position)
  float epsilon = 1e-5f;
};

template <typename T>
int batch_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const BatchNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* scale = static_cast<const T*>(args.inputs[1]);
  const auto* bias = static_cast<const T*>(args.inputs[2]);
  const auto* mean = static_cast<const T*>(args.inputs[3]);
  const auto* variance = static_cast<const T*>(args.inputs[4]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || bias == nullptr || mean == nullptr || variance == nullptr || y == nullptr) {
    return kKernelMissingAddress;
  }
  const double epsilon = static_cast<double>(p.epsilon);
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (n * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t k = p.per_element ? c * p.inner + i : c;
        const double normalized = (static_cast<double>(x[base + i]) - static_cast<double>(mean[k])) /
                                  std::sqrt(static_cast<double>(variance[k]) + epsilon);
        y[base + i] = static_cast<T>(normalized * static_cast<double>(scale[k]) + static_cast<double>(bias[k]));
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_batch_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) {
    return invalid_node(context, "input X must have rank >= 2 ([N, C, ...]), got " + shape_to_string(x_dims));
  }
  GE_ASSIGN_OR_RETURN(int64_t training_mode, int_attribute(context, "training_mode", 0));
  if (training_mode != 0) return unsupported_feature(context, "training_mode = 1 (only inference is supported)");
  for (size_t i = 1; i < context.node.output_count(); ++i) {
    if (has_output(context, i)) {
      return unsupported_feature(context, "training output " + std::to_string(i) + " ('" +
                                              context.node.output(i)->name() +
                                              "'); only Y is computed in inference mode");
    }
  }
  BatchNormalizationParams params;
  params.batch = x_dims[0];
  params.channels = x_dims[1];
  params.inner = product(x_dims, 2, x_dims.size());
  GE_ASSIGN_OR_RETURN(params.epsilon, float_attribute(context, "epsilon", 1e-5f));
  GE_ASSIGN_OR_RETURN(int64_t spatial, int_attribute(context, "spatial", 1));
  params.per_element = context.opset < 9 && spatial == 0;
  const int64_t parameter_count = params.per_element ? params.channels * params.inner : params.channels;
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i <= 4; ++i) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, i, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    const bool ok =
        params.per_element ? product(dims) == parameter_count : dims == std::vector<int64_t>{params.channels};
    if (!ok) {
      return invalid_node(context, std::string("input ") + names[i] + " has shape " + shape_to_string(dims) +
                                       ", expected " + (params.per_element ? "X's dims after N" : "[C]") + " for X " +
                                       shape_to_string(x_dims));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  KernelFunction function =
      select_kernel(dtype, FloatTypes{}, []<typename T>() -> KernelFunction { return &batch_normalization_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_batch_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"BatchNormalization", data_types(FloatTypes{}), &prepare_batch_normalization});
}

}  // namespace ge::cpu_kernels
