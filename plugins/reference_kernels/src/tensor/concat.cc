// Concat (opsets 1-13): joins inputs along `axis` (default 1 in opset 1, required
// later; negative from opset 11). For each index of the axes before `axis`, each input
// contributes one contiguous chunk, copied in input order: memcpy for fixed-size dtypes,
// element-wise assignment for strings.

#include <cstring>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels {
namespace {

struct ConcatParams {
  int64_t outer = 0;                    // product of the dims before axis
  std::vector<size_t> chunk_bytes;      // per input: its slice for one outer index
  std::vector<int64_t> chunk_elements;  // the same in elements (strings)
};

int concat_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ConcatParams*>(args.params);
  auto* y = static_cast<unsigned char*>(args.outputs[0]);
  size_t total = 0;
  for (size_t i = 0; i < p.chunk_bytes.size(); ++i) {
    if (p.chunk_bytes[i] > 0 && args.inputs[i] == nullptr) return kKernelMissingAddress;
    total += p.chunk_bytes[i];
  }
  if (total > 0 && y == nullptr) return kKernelMissingAddress;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (size_t i = 0; i < p.chunk_bytes.size(); ++i) {
      const size_t bytes = p.chunk_bytes[i];
      if (bytes == 0) continue;
      std::memcpy(y, static_cast<const unsigned char*>(args.inputs[i]) + static_cast<size_t>(o) * bytes, bytes);
      y += bytes;
    }
  }
  return kKernelOk;
}

int concat_string_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ConcatParams*>(args.params);
  auto* y = static_cast<std::string*>(args.outputs[0]);
  int64_t total = 0;
  for (size_t i = 0; i < p.chunk_elements.size(); ++i) {
    if (p.chunk_elements[i] > 0 && args.inputs[i] == nullptr) return kKernelMissingAddress;
    total += p.chunk_elements[i];
  }
  if (total > 0 && y == nullptr) return kKernelMissingAddress;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (size_t i = 0; i < p.chunk_elements.size(); ++i) {
      const int64_t count = p.chunk_elements[i];
      tensor::copy_elements(y, static_cast<const std::string*>(args.inputs[i]) + o * count, count);
      y += count;
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_concat(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> first_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(first_dims.size());
  if (context.opset >= 4 && !context.node.has_attribute("axis")) {
    return invalid_attribute(context, "axis", "is required");
  }
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  std::vector<int64_t> y_dims = first_dims;
  y_dims[axis] = 0;
  const int64_t inner = product(first_dims, static_cast<size_t>(axis) + 1, first_dims.size());
  ConcatParams params;
  params.outer = product(first_dims, 0, static_cast<size_t>(axis));
  for (size_t i = 0; i < context.node.input_count(); ++i) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, i, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    bool matches = static_cast<int64_t>(dims.size()) == rank;
    for (int64_t d = 0; matches && d < rank; ++d) matches = d == axis || dims[d] == first_dims[d];
    if (!matches) {
      return invalid_node(context, "input " + std::to_string(i) + " has shape " + shape_to_string(dims) +
                                       ", which differs from input 0 " + shape_to_string(first_dims) +
                                       " outside axis " + std::to_string(axis));
    }
    y_dims[axis] += dims[axis];
    params.chunk_bytes.push_back(static_cast<size_t>(dims[axis] * inner) * element_size(dtype));
    params.chunk_elements.push_back(dims[axis] * inner);
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  if (dtype == DataType::kString) return make_kernel(context, &concat_string_kernel, std::move(params), 0, "string");
  return make_kernel(context, &concat_kernel, std::move(params));
}

}  // namespace

void add_concat_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Concat", tensor::copy_types(), &prepare_concat});
}

}  // namespace ge::reference_kernels
