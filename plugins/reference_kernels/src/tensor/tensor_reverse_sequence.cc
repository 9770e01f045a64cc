// ReverseSequence: for each batch entry b, reverses the first sequence_lens[b] steps
// along the time axis and copies the rest. time_axis/batch_axis are 0 and 1 in either
// order; sequence_lens (int64, one per batch entry) is read at launch.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct ReverseSequenceParams {
  int64_t steps = 0, batch = 0, inner = 0;
  int64_t step_stride = 0, batch_stride = 0;  // elements
};

template <typename T>
int reverse_sequence_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ReverseSequenceParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* lengths = static_cast<const int64_t*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.batch > 0 && lengths == nullptr) return kKernelMissingAddress;
  for (int64_t b = 0; b < p.batch; ++b) {
    if (lengths[b] < 0 || lengths[b] > p.steps) return kKernelInvalidRuntimeArgument;
  }
  if (p.steps * p.batch * p.inner == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t t = 0; t < p.steps; ++t) {
      const int64_t source = t < lengths[b] ? lengths[b] - 1 - t : t;
      copy_elements(y + b * p.batch_stride + t * p.step_stride, x + b * p.batch_stride + source * p.step_stride,
                    p.inner);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_reverse_sequence(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 2) return invalid_node(context, "input " + shape_to_string(x_dims) + " must have rank >= 2");
  GE_ASSIGN_OR_RETURN(int64_t time_axis, int_attribute(context, "time_axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t batch_axis, int_attribute(context, "batch_axis", 1));
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0))) {
    return invalid_attribute(context, "time_axis", "and 'batch_axis' must be 0 and 1 in some order");
  }
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kInt64));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> length_dims, input_dims(context, 1));
  if (length_dims != std::vector<int64_t>{x_dims[batch_axis]}) {
    return invalid_node(context, "sequence_lens " + shape_to_string(length_dims) + " must be [" +
                                     std::to_string(x_dims[batch_axis]) + "]");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  ReverseSequenceParams params;
  params.steps = x_dims[time_axis];
  params.batch = x_dims[batch_axis];
  params.inner = product(x_dims, 2, x_dims.size());
  params.step_stride = time_axis == 0 ? params.batch * params.inner : params.inner;
  params.batch_stride = batch_axis == 0 ? params.steps * params.inner : params.inner;
  KernelFunction function =
      select_copy(dtype, []<typename T>() -> KernelFunction { return &reverse_sequence_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_reverse_sequence_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ReverseSequence", copy_types(), &prepare_reverse_sequence});
}

}  // namespace ge::reference_kernels::tensor
