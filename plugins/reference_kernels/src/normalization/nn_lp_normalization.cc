// LpNormalization (opset 1): X divided by its L1 or L2 norm along `axis` (default -1).
// A zero norm leaves the (all-zero) slice as it is.

#include <cmath>
#include <string>

#include "nn/nn_element.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct LpNormalizationParams {
  int64_t outer = 0, extent = 0, inner = 0;  // X viewed as [outer, extent, inner]
  int64_t p = 2;
};

template <typename T>
int lp_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const LpNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t base = o * p.extent * p.inner + i;
      double norm = 0;
      for (int64_t e = 0; e < p.extent; ++e) {
        const double v = load(x[base + e * p.inner]);
        norm += p.p == 1 ? std::fabs(v) : v * v;
      }
      if (p.p == 2) norm = std::sqrt(norm);
      for (int64_t e = 0; e < p.extent; ++e) {
        const double v = load(x[base + e * p.inner]);
        y[base + e * p.inner] = store<T>(norm == 0 ? v : v / norm);
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_lp_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank < 1) return invalid_node(context, "input X must have rank >= 1");
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", -1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  LpNormalizationParams p;
  GE_ASSIGN_OR_RETURN(p.p, int_attribute(context, "p", 2));
  if (p.p != 1 && p.p != 2) return invalid_attribute(context, "p", "= " + std::to_string(p.p) + " must be 1 or 2");
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  p.outer = product(x_dims, 0, static_cast<size_t>(axis));
  p.extent = x_dims[axis];
  p.inner = product(x_dims, static_cast<size_t>(axis) + 1, x_dims.size());
  KernelFunction function = select_kernel(dtype, nn::FloatingTypes{},
                                          []<typename T>() -> KernelFunction { return &lp_normalization_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_lp_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"LpNormalization", data_types(nn::FloatingTypes{}), &prepare_lp_normalization});
}

}  // namespace ge::reference_kernels
