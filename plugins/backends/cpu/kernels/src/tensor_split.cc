// Split: cuts the input along `axis` into the outputs. The part sizes come from the
// output descs, which shape inference derived from the `split` attribute (opsets < 13)
// or input (opset 13), or from equal parts; prepare checks that they tile the axis.
// For each index of the axes before `axis`, each output takes one contiguous chunk.

#include <string>

#include "tensor_common.h"
#include "tensor_kernels.h"

namespace ge::cpu_kernels::tensor {
namespace {

struct SplitParams {
  int64_t outer = 0;                    // product of the dims before axis
  std::vector<int64_t> chunk_elements;  // per output: its part for one outer index
};

template <typename T>
int split_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SplitParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  int64_t total = 0;
  for (size_t i = 0; i < p.chunk_elements.size(); ++i) {
    if (p.chunk_elements[i] > 0 && args.outputs[i] == nullptr) return kKernelMissingAddress;
    total += p.chunk_elements[i];
  }
  if (total * p.outer == 0) return kKernelOk;
  if (x == nullptr) return kKernelMissingAddress;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (size_t i = 0; i < p.chunk_elements.size(); ++i) {
      const int64_t count = p.chunk_elements[i];
      copy_elements(static_cast<T*>(args.outputs[i]) + o * count, x, count);
      x += count;
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_split(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  const int64_t inner = product(x_dims, static_cast<size_t>(axis) + 1, x_dims.size());
  SplitParams params;
  params.outer = product(x_dims, 0, static_cast<size_t>(axis));
  int64_t covered = 0;
  for (size_t i = 0; i < context.node.output_count(); ++i) {
    if (!has_output(context, i)) {
      return unsupported_feature(context, "an omitted output " + std::to_string(i) + " (its size is unknown)");
    }
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, i));
    std::vector<int64_t> expected = x_dims;
    if (y_dims.size() == x_dims.size()) expected[axis] = y_dims[axis];
    GE_RETURN_IF_ERROR(check_output(context, i, dtype, expected));
    covered += y_dims[axis];
    params.chunk_elements.push_back(y_dims[axis] * inner);
  }
  if (covered != x_dims[axis]) {
    return invalid_node(context, "the outputs cover " + std::to_string(covered) + " of the " +
                                     std::to_string(x_dims[axis]) + " elements of axis " + std::to_string(axis));
  }
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &split_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_split_kernels(std::vector<OpKernel>& table) { table.push_back({"Split", copy_types(), &prepare_split}); }

}  // namespace ge::cpu_kernels::tensor
