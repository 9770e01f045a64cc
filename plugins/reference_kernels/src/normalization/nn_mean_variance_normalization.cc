// MeanVarianceNormalization (opsets 9, 13): X normalised over `axes` (default [0, 2, 3]):
//   Y = (X - mean) / (sqrt(var) + 1e-9)
// with mean and biased variance taken over the reduced axes for each index of the kept
// ones (the ONNX function body's formula; the variance is computed in two passes in
// double, which is never negative).

#include <algorithm>
#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct MeanVarianceNormalizationParams {
  std::vector<int64_t> dims;
  std::vector<int64_t> group_strides;  // per axis: stride in the kept-axes index (0 if reduced)
  int64_t count = 0, groups = 0, group_size = 0;
};

// Calls visit(flat, group) for every element of X in order.
template <typename Visit>
void for_each_element(const MeanVarianceNormalizationParams& p, int64_t* position, Visit&& visit) {
  const size_t rank = p.dims.size();
  std::fill(position, position + rank, 0);
  int64_t group = 0;
  for (int64_t flat = 0; flat < p.count; ++flat) {
    visit(flat, group);
    for (size_t d = rank; d-- > 0;) {
      group += p.group_strides[d];
      if (++position[d] < p.dims[d]) break;
      group -= p.group_strides[d] * p.dims[d];
      position[d] = 0;
    }
  }
}

template <typename T>
int mean_variance_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const MeanVarianceNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr || (p.count > 0 && args.workspace == nullptr)) return kKernelMissingAddress;
  if (p.count == 0) return kKernelOk;
  auto* mean = static_cast<double*>(args.workspace);
  double* deviation = mean + p.groups;  // becomes 1 / (std + 1e-9)
  auto* position = reinterpret_cast<int64_t*>(deviation + p.groups);
  std::fill(mean, mean + 2 * p.groups, 0.0);
  const double size = static_cast<double>(p.group_size);
  for_each_element(p, position, [&](int64_t flat, int64_t group) { mean[group] += load(x[flat]); });
  for (int64_t g = 0; g < p.groups; ++g) mean[g] /= size;
  for_each_element(p, position, [&](int64_t flat, int64_t group) {
    const double d = load(x[flat]) - mean[group];
    deviation[group] += d * d;
  });
  for (int64_t g = 0; g < p.groups; ++g) deviation[g] = 1.0 / (std::sqrt(deviation[g] / size) + 1e-9);
  for_each_element(p, position, [&](int64_t flat, int64_t group) {
    y[flat] = store<T>((load(x[flat]) - mean[group]) * deviation[group]);
  });
  return kKernelOk;
}

Result<PreparedKernel> prepare_mean_variance_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ints_attribute(context, "axes", {0, 2, 3}));
  std::vector<bool> reduced(x_dims.size(), false);
  for (int64_t axis_value : axes) {
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axes", axis_value, rank));
    if (reduced[axis]) return invalid_attribute(context, "axes", "names axis " + std::to_string(axis) + " twice");
    reduced[axis] = true;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  MeanVarianceNormalizationParams p;
  p.dims = x_dims;
  p.group_strides.assign(x_dims.size(), 0);
  p.count = product(x_dims);
  p.groups = 1;
  p.group_size = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (reduced[d]) {
      p.group_size *= x_dims[d];
    } else {
      p.group_strides[d] = p.groups;
      p.groups *= x_dims[d];
    }
  }
  KernelFunction function = select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction {
    return &mean_variance_normalization_kernel<T>;
  });
  const size_t workspace = static_cast<size_t>(2 * p.groups) * sizeof(double) + x_dims.size() * sizeof(int64_t);
  return make_kernel(context, function, std::move(p), workspace);
}

}  // namespace

void add_nn_mean_variance_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"MeanVarianceNormalization", data_types(nn::FloatingTypes{}), &prepare_mean_variance_normalization});
}

}  // namespace ge::reference_kernels
