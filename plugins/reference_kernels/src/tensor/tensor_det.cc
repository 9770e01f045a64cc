// Det: the determinant of each square matrix in the last two axes, by LU decomposition
// with partial pivoting in double (the matrix is copied into the workspace).

#include <cmath>
#include <string>
#include <utility>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct DetParams {
  int64_t matrices = 0, n = 0;
};

template <typename T>
int det_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const DetParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.matrices == 0) return kKernelOk;
  if (y == nullptr || (p.n > 0 && (x == nullptr || args.workspace == nullptr))) return kKernelMissingAddress;
  auto* a = static_cast<double*>(args.workspace);
  const int64_t n = p.n;
  for (int64_t m = 0; m < p.matrices; ++m) {
    for (int64_t i = 0; i < n * n; ++i) a[i] = static_cast<double>(load(x[m * n * n + i]));
    double det = 1.0;
    for (int64_t c = 0; c < n && det != 0.0; ++c) {
      int64_t pivot = c;
      for (int64_t r = c + 1; r < n; ++r) {
        if (std::fabs(a[r * n + c]) > std::fabs(a[pivot * n + c])) pivot = r;
      }
      if (a[pivot * n + c] == 0.0) {
        det = 0.0;
        break;
      }
      if (pivot != c) {
        for (int64_t j = 0; j < n; ++j) std::swap(a[c * n + j], a[pivot * n + j]);
        det = -det;
      }
      det *= a[c * n + c];
      for (int64_t r = c + 1; r < n; ++r) {
        const double factor = a[r * n + c] / a[c * n + c];
        for (int64_t j = c; j < n; ++j) a[r * n + j] -= factor * a[c * n + j];
      }
    }
    y[m] = store<T>(det);
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_det(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2 || x_dims[x_dims.size() - 1] != x_dims[x_dims.size() - 2]) {
    return invalid_node(context, "input " + shape_to_string(x_dims) + " must be square matrices [*, M, M]");
  }
  const std::vector<int64_t> y_dims(x_dims.begin(), x_dims.end() - 2);
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  DetParams params{product(y_dims), x_dims.back()};
  KernelFunction function =
      select_kernel(dtype, FloatingTypes{}, []<typename T>() -> KernelFunction { return &det_kernel<T>; });
  return make_kernel(context, function, params, static_cast<size_t>(params.n * params.n) * sizeof(double));
}

}  // namespace

void add_det_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Det", data_types(FloatingTypes{}), &prepare_det});
}

}  // namespace ge::reference_kernels::tensor
