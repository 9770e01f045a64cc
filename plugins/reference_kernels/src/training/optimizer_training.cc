// The training optimizers of domain ai.onnx.preview.training (opset 1): Adagrad, Adam
// and Momentum. Inputs are R (learning rate, scalar), T (update count, int64 scalar), then
// n tensors X, n gradients G and n (Adam: 2n) state tensors; outputs are the n new X
// followed by the new states. Per element, with g = norm_coefficient * x + G:
//   Adagrad: r = R / (1 + T decay_factor); h' = h + g^2; x' = x - r g / (sqrt(h') + epsilon)
//   Momentum: v' = alpha v + (T > 0 ? beta : 1) g; x' = x - R v' (standard) or
//             x' = x - R (g + alpha v') (nesterov)
//   Adam: v' = alpha v + (1 - alpha) g; h' = beta h + (1 - beta) g^2;
//         r = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R;
//         x' = (1 - norm_coefficient_post) (x - r v' / (sqrt(h') + epsilon))
// Computed in double; X, G and the states share one dtype (float32 or float64).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "training/registration.h"

namespace ge::reference_kernels::special {
namespace {

enum class Optimizer { kAdagrad, kMomentum, kNesterov, kAdam };

struct OptimizerParams {
  Optimizer kind = Optimizer::kAdagrad;
  DataType rate_dtype = DataType::kFloat32;
  std::vector<int64_t> sizes;  // element count of each of the n tensors
  double decay_factor = 0.0, epsilon = 0.0, norm_coefficient = 0.0, norm_coefficient_post = 0.0;
  double alpha = 0.0, beta = 0.0;
};

size_t state_count(Optimizer kind) { return kind == Optimizer::kAdam ? 2 : 1; }

template <typename T>
int optimizer_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const OptimizerParams*>(args.params);
  const size_t n = p.sizes.size();
  const size_t states = state_count(p.kind);
  for (size_t i = 0; i < 2 + n * (2 + states); ++i) {
    if (args.inputs[i] == nullptr) return kKernelMissingAddress;
  }
  const double rate = p.rate_dtype == DataType::kFloat64 ? *static_cast<const double*>(args.inputs[0])
                                                         : static_cast<double>(*static_cast<const float*>(args.inputs[0]));
  const int64_t count = *static_cast<const int64_t*>(args.inputs[1]);
  for (size_t t = 0; t < n; ++t) {
    const auto* x = static_cast<const T*>(args.inputs[2 + t]);
    const auto* g = static_cast<const T*>(args.inputs[2 + n + t]);
    const auto* state1 = static_cast<const T*>(args.inputs[2 + 2 * n + t]);
    const T* state2 = states == 2 ? static_cast<const T*>(args.inputs[2 + 3 * n + t]) : nullptr;
    T* x_new = static_cast<T*>(args.outputs[t]);
    T* state1_new = static_cast<T*>(args.outputs[n + t]);
    T* state2_new = states == 2 ? static_cast<T*>(args.outputs[2 * n + t]) : nullptr;
    for (int64_t e = 0; e < p.sizes[t]; ++e) {
      const double xv = static_cast<double>(x[e]);
      const double grad = p.norm_coefficient * xv + static_cast<double>(g[e]);
      double x_out = 0.0, s1 = 0.0, s2 = 0.0;
      switch (p.kind) {
        case Optimizer::kAdagrad: {
          const double r = rate / (1.0 + static_cast<double>(count) * p.decay_factor);
          s1 = static_cast<double>(state1[e]) + grad * grad;
          x_out = xv - r * grad / (std::sqrt(s1) + p.epsilon);
          break;
        }
        case Optimizer::kMomentum:
        case Optimizer::kNesterov: {
          const double beta = count > 0 ? p.beta : 1.0;
          s1 = p.alpha * static_cast<double>(state1[e]) + beta * grad;
          x_out = p.kind == Optimizer::kMomentum ? xv - rate * s1 : xv - rate * (grad + p.alpha * s1);
          break;
        }
        case Optimizer::kAdam: {
          s1 = p.alpha * static_cast<double>(state1[e]) + (1.0 - p.alpha) * grad;
          s2 = p.beta * static_cast<double>(state2[e]) + (1.0 - p.beta) * grad * grad;
          const double steps = static_cast<double>(count);
          const double r = count > 0 ? rate * std::sqrt(1.0 - std::pow(p.beta, steps)) / (1.0 - std::pow(p.alpha, steps))
                                     : rate;
          x_out = (1.0 - p.norm_coefficient_post) * (xv - r * s1 / (std::sqrt(s2) + p.epsilon));
          break;
        }
      }
      if (x_new != nullptr) x_new[e] = static_cast<T>(x_out);
      if (state1_new != nullptr) state1_new[e] = static_cast<T>(s1);
      if (state2_new != nullptr) state2_new[e] = static_cast<T>(s2);
    }
  }
  return kKernelOk;
}

Result<double> double_attribute(const KernelContext& context, const char* name, double fallback) {
  GE_ASSIGN_OR_RETURN(float value, float_attribute(context, name, static_cast<float>(fallback)));
  return context.node.has_attribute(name) ? static_cast<double>(value) : fallback;
}

Result<PreparedKernel> prepare_optimizer(const KernelContext& context, Optimizer kind) {
  OptimizerParams p;
  p.kind = kind;
  p.rate_dtype = input_dtype(context, 0);
  if (p.rate_dtype != DataType::kFloat32 && p.rate_dtype != DataType::kFloat64) {
    const DataType supported[] = {DataType::kFloat32, DataType::kFloat64};
    return unsupported_dtype(context, p.rate_dtype, supported);
  }
  const size_t inputs = context.node.input_count();
  const size_t states = state_count(kind);
  const size_t per_tensor = 2 + states;
  if (inputs < 2 + per_tensor || (inputs - 2) % per_tensor != 0) {
    return invalid_node(context, "has " + std::to_string(inputs) + " inputs; expected R, T and " +
                                     std::to_string(per_tensor) + " inputs per optimized tensor");
  }
  const size_t n = (inputs - 2) / per_tensor;
  if (context.node.output_count() != n * (1 + states)) {
    return invalid_node(context, "has " + std::to_string(context.node.output_count()) + " outputs; expected " +
                                     std::to_string(n * (1 + states)) + " for " + std::to_string(n) + " tensors");
  }
  for (size_t i = 0; i < 2; ++i) {
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    if (product(dims) != 1) {
      return invalid_node(context, "input " + std::to_string(i) + " must be a scalar, got " + shape_to_string(dims));
    }
  }
  if (input_dtype(context, 1) != DataType::kInt64) {
    return unsupported_feature(context, "T (input 1) of dtype " + std::string(data_type_name(input_dtype(context, 1))));
  }
  const DataType dtype = input_dtype(context, 2);
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64) {
    return unsupported_feature(context, "X (input 2) of dtype " + std::string(data_type_name(dtype)));
  }
  for (size_t t = 0; t < n; ++t) {
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 2 + t));
    for (size_t group = 1; group < per_tensor; ++group) {
      const size_t index = 2 + group * n + t;
      GE_RETURN_IF_ERROR(check_input_dtype(context, index, dtype));
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> other, input_dims(context, index));
      if (other != dims) {
        return invalid_node(context, "input " + std::to_string(index) + " has shape " + shape_to_string(other) +
                                         " but its tensor (input " + std::to_string(2 + t) + ") is " +
                                         shape_to_string(dims));
      }
    }
    for (size_t group = 0; group < 1 + states; ++group) {
      if (has_output(context, group * n + t)) GE_RETURN_IF_ERROR(check_output(context, group * n + t, dtype, dims));
    }
    p.sizes.push_back(product(dims));
  }
  switch (kind) {
    case Optimizer::kAdagrad: {
      GE_ASSIGN_OR_RETURN(p.decay_factor, double_attribute(context, "decay_factor", 0.0));
      GE_ASSIGN_OR_RETURN(p.epsilon, double_attribute(context, "epsilon", 1e-6));
      GE_ASSIGN_OR_RETURN(p.norm_coefficient, double_attribute(context, "norm_coefficient", 0.0));
      break;
    }
    case Optimizer::kMomentum:
    case Optimizer::kNesterov: {
      GE_ASSIGN_OR_RETURN(p.alpha, double_attribute(context, "alpha", 0.0));
      GE_ASSIGN_OR_RETURN(p.beta, double_attribute(context, "beta", 0.0));
      GE_ASSIGN_OR_RETURN(p.norm_coefficient, double_attribute(context, "norm_coefficient", 0.0));
      GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", "standard"));
      if (mode == "nesterov") {
        p.kind = Optimizer::kNesterov;
      } else if (mode != "standard") {
        return invalid_attribute(context, "mode", "is '" + mode + "'; expected standard or nesterov");
      }
      break;
    }
    case Optimizer::kAdam: {
      GE_ASSIGN_OR_RETURN(p.alpha, double_attribute(context, "alpha", 0.9));
      GE_ASSIGN_OR_RETURN(p.beta, double_attribute(context, "beta", 0.999));
      GE_ASSIGN_OR_RETURN(p.epsilon, double_attribute(context, "epsilon", 1e-6));
      GE_ASSIGN_OR_RETURN(p.norm_coefficient, double_attribute(context, "norm_coefficient", 0.0));
      GE_ASSIGN_OR_RETURN(p.norm_coefficient_post, double_attribute(context, "norm_coefficient_post", 0.0));
      break;
    }
  }
  KernelFunction function =
      select_kernel(dtype, Float32And64Types{}, []<typename T>() -> KernelFunction { return &optimizer_kernel<T>; });
  return make_kernel(context, function, std::move(p));
}

Result<PreparedKernel> prepare_adagrad(const KernelContext& context) {
  return prepare_optimizer(context, Optimizer::kAdagrad);
}
Result<PreparedKernel> prepare_momentum(const KernelContext& context) {
  return prepare_optimizer(context, Optimizer::kMomentum);
}
Result<PreparedKernel> prepare_adam(const KernelContext& context) { return prepare_optimizer(context, Optimizer::kAdam); }

}  // namespace

void add_optimizer_kernels(std::vector<OpKernel>& table) {
  // Keyed "domain::Op" as the library looks up ops outside the ONNX domain.
  table.push_back({"ai.onnx.preview.training::Adagrad", {}, &prepare_adagrad});
  table.push_back({"ai.onnx.preview.training::Momentum", {}, &prepare_momentum});
  table.push_back({"ai.onnx.preview.training::Adam", {}, &prepare_adam});
}

}  // namespace ge::reference_kernels::special
