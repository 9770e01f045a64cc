// MaxUnpool (opsets 9, 11): scatters X into a zero tensor at the flat positions I (as
// MaxPool's Indices give them: positions in the whole tensor, N and C included) of the
// inferred shape, per spatial axis (in - 1) * stride + kernel - pad_begin - pad_end.
// With the optional output_shape input (the output desc), the inferred tensor is placed
// at the start of every axis of that larger tensor, as the ONNX reference implementation
// (onnx/reference/ops/op_max_unpool.py) and the conformance data do. ONNX Runtime instead
// reads the indices as positions in the output_shape tensor (see onnx/onnx#2398); the two
// agree whenever output_shape is the inferred shape. An index outside the inferred tensor
// is reported at launch (kKernelIndexOutOfRange).
// The zero tensor is the runtime's: the kernel declares its output zeroed (atomic clean,
// ge::ZeroedMemory) and only scatters.

#include <algorithm>
#include <string>

#include "nn/nn_element.h"
#include "pooling/registration.h"

namespace ge::reference_kernels {
namespace {

struct MaxUnpoolParams {
  int64_t input_count = 0, inferred_count = 0, output_count = 0;
  // Set when output_shape differs from the inferred shape: both shapes' dims, to move an
  // index of the inferred tensor to the same multi-index of the output.
  std::vector<int64_t> inferred_dims, output_dims;
};

template <typename T>
int max_unpool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const MaxUnpoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* indices = static_cast<const int64_t*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || indices == nullptr || y == nullptr) return kKernelMissingAddress;
  // y holds zeros (ZeroedMemory: zero bytes are +0 in every floating type).
  for (int64_t i = 0; i < p.input_count; ++i) {
    int64_t index = indices[i];
    if (index < 0 || index >= p.inferred_count) return kKernelIndexOutOfRange;
    if (!p.inferred_dims.empty()) {
      int64_t remaining = index, stride = 1;
      index = 0;
      for (size_t d = p.inferred_dims.size(); d-- > 0;) {
        index += (remaining % p.inferred_dims[d]) * stride;
        remaining /= p.inferred_dims[d];
        stride *= p.output_dims[d];
      }
    }
    y[index] = x[i];
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_max_unpool(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() < 3) {
    return invalid_node(context, "input X must have rank >= 3 ([N, C, spatial...]), got " + shape_to_string(x_dims));
  }
  if (!has_input(context, 1)) return invalid_node(context, "input 'I' is required");
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kInt64));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> i_dims, input_dims(context, 1));
  if (i_dims != x_dims) {
    return invalid_node(context, "indices I " + shape_to_string(i_dims) + " must have the shape of X " +
                                     shape_to_string(x_dims));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size()) - 2;
  if (!context.node.has_attribute("kernel_shape")) return invalid_attribute(context, "kernel_shape", "is required");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ints_attribute(context, "kernel_shape", {}));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ints_attribute(context, "strides", std::vector<int64_t>(rank, 1)));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ints_attribute(context, "pads", std::vector<int64_t>(2 * rank, 0)));
  if (static_cast<int64_t>(kernel.size()) != rank || static_cast<int64_t>(strides.size()) != rank ||
      static_cast<int64_t>(pads.size()) != 2 * rank) {
    return invalid_node(context, "kernel_shape, strides and pads must have " + std::to_string(rank) + ", " +
                                     std::to_string(rank) + " and " + std::to_string(2 * rank) + " values");
  }
  std::vector<int64_t> inferred{x_dims[0], x_dims[1]};
  for (int64_t i = 0; i < rank; ++i) {
    inferred.push_back((x_dims[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[rank + i]);
    if (inferred.back() < 0) return invalid_node(context, "kernel_shape, strides and pads give a negative extent");
  }
  if (!has_input(context, 2)) GE_RETURN_IF_ERROR(check_output(context, 0, dtype, inferred));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  if (y_dims.size() != inferred.size()) {
    return invalid_node(context, "output " + shape_to_string(y_dims) + " must have the rank of X " +
                                     shape_to_string(x_dims));
  }
  for (size_t d = 0; d < y_dims.size(); ++d) {
    if (y_dims[d] < inferred[d]) {
      return invalid_node(context, "output_shape " + shape_to_string(y_dims) + " is smaller than the unpooled shape " +
                                       shape_to_string(inferred) + " the kernel, strides and pads give");
    }
  }
  MaxUnpoolParams p;
  p.input_count = product(x_dims);
  p.inferred_count = product(inferred);
  p.output_count = product(y_dims);
  if (y_dims != inferred) {
    p.inferred_dims = inferred;
    p.output_dims = y_dims;
  }
  KernelFunction function =
      select_kernel(dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &max_unpool_kernel<T>; });
  PreparedKernel prepared = make_kernel(context, function, std::move(p));
  prepared.zeroed.outputs = 1;  // Y: the runtime zeroes it before each launch
  return prepared;
}

}  // namespace

void add_nn_max_unpool_kernels(std::vector<OpKernel>& table) {
  table.push_back({"MaxUnpool", data_types(nn::FloatingTypes{}), &prepare_max_unpool});
}

}  // namespace ge::reference_kernels
