// PRelu: y = x < 0 ? slope * x : x for float16/bfloat16/float/double and (opset 16)
// int32/int64/uint32/uint64. From opset 7 the slope broadcasts to X numpy-style
// (unidirectionally); opset 6 spells a per-channel slope as a 1-D tensor of X's channel
// count (axis 1), as PyTorch exports it.

#include <type_traits>

#include "ge/tensor_desc.h"
#include "math/math_binary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

using PReluTypes = Concat<FloatingTypes, TypeList<int32_t, int64_t, uint32_t, uint64_t>>;

struct PReluOp {
  template <typename T>
  static T apply(T x, T slope) {
    return x < T(0) ? wrapping_mul(slope, x) : x;
  }
};

Result<PreparedKernel> prepare_prelu(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> slope_dims, input_dims(context, 1));
  BinaryParams params;
  params.b_elements = product(slope_dims);
  if (context.opset < 7) {
    if (params.b_elements == 1) {
      slope_dims.clear();
    } else if (slope_dims.size() == 1 && x_dims.size() >= 2 && slope_dims[0] == x_dims[1]) {
      std::vector<int64_t> aligned(x_dims.size() - 1, 1);
      aligned[0] = slope_dims[0];
      slope_dims = aligned;
    }
  }
  std::optional<std::vector<int64_t>> y_dims = broadcast_shapes(x_dims, slope_dims);
  if (!y_dims || *y_dims != x_dims) {
    return invalid_node(context, "slope shape " + shape_to_string(slope_dims) + " does not broadcast to X shape " +
                                     shape_to_string(x_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  GE_ASSIGN_OR_RETURN(params.loop, broadcast_loop(context, x_dims, x_dims, slope_dims));
  KernelFunction function = select_kernel(
      dtype, PReluTypes{}, []<typename T>() -> KernelFunction { return &binary_kernel<T, T, T, PReluOp>; });
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_prelu_kernels(std::vector<OpKernel>& table) {
  table.push_back({"PRelu", data_types(PReluTypes{}), &prepare_prelu});
}

}  // namespace ge::reference_kernels::math
