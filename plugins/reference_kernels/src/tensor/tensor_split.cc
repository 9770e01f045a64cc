// Split: cuts the input along `axis` into the outputs. The part sizes come from the
// output descs, which shape inference derived from the `split` attribute (opsets < 13)
// or input (opset 13+), from `num_outputs` (opset 18: parts of ceil(dim / num_outputs),
// the last smaller) or from equal parts; prepare checks that they tile the axis and
// match `num_outputs` or a constant `split`, and a runtime `split` is checked at
// launch. For each index of the axes before `axis`, each output takes one contiguous
// chunk.

#include <optional>
#include <string>
#include <vector>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct SplitParams {
  int64_t outer = 0;                    // product of the dims before axis
  std::vector<int64_t> chunk_elements;  // per output: its part for one outer index
  std::vector<int64_t> parts;           // per output: its extent along axis
  bool split_from_input = false;        // a runtime `split` input (input 1) to check
  bool split64 = true;
};

// A runtime `split` must hold the prepared part sizes.
int check_split_input(const SplitParams& p, const KernelArgs& args) {
  if (!p.split_from_input) return kKernelOk;
  if (args.inputs[1] == nullptr) return kKernelMissingAddress;
  const IntList split{args.inputs[1], p.split64, static_cast<int64_t>(p.parts.size())};
  for (size_t i = 0; i < p.parts.size(); ++i) {
    if (split[static_cast<int64_t>(i)] != p.parts[i]) {
      return kernel_error(kKernelRuntimeSizeMismatch, "split[" + std::to_string(i) + "] = " +
                                                          std::to_string(split[static_cast<int64_t>(i)]) +
                                                          " but output " + std::to_string(i) + " has " +
                                                          std::to_string(p.parts[i]));
    }
  }
  return kKernelOk;
}

template <typename T>
int split_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SplitParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  if (const int code = check_split_input(p, args); code != kKernelOk) return code;
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

std::string list_to_string(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// The part sizes the outputs carry must be the ones `split` or `num_outputs` ask for.
Status check_parts(const KernelContext& context, SplitParams& params, int64_t dim) {
  const bool split_given = has_input(context, 1);
  const bool num_outputs_given = context.opset >= 18 && context.node.has_attribute("num_outputs");
  if (split_given && num_outputs_given) {
    return invalid_node(context, "the input 'split' and the attribute 'num_outputs' are both given (give one)");
  }
  const auto outputs = static_cast<int64_t>(params.parts.size());
  if (num_outputs_given) {
    GE_ASSIGN_OR_RETURN(int64_t num_outputs, int_attribute(context, "num_outputs", 0));
    if (num_outputs < 1) return invalid_attribute(context, "num_outputs", "must be at least 1");
    if (num_outputs != outputs) {
      return invalid_attribute(context, "num_outputs",
                               "= " + std::to_string(num_outputs) + " but the node has " +
                                   std::to_string(outputs) + " outputs");
    }
    // ONNX: parts of ceil(dim / num_outputs); the last takes what is left.
    const int64_t chunk = dim % num_outputs == 0 ? dim / num_outputs : dim / num_outputs + 1;
    std::vector<int64_t> expected(static_cast<size_t>(num_outputs), chunk);
    expected.back() = dim - chunk * (num_outputs - 1);
    if (expected.back() < 0) {
      return invalid_attribute(context, "num_outputs",
                               "= " + std::to_string(num_outputs) + " cannot split an axis of " +
                                   std::to_string(dim) + " into parts of " + std::to_string(chunk) +
                                   " (the last part would be " + std::to_string(expected.back()) + ")");
    }
    if (expected != params.parts) {
      return invalid_node(context, "num_outputs = " + std::to_string(num_outputs) + " gives parts " +
                                       list_to_string(expected) + " but the outputs have " +
                                       list_to_string(params.parts));
    }
    return Status::ok();
  }
  if (!split_given) return Status::ok();
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "split"));
  GE_ASSIGN_OR_RETURN(int64_t entries, input_element_count(context, 1));
  if (entries != outputs) {
    return invalid_node(context, "input 'split' holds " + std::to_string(entries) + " values for " +
                                     std::to_string(outputs) + " outputs");
  }
  if (std::optional<std::vector<int64_t>> split = constant_ints(context, 1)) {
    if (*split != params.parts) {
      return invalid_node(context, "input 'split' = " + list_to_string(*split) + " but the outputs have " +
                                       list_to_string(params.parts));
    }
    return Status::ok();
  }
  params.split_from_input = true;
  params.split64 = input_dtype(context, 1) == DataType::kInt64;
  return Status::ok();
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
    params.parts.push_back(y_dims[axis]);
  }
  if (covered != x_dims[axis]) {
    return invalid_node(context, "the outputs cover " + std::to_string(covered) + " of the " +
                                     std::to_string(x_dims[axis]) + " elements of axis " + std::to_string(axis));
  }
  GE_RETURN_IF_ERROR(check_parts(context, params, x_dims[axis]));
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &split_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_split_kernels(std::vector<OpKernel>& table) { table.push_back({"Split", copy_types(), &prepare_split}); }

}  // namespace ge::reference_kernels::tensor
