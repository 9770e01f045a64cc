// Reshape, Flatten and Identity: the output desc already carries the new shape (shape
// inference resolved 0, -1 and allowzero), so the kernel is a byte copy. prepare checks
// that the output shape is the one the op defines for the input.

#include <cstring>
#include <string>

#include "op_kernels.h"

namespace ge::cpu_kernels {
namespace {

struct CopyParams {
  size_t bytes = 0;
};

int copy_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CopyParams*>(args.params);
  if (p.bytes == 0) return kKernelOk;
  const void* x = args.inputs[0];
  void* y = args.outputs[0];
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if (x != y) std::memcpy(y, x, p.bytes);  // the same address: planned in place
  return kKernelOk;
}

Result<PreparedKernel> make_copy(const KernelContext& context, const std::vector<int64_t>& x_dims,
                                 const std::vector<int64_t>& y_dims) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  CopyParams params{static_cast<size_t>(product(x_dims)) * element_size(dtype)};
  return make_kernel(context, &copy_kernel, params);
}

Result<PreparedKernel> prepare_reshape(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  if (product(x_dims) != product(y_dims)) {
    return invalid_node(context, "output shape " + shape_to_string(y_dims) + " does not hold the " +
                                     std::to_string(product(x_dims)) + " elements of input " + shape_to_string(x_dims));
  }
  return make_copy(context, x_dims, y_dims);
}

Result<PreparedKernel> prepare_flatten(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank, /*allow_rank=*/true));
  const size_t split = static_cast<size_t>(axis);
  return make_copy(context, x_dims, {product(x_dims, 0, split), product(x_dims, split, x_dims.size())});
}

Result<PreparedKernel> prepare_identity(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  return make_copy(context, x_dims, x_dims);
}

}  // namespace

void add_copy_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Reshape", all_fixed_size_types(), &prepare_reshape});
  table.push_back({"Flatten", all_fixed_size_types(), &prepare_flatten});
  table.push_back({"Identity", all_fixed_size_types(), &prepare_identity});
}

}  // namespace ge::cpu_kernels
