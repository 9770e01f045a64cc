// BatchNormalization (opsets 1-15), per channel (axis 1), or per element of X's
// [C, D1, ...] block when a pre-9 node has spatial = 0:
//   Y = (X - mean) / sqrt(var + epsilon) * scale + B
// Inference uses the input mean and var. Training mode (training_mode = 1 from opset 14;
// before that, a node with the extra outputs and is_test = 0) uses the batch's mean and
// biased variance instead, and produces
//   running_mean = input_mean * momentum + batch_mean * (1 - momentum)   (same for var)
// as outputs 1 and 2 and, before opset 14, the batch mean and variance as outputs 3 and
// 4 (saved_mean, saved_var), as the ONNX reference does.
// X may be float16/bfloat16/float32/float64 and, as opset 15 allows, the parameters
// another floating dtype; everything is computed in double, except inference on float32
// X per channel (batch_normalization_affine_kernel).

#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct BatchNormalizationParams {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t inner = 0;         // elements per (n, c): product of the spatial dims
  bool per_element = false;  // spatial = 0: one parameter set per (c, spatial position)
  double epsilon = 1e-5;
  double momentum = 0.9;
  bool training = false;
  DataType scale_dtype = DataType::kUndefined, bias_dtype = DataType::kUndefined;
  DataType mean_dtype = DataType::kUndefined, var_dtype = DataType::kUndefined;
  // Training outputs 1..4 present (running mean, running var, saved mean, saved var) and
  // their dtypes.
  bool has_output[5] = {true, false, false, false, false};
  DataType output_dtype[5] = {};
  int64_t parameter_count = 0;
};

template <typename T>
int batch_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const BatchNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const void* scale = args.inputs[1];
  const void* bias = args.inputs[2];
  const void* input_mean = args.inputs[3];
  const void* input_var = args.inputs[4];
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || scale == nullptr || bias == nullptr || input_mean == nullptr || input_var == nullptr ||
      y == nullptr || (p.training && p.parameter_count > 0 && args.workspace == nullptr)) {
    return kKernelMissingAddress;
  }
  auto parameter = [&](int64_t c, int64_t i) { return p.per_element ? c * p.inner + i : c; };
  // The mean and variance Y is normalised with: the inputs', or the batch's in training.
  auto* batch_mean = static_cast<double*>(args.workspace);
  double* batch_var = batch_mean + p.parameter_count;
  if (p.training) {
    std::fill(batch_mean, batch_mean + 2 * p.parameter_count, 0.0);
    const double count = static_cast<double>(p.per_element ? p.batch : p.batch * p.inner);
    for (int64_t n = 0; n < p.batch; ++n) {
      for (int64_t c = 0; c < p.channels; ++c) {
        const T* plane = x + (n * p.channels + c) * p.inner;
        for (int64_t i = 0; i < p.inner; ++i) batch_mean[parameter(c, i)] += load(plane[i]);
      }
    }
    for (int64_t k = 0; k < p.parameter_count; ++k) batch_mean[k] /= count;
    for (int64_t n = 0; n < p.batch; ++n) {
      for (int64_t c = 0; c < p.channels; ++c) {
        const T* plane = x + (n * p.channels + c) * p.inner;
        for (int64_t i = 0; i < p.inner; ++i) {
          const int64_t k = parameter(c, i);
          const double d = load(plane[i]) - batch_mean[k];
          batch_var[k] += d * d;
        }
      }
    }
    for (int64_t k = 0; k < p.parameter_count; ++k) batch_var[k] /= count;
  }
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (n * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t k = parameter(c, i);
        const double mean = p.training ? batch_mean[k] : nn::load_as_double(input_mean, p.mean_dtype, k);
        const double var = p.training ? batch_var[k] : nn::load_as_double(input_var, p.var_dtype, k);
        const double normalized = (load(x[base + i]) - mean) / std::sqrt(var + p.epsilon);
        y[base + i] = store<T>(normalized * nn::load_as_double(scale, p.scale_dtype, k) +
                               nn::load_as_double(bias, p.bias_dtype, k));
      }
    }
  }
  if (!p.training) return kKernelOk;
  for (int64_t k = 0; k < p.parameter_count; ++k) {
    const double running_mean =
        nn::load_as_double(input_mean, p.mean_dtype, k) * p.momentum + batch_mean[k] * (1 - p.momentum);
    const double running_var =
        nn::load_as_double(input_var, p.var_dtype, k) * p.momentum + batch_var[k] * (1 - p.momentum);
    const double values[5] = {0, running_mean, running_var, batch_mean[k], batch_var[k]};
    for (int o = 1; o <= 4; ++o) {
      if (p.has_output[o] && args.outputs[o] != nullptr) {
        nn::store_from_double(args.outputs[o], p.output_dtype[o], k, values[o]);
      }
    }
  }
  return kKernelOk;
}

