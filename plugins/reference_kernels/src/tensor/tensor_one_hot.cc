// OneHot (opsets 9, 11): the output is `values[0]` (off) everywhere except where the
// new `axis` coordinate equals the index, which gets `values[1]` (on). Indices and
// depth may be any numeric dtype (floats truncate); negative indices count from
// `depth` (opset 11), indices out of range leave their row all off.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct OneHotParams {
  int64_t outer = 0, depth = 0, inner = 0;  // output = [outer, depth, inner]
  DataType index_dtype = DataType::kInt64;
  DataType depth_dtype = DataType::kInt64;
};

template <typename T>
int one_hot_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const OneHotParams*>(args.params);
  const void* indices = args.inputs[0];
  const void* depth = args.inputs[1];
  const auto* values = static_cast<const T*>(args.inputs[2]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (depth == nullptr || values == nullptr) return kKernelMissingAddress;
  if (read_as_int64(depth, p.depth_dtype, 0) != p.depth) return kKernelRuntimeShapeMismatch;
  const int64_t count = p.outer * p.depth * p.inner;
  if (count == 0) return kKernelOk;
  if (indices == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < count; ++i) y[i] = values[0];
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      int64_t index = read_as_int64(indices, p.index_dtype, o * p.inner + i);
      if (index < 0) index += p.depth;
      if (index >= 0 && index < p.depth) y[(o * p.depth + index) * p.inner + i] = values[1];
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_one_hot(const KernelContext& context) {
  const DataType index_dtype = input_dtype(context, 0);
  const DataType depth_dtype = input_dtype(context, 1);
  for (size_t i = 0; i < 2; ++i) {
    const DataType dtype = input_dtype(context, i);
    if (!is_readable_as_int64(dtype) || dtype == DataType::kBool) {
      return unsupported_feature(context, "input " + std::to_string(i) + " of dtype " +
                                              std::string(data_type_name(dtype)) + " (numeric dtypes only)");
    }
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(int64_t depth_count, input_element_count(context, 1));
  GE_ASSIGN_OR_RETURN(int64_t value_count, input_element_count(context, 2));
  if (depth_count != 1) return invalid_node(context, "input 1 (depth) must hold one element");
  if (value_count != 2) return invalid_node(context, "input 2 (values) must hold [off_value, on_value]");
  const DataType dtype = input_dtype(context, 2);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(index_dims.size()) + 1;
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", -1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  if (static_cast<int64_t>(y_dims.size()) != rank) {
    return invalid_node(context, "output " + shape_to_string(y_dims) + " must have rank " + std::to_string(rank));
  }
  std::vector<int64_t> expected = index_dims;
  expected.insert(expected.begin() + axis, y_dims[axis]);
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, expected));
  const size_t a = static_cast<size_t>(axis);
  OneHotParams params{product(index_dims, 0, a), y_dims[a], product(index_dims, a, index_dims.size()), index_dtype,
                      depth_dtype};
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &one_hot_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_one_hot_kernels(std::vector<OpKernel>& table) { table.push_back({"OneHot", {}, &prepare_one_hot}); }

}  // namespace ge::reference_kernels::tensor
