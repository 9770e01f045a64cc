// Reshape, Flatten, Identity, Squeeze and Unsqueeze: the output desc already carries the
// new shape (shape inference resolved 0, -1, allowzero and the axes, attribute or input),
// so the kernel is a plain copy — a byte copy, or element-wise assignment for strings.
// prepare checks that the output shape is the one the op defines for the input.

#include <cstring>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels {
namespace {

struct CopyParams {
  size_t bytes = 0;     // fixed-size dtypes
  int64_t strings = 0;  // string dtype: element count
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

int copy_string_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CopyParams*>(args.params);
  if (p.strings == 0) return kKernelOk;
  const auto* x = static_cast<const std::string*>(args.inputs[0]);
  auto* y = static_cast<std::string*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if (x != y) tensor::copy_elements(y, x, p.strings);
  return kKernelOk;
}

Result<PreparedKernel> make_copy(const KernelContext& context, const std::vector<int64_t>& x_dims,
                                 const std::vector<int64_t>& y_dims) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  if (dtype == DataType::kString) {
    return make_kernel(context, &copy_string_kernel, CopyParams{0, product(x_dims)}, 0, "string");
  }
  if (element_size(dtype) == 0) return unsupported_dtype(context, dtype, tensor::copy_types());
  CopyParams params{static_cast<size_t>(product(x_dims)) * element_size(dtype), 0};
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

std::vector<int64_t> without_ones(const std::vector<int64_t>& dims) {
  std::vector<int64_t> kept;
  for (int64_t dim : dims) {
    if (dim != 1) kept.push_back(dim);
  }
  return kept;
}

// Squeeze drops unit axes and Unsqueeze inserts them: either way the output has the
// input's non-unit dims in order, and the output rank moves the right way.
Result<PreparedKernel> prepare_squeeze_or_unsqueeze(const KernelContext& context, bool squeeze) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  const bool rank_ok = squeeze ? y_dims.size() <= x_dims.size() : y_dims.size() >= x_dims.size();
  if (!rank_ok || without_ones(x_dims) != without_ones(y_dims)) {
    return invalid_node(context, "output shape " + shape_to_string(y_dims) + " is not input " +
                                     shape_to_string(x_dims) + (squeeze ? " without" : " with added") + " unit axes");
  }
  return make_copy(context, x_dims, y_dims);
}

Result<PreparedKernel> prepare_squeeze(const KernelContext& context) {
  return prepare_squeeze_or_unsqueeze(context, /*squeeze=*/true);
}

Result<PreparedKernel> prepare_unsqueeze(const KernelContext& context) {
  return prepare_squeeze_or_unsqueeze(context, /*squeeze=*/false);
}

}  // namespace

void add_copy_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Reshape", tensor::copy_types(), &prepare_reshape});
  table.push_back({"Flatten", tensor::copy_types(), &prepare_flatten});
  table.push_back({"Identity", tensor::copy_types(), &prepare_identity});
  table.push_back({"Squeeze", tensor::copy_types(), &prepare_squeeze});
  table.push_back({"Unsqueeze", tensor::copy_types(), &prepare_unsqueeze});
}

}  // namespace ge::reference_kernels
