// GroupNormalization (opsets 18 and 21): X [N, C, D1, ...] split into num_groups groups of
// C / num_groups channels; each (instance, group) is normalised with its mean and biased
// variance, then scaled and shifted:
//   Y = scale * (X - mean) / sqrt(var + epsilon) + bias
// Opset 18 has one scale/bias per group ([num_groups]); opset 21 one per channel ([C])
// and stash_type, the precision of the normalisation stage. Statistics are computed in
// double whatever stash_type says (at least as precise as each); as in the opset-21
// function body, the normalised value is rounded to X's type before the affine stage.

#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct GroupNormalizationParams {
  int64_t batch = 0, channels = 0, groups = 0, spatial = 0;  // spatial: product of D1, ...
  double epsilon = 1e-5;
  bool per_channel = false;     // opset 21: scale/bias per channel, else per group
  bool round_normalized = false;  // opset 21: the normalised value is cast to X's type
};

template <typename T>
int group_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GroupNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* scale = static_cast<const T*>(args.inputs[1]);
  const auto* bias = static_cast<const T*>(args.inputs[2]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || bias == nullptr || y == nullptr) return kKernelMissingAddress;
  const int64_t channels_per_group = p.channels / p.groups;
  const int64_t group_size = channels_per_group * p.spatial;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      const int64_t base = (n * p.groups + g) * group_size;
      double mean = 0;
      for (int64_t i = 0; i < group_size; ++i) mean += load(x[base + i]);
      mean /= static_cast<double>(group_size);
      double variance = 0;
      for (int64_t i = 0; i < group_size; ++i) {
        const double d = load(x[base + i]) - mean;
        variance += d * d;
      }
      variance /= static_cast<double>(group_size);
      const double inv_std = 1.0 / std::sqrt(variance + p.epsilon);
      for (int64_t c = 0; c < channels_per_group; ++c) {
        const int64_t parameter = p.per_channel ? g * channels_per_group + c : g;
        const double s = load(scale[parameter]);
        const double b = load(bias[parameter]);
        const int64_t start = base + c * p.spatial;
        for (int64_t i = start; i < start + p.spatial; ++i) {
          double normalized = (load(x[i]) - mean) * inv_std;
          if (p.round_normalized) normalized = load(store<T>(normalized));
          y[i] = store<T>(s * normalized + b);
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_group_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) {
    return invalid_node(context, "input X must have rank >= 2 (N, C, D1, ...), got " + shape_to_string(x_dims));
  }
  GroupNormalizationParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.spatial = product(x_dims, 2, x_dims.size());
  p.per_channel = context.opset >= 21;
  p.round_normalized = p.per_channel;
  GE_ASSIGN_OR_RETURN(float epsilon, float_attribute(context, "epsilon", 1e-5f));
  p.epsilon = epsilon;
  if (!context.node.has_attribute("num_groups")) return invalid_attribute(context, "num_groups", "is required");
  GE_ASSIGN_OR_RETURN(p.groups, int_attribute(context, "num_groups", 0));
  if (p.groups <= 0 || p.channels % p.groups != 0) {
    return invalid_attribute(context, "num_groups",
                             "= " + std::to_string(p.groups) + " must be positive and divide the channel count " +
                                 std::to_string(p.channels));
  }
  if (p.per_channel) {
    GE_ASSIGN_OR_RETURN(int64_t stash_type, int_attribute(context, "stash_type", 1));
    if (!is_valid_data_type(static_cast<int32_t>(stash_type)) ||
        !nn::is_floating_dtype(static_cast<DataType>(stash_type))) {
      return invalid_attribute(context, "stash_type", "= " + std::to_string(stash_type) + " is not a floating dtype");
    }
  }
  const int64_t parameters = p.per_channel ? p.channels : p.groups;
  const char* parameter_meaning = p.per_channel ? "[C]" : "[num_groups] (per channel from opset 21)";
  for (size_t i = 1; i <= 2; ++i) {
    const char* name = i == 1 ? "scale" : "bias";
    if (!has_input(context, i)) return invalid_node(context, std::string("input '") + name + "' is required");
    GE_RETURN_IF_ERROR(check_input_dtype(context, i, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    if (dims != std::vector<int64_t>{parameters}) {
      return invalid_node(context, std::string(name) + " has shape " + shape_to_string(dims) + ", expected [" +
                                       std::to_string(parameters) + "]: GroupNormalization-" +
                                       (p.per_channel ? "21" : "18") + " takes " + parameter_meaning);
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  KernelFunction function = select_kernel(
      dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &group_normalization_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(nn::FloatingTypes{}));
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_group_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"GroupNormalization", data_types(nn::FloatingTypes{}), &prepare_group_normalization});
}

}  // namespace ge::reference_kernels
