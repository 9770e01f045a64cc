// Softmax, LogSoftmax and Hardmax. Opsets 1 and 11 coerce the input to 2-D at `axis`
// (default 1): each row [prod(dims[:axis]), prod(dims[axis:])] is normalised as a whole.
// Opset 13 normalises along the single axis `axis` (default -1). Both are an
// (outer, n, inner) walk: the old one with inner = 1. The maximum is subtracted first so
// exp never overflows; float16/bfloat16 are computed in double like the others.

#include <algorithm>
#include <cmath>
#include <string>

#include "nn/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels {
namespace {

using tensor::load;
using tensor::store;

enum class Normalizer { kSoftmax, kLogSoftmax, kHardmax };

struct SoftmaxParams {
  int64_t outer = 0;
  int64_t n = 0;      // elements normalised together
  int64_t inner = 0;  // stride between them
};

template <typename T, Normalizer kind>
int softmax_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SoftmaxParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.n == 0 || p.outer == 0 || p.inner == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  auto value = [](T element) { return static_cast<double>(load(element)); };
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* x_line = x + o * p.n * p.inner + i;
      T* y_line = y + o * p.n * p.inner + i;
      // The first maximum: Hardmax marks it, the others subtract it.
      int64_t arg_max = 0;
      double maximum = value(x_line[0]);
      for (int64_t j = 1; j < p.n; ++j) {
        const double v = value(x_line[j * p.inner]);
        if (v > maximum) {
          maximum = v;
          arg_max = j;
        }
      }
      if constexpr (kind == Normalizer::kHardmax) {
        for (int64_t j = 0; j < p.n; ++j) y_line[j * p.inner] = store<T>(j == arg_max ? 1.0 : 0.0);
        continue;
      }
      double sum = 0.0;  // double keeps the float32 reference accurate
      for (int64_t j = 0; j < p.n; ++j) sum += std::exp(value(x_line[j * p.inner]) - maximum);
      if constexpr (kind == Normalizer::kLogSoftmax) {
        const double log_sum = std::log(sum);
        for (int64_t j = 0; j < p.n; ++j) {
          y_line[j * p.inner] = store<T>(value(x_line[j * p.inner]) - maximum - log_sum);
        }
      } else {
        for (int64_t j = 0; j < p.n; ++j) {
          y_line[j * p.inner] = store<T>(std::exp(value(x_line[j * p.inner]) - maximum) / sum);
        }
      }
    }
  }
  return kKernelOk;
}

template <Normalizer kind>
Result<PreparedKernel> prepare_normalizer(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  const bool coerced = context.opset < 13;
  SoftmaxParams params;
  if (rank == 0) {
    params = {1, 1, 1};  // a scalar normalises on its own
  } else {
    GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", coerced ? 1 : -1));
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
    const size_t split = static_cast<size_t>(axis);
    params.outer = product(x_dims, 0, split);
    if (coerced) {
      params.n = product(x_dims, split, x_dims.size());
      params.inner = 1;
    } else {
      params.n = x_dims[split];
      params.inner = product(x_dims, split + 1, x_dims.size());
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  KernelFunction function =
      select_kernel(dtype, FloatingTypes{}, []<typename T>() -> KernelFunction { return &softmax_kernel<T, kind>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(FloatingTypes{}));
  return make_kernel(context, function, params);
}

}  // namespace

void add_softmax_kernels(std::vector<OpKernel>& table) {
  const std::vector<DataType> types = data_types(FloatingTypes{});
  table.push_back({"Softmax", types, &prepare_normalizer<Normalizer::kSoftmax>});
  table.push_back({"LogSoftmax", types, &prepare_normalizer<Normalizer::kLogSoftmax>});
  table.push_back({"Hardmax", types, &prepare_normalizer<Normalizer::kHardmax>});
}

}  // namespace ge::reference_kernels