// Inference on float32 X with one parameter set per channel: Y = X * a + b, a and b worked
// out per channel at launch in double (into the workspace), then one multiply and add per
// element in float32, vectorised, as a BatchNormalization folded into a convolution
// computes (within a few float32 ulps of Y's and the terms' magnitudes of the double path).
int batch_normalization_affine_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const BatchNormalizationParams*>(args.params);
  const auto* x = static_cast<const float*>(args.inputs[0]);
  auto* y = static_cast<float*>(args.outputs[0]);
  auto* a = static_cast<float*>(args.workspace);
  for (int i = 0; i < 5; ++i) {
    if (args.inputs[i] == nullptr) return kKernelMissingAddress;
  }
  if (y == nullptr || (p.channels > 0 && a == nullptr)) return kKernelMissingAddress;
  float* b = a + p.channels;
  for (int64_t c = 0; c < p.channels; ++c) {
    const double inverse = 1.0 / std::sqrt(nn::load_as_double(args.inputs[4], p.var_dtype, c) + p.epsilon);
    const double slope = nn::load_as_double(args.inputs[1], p.scale_dtype, c) * inverse;
    a[c] = static_cast<float>(slope);
    b[c] = static_cast<float>(nn::load_as_double(args.inputs[2], p.bias_dtype, c) -
                              nn::load_as_double(args.inputs[3], p.mean_dtype, c) * slope);
  }
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (n * p.channels + c) * p.inner;
      const float slope = a[c], offset = b[c];
      const float* in = x + base;
      float* out = y + base;
      for (int64_t i = 0; i < p.inner; ++i) out[i] = in[i] * slope + offset;
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
  BatchNormalizationParams params;
  params.batch = x_dims[0];
  params.channels = x_dims[1];
  params.inner = product(x_dims, 2, x_dims.size());
  GE_ASSIGN_OR_RETURN(float epsilon, float_attribute(context, "epsilon", 1e-5f));
  GE_ASSIGN_OR_RETURN(float momentum, float_attribute(context, "momentum", 0.9f));
  params.epsilon = epsilon;
  params.momentum = momentum;
  GE_ASSIGN_OR_RETURN(int64_t spatial, int_attribute(context, "spatial", 1));
  params.per_element = context.opset < 9 && spatial == 0;
  bool extra_outputs = false;
  for (size_t i = 1; i < context.node.output_count(); ++i) extra_outputs = extra_outputs || has_output(context, i);
  if (context.opset >= 14) {
    GE_ASSIGN_OR_RETURN(int64_t training_mode, int_attribute(context, "training_mode", 0));
    params.training = training_mode != 0;
    if (!params.training && extra_outputs) {
      return invalid_node(context, "outputs running_mean and running_var need training_mode = 1");
    }
    if (context.node.output_count() > 3) return invalid_node(context, "has more than 3 outputs");
  } else {
    GE_ASSIGN_OR_RETURN(int64_t is_test, int_attribute(context, "is_test", 0));
    params.training = extra_outputs && is_test == 0;
  }
  params.parameter_count = params.per_element ? params.channels * params.inner : params.channels;
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  DataType* parameter_dtypes[] = {nullptr, &params.scale_dtype, &params.bias_dtype, &params.mean_dtype,
                                  &params.var_dtype};
  for (size_t i = 1; i <= 4; ++i) {
    if (!has_input(context, i)) return invalid_node(context, std::string("input ") + names[i] + " is required");
    const DataType parameter_dtype = input_dtype(context, i);
    if (!nn::is_floating_dtype(parameter_dtype)) {
      return unsupported_feature(context, std::string("input ") + names[i] + " of dtype " +
                                              std::string(data_type_name(parameter_dtype)));
    }
    *parameter_dtypes[i] = parameter_dtype;
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    const bool ok = params.per_element ? product(dims) == params.parameter_count
                                       : dims == std::vector<int64_t>{params.channels};
    if (!ok) {
      return invalid_node(context, std::string("input ") + names[i] + " has shape " + shape_to_string(dims) +
                                       ", expected " + (params.per_element ? "X's dims after N" : "[C]") + " for X " +
                                       shape_to_string(x_dims));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  if (params.training) {
    std::vector<int64_t> parameter_dims = params.per_element ? std::vector<int64_t>(x_dims.begin() + 1, x_dims.end())
                                                             : std::vector<int64_t>{params.channels};
    for (size_t o = 1; o < context.node.output_count() && o <= 4; ++o) {
      if (!has_output(context, o)) continue;
      const DataType out_dtype = context.node.output(o)->desc().dtype;
      if (!nn::is_floating_dtype(out_dtype)) {
        return invalid_node(context, "output " + std::to_string(o) + " must be floating point");
      }
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, o));
      if (product(out_dims) != params.parameter_count) {
        return invalid_node(context, "output " + std::to_string(o) + " has shape " + shape_to_string(out_dims) +
                                         ", expected " + shape_to_string(parameter_dims));
      }
      params.has_output[o] = true;
      params.output_dtype[o] = out_dtype;
    }
  }
  if (dtype == DataType::kFloat32 && !params.training && !params.per_element) {
    return make_kernel(context, &batch_normalization_affine_kernel, params,
                       static_cast<size_t>(2 * params.channels) * sizeof(float), "affine");
  }
  KernelFunction function = select_kernel(
      dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &batch_normalization_kernel<T>; });
  const size_t workspace = params.training ? static_cast<size_t>(2 * params.parameter_count) * sizeof(double) : 0;
  return make_kernel(context, function, params, workspace, params.training ? "training" : "");
}

}  // namespace

void add_batch_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"BatchNormalization", data_types(nn::FloatingTypes{}), &prepare_batch_normalization});
}

}  // namespace ge::reference_kernels
