// LRN (opsets 1, 13): local response normalisation across channels of X [N, C, D1, ...]:
//   square_sum[n, c] = sum of X[n, c']^2 over c' in [c - floor((size - 1) / 2),
//                      c + ceil((size - 1) / 2)] within [0, C)
//   Y = X / (bias + alpha / size * square_sum) ^ beta

#include <algorithm>
#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct LrnParams {
  int64_t batch = 0, channels = 0, plane = 0;
  int64_t before = 0, after = 0;  // channels summed before and after c
  double alpha_over_size = 0, beta = 0, bias = 0;
};

template <typename T>
int lrn_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const LrnParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t n = 0; n < p.batch; ++n) {
    const T* image = x + n * p.channels * p.plane;
    T* out = y + n * p.channels * p.plane;
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t first = std::max<int64_t>(0, c - p.before);
      const int64_t last = std::min<int64_t>(p.channels - 1, c + p.after);
      for (int64_t i = 0; i < p.plane; ++i) {
        double square_sum = 0;
        for (int64_t k = first; k <= last; ++k) {
          const double v = load(image[k * p.plane + i]);
          square_sum += v * v;
        }
        const double value = load(image[c * p.plane + i]);
        out[c * p.plane + i] = store<T>(value / std::pow(p.bias + p.alpha_over_size * square_sum, p.beta));
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_lrn(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) {
    return invalid_node(context, "input X must have rank >= 2 ([N, C, ...]), got " + shape_to_string(x_dims));
  }
  if (!context.node.has_attribute("size")) return invalid_attribute(context, "size", "is required");
  GE_ASSIGN_OR_RETURN(int64_t size, int_attribute(context, "size", 1));
  if (size < 1) return invalid_attribute(context, "size", "= " + std::to_string(size) + " must be >= 1");
  GE_ASSIGN_OR_RETURN(float alpha, float_attribute(context, "alpha", 1e-4f));
  GE_ASSIGN_OR_RETURN(float beta, float_attribute(context, "beta", 0.75f));
  GE_ASSIGN_OR_RETURN(float bias, float_attribute(context, "bias", 1.0f));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  LrnParams p;
  p.batch = x_dims[0];
  p.channels = x_dims[1];
  p.plane = product(x_dims, 2, x_dims.size());
  p.before = (size - 1) / 2;
  p.after = size - 1 - p.before;  // ceil((size - 1) / 2)
  p.alpha_over_size = static_cast<double>(alpha) / static_cast<double>(size);
  p.beta = beta;
  p.bias = bias;
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &lrn_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_lrn_kernels(std::vector<OpKernel>& table) {
  table.push_back({"LRN", data_types(nn::FloatingTypes{}), &prepare_lrn});
}

}  // namespace ge::reference_kernels
