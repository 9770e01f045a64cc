// InstanceNormalization (opsets 1, 6): each (n, c) plane of X [N, C, D1, ...] is
// normalised with its own mean and biased variance,
//   Y = (X - mean) / sqrt(var + epsilon) * scale[c] + B[c].
// Statistics are computed in double.

#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct InstanceNormalizationParams {
  int64_t batch = 0, channels = 0, plane = 0;
  double epsilon = 1e-5;
  DataType scale_dtype = DataType::kUndefined, bias_dtype = DataType::kUndefined;
};

template <typename T>
int instance_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const InstanceNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const void* scale = args.inputs[1];
  const void* bias = args.inputs[2];
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || bias == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (n * p.channels + c) * p.plane;
      double mean = 0;
      for (int64_t i = 0; i < p.plane; ++i) mean += load(x[base + i]);
      mean /= static_cast<double>(p.plane);
      double variance = 0;
      for (int64_t i = 0; i < p.plane; ++i) {
        const double d = load(x[base + i]) - mean;
        variance += d * d;
      }
      variance /= static_cast<double>(p.plane);
      const double factor = nn::load_as_double(scale, p.scale_dtype, c) / std::sqrt(variance + p.epsilon);
      const double shift = nn::load_as_double(bias, p.bias_dtype, c);
      for (int64_t i = 0; i < p.plane; ++i) y[base + i] = store<T>((load(x[base + i]) - mean) * factor + shift);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_instance_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 3) {
    return invalid_node(context, "input X must have rank >= 3 ([N, C, D1, ...]), got " + shape_to_string(x_dims));
  }
  InstanceNormalizationParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.plane = product(x_dims, 2, x_dims.size());
  GE_ASSIGN_OR_RETURN(float epsilon, float_attribute(context, "epsilon", 1e-5f));
  p.epsilon = epsilon;
  const char* names[] = {"input", "scale", "B"};
  for (size_t i = 1; i <= 2; ++i) {
    if (!has_input(context, i)) return invalid_node(context, std::string("input '") + names[i] + "' is required");
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    if (dims != std::vector<int64_t>{p.channels}) {
      return invalid_node(context, std::string("input '") + names[i] + "' has shape " + shape_to_string(dims) +
                                       ", expected [" + std::to_string(p.channels) + "]");
    }
    const DataType parameter_dtype = input_dtype(context, i);
    if (!nn::is_floating_dtype(parameter_dtype)) {
      return unsupported_feature(context, std::string("input '") + names[i] + "' of dtype " +
                                              std::string(data_type_name(parameter_dtype)));
    }
    (i == 1 ? p.scale_dtype : p.bias_dtype) = parameter_dtype;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  KernelFunction function = select_kernel(
      dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &instance_normalization_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_instance_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"InstanceNormalization", data_types(nn::FloatingTypes{}), &prepare_instance_normalization});
}

}  // namespace ge::reference_kernels
