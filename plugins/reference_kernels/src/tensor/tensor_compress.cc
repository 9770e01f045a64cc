// Compress: keeps the slices along `axis` (or, without axis, the elements of the
// flattened input) whose `condition` entry is true; entries past the condition's length
// are dropped. The kept count depends on the data: the output desc must come from
// run-time shape inference (or a kernel-computed shape); the kernel checks it.

#include <algorithm>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct CompressParams {
  int64_t outer = 0, axis_dim = 0, inner = 0;  // input as [outer, axis_dim, inner]
  int64_t condition_count = 0;
  int64_t kept = 0;  // output extent on the axis
};

template <typename T>
int compress_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CompressParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* condition = static_cast<const bool*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  const int64_t usable = std::min(p.condition_count, p.axis_dim);
  if (usable > 0 && condition == nullptr) return kKernelMissingAddress;
  int64_t kept = 0;
  for (int64_t i = 0; i < usable; ++i) kept += condition[i] ? 1 : 0;
  if (kept != p.kept) return kKernelRuntimeShapeMismatch;
  if (kept * p.outer * p.inner == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < usable; ++i) {
      if (!condition[i]) continue;
      copy_elements(y, x + (o * p.axis_dim + i) * p.inner, p.inner);
      y += p.inner;
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_compress(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> condition_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kBool));
  if (condition_dims.size() != 1) {
    return invalid_node(context, "condition " + shape_to_string(condition_dims) + " must be 1-D");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  CompressParams params;
  params.condition_count = condition_dims[0];
  std::vector<int64_t> expected;
  if (context.node.has_attribute("axis")) {
    const int64_t rank = static_cast<int64_t>(x_dims.size());
    GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
    const size_t a = static_cast<size_t>(axis);
    params.outer = product(x_dims, 0, a);
    params.axis_dim = x_dims[a];
    params.inner = product(x_dims, a + 1, x_dims.size());
    expected = x_dims;
    if (y_dims.size() == x_dims.size()) expected[a] = y_dims[a];
    params.kept = expected[a];
  } else {
    params.outer = 1;
    params.axis_dim = product(x_dims);
    params.inner = 1;
    expected = {y_dims.size() == 1 ? y_dims[0] : 0};
    params.kept = expected[0];
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, expected));
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &compress_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_compress_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Compress", copy_types(), &prepare_compress});
}

}  // namespace ge::reference_kernels::tensor
