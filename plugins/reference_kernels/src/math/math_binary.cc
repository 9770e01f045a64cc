#include "math/math_binary.h"

#include <string>

#include "ge/tensor_desc.h"

namespace ge::reference_kernels::math {
namespace {

// B's dims as the legacy (opset < 7) broadcast reads them: with `broadcast` = 1, B's
// dims line up with A's starting at `axis` (default: B is a suffix of A); with 0, the
// shapes must be equal.
Result<std::vector<int64_t>> legacy_b_dims(const KernelContext& context, const std::vector<int64_t>& a_dims,
                                           const std::vector<int64_t>& b_dims) {
  GE_ASSIGN_OR_RETURN(int64_t broadcast, int_attribute(context, "broadcast", 0));
  if (broadcast == 0) {
    if (a_dims != b_dims) {
      return invalid_attribute(
          context, "broadcast",
          "= 0 but the input shapes differ: " + shape_to_string(a_dims) + " and " + shape_to_string(b_dims));
    }
    return b_dims;
  }
  if (!context.node.has_attribute("axis")) return b_dims;
  const int64_t a_rank = static_cast<int64_t>(a_dims.size());
  const int64_t b_rank = static_cast<int64_t>(b_dims.size());
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, a_rank));
  if (axis + b_rank > a_rank) {
    return invalid_attribute(context, "axis",
                             "= " + std::to_string(axis_value) + " places B " + shape_to_string(b_dims) +
                                 " past the end of A " + shape_to_string(a_dims));
  }
  std::vector<int64_t> aligned(a_rank, 1);
  for (int64_t i = 0; i < b_rank; ++i) aligned[axis + i] = b_dims[i];
  return aligned;
}

}  // namespace

Result<StridedLoop> broadcast_loop(const KernelContext& context, const std::vector<int64_t>& y_dims,
                                   const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims) {
  std::optional<StridedLoop> loop =
      make_strided_loop(y_dims, {broadcast_strides(a_dims, y_dims.size()), broadcast_strides(b_dims, y_dims.size())});
  if (!loop) {
    return unsupported_feature(context, "broadcast of rank " + std::to_string(y_dims.size()) +
                                            " that does not merge below " + std::to_string(kMaxLoopRank) + " axes");
  }
  return *loop;
}

Result<BinaryParams> prepare_binary_params(const KernelContext& context, DataType y_dtype) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> a_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> b_dims, input_dims(context, 1));
  BinaryParams params;
  params.b_elements = product(b_dims);
  if (context.opset < 7) {
    GE_ASSIGN_OR_RETURN(b_dims, legacy_b_dims(context, a_dims, b_dims));
  }
  std::optional<std::vector<int64_t>> y_dims = broadcast_shapes(a_dims, b_dims);
  if (!y_dims) {
    return invalid_node(
        context, "input shapes " + shape_to_string(a_dims) + " and " + shape_to_string(b_dims) + " do not broadcast");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, y_dtype, *y_dims));
  GE_ASSIGN_OR_RETURN(params.loop, broadcast_loop(context, *y_dims, a_dims, b_dims));
  return params;
}

}  // namespace ge::reference_kernels::math
