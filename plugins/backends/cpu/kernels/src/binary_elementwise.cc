// Add, Sub, Mul, Div (opsets 1-14): numpy multidirectional broadcasting (opset >= 7) and
// the legacy `broadcast`/`axis` attributes (opsets 1 and 6). Integer Div truncates toward
// zero as ONNX (and C++) does; a zero divisor fails the launch.

#include <string>
#include <type_traits>

#include "op_kernels.h"
#include "strided_loop.h"

namespace ge::cpu_kernels {
namespace {

struct BinaryParams {
  StridedLoop loop;        // operand 0 is A, operand 1 is B
  int64_t b_elements = 0;  // for the integer-division zero check
};

struct AddOp {
  template <typename T>
  static T apply(T a, T b) {
    return wrapping_add(a, b);
  }
};
struct SubOp {
  template <typename T>
  static T apply(T a, T b) {
    return wrapping_sub(a, b);
  }
};
struct MulOp {
  template <typename T>
  static T apply(T a, T b) {
    return wrapping_mul(a, b);
  }
};
struct DivOp {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      // The one overflowing quotient, lowest / -1, wraps like the other integer ops.
      if (b == T(-1)) return wrapping_sub(T(0), a);
    }
    return static_cast<T>(a / b);
  }
};

template <typename T, typename Op>
int binary_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const BinaryParams*>(args.params);
  const auto* a = static_cast<const T*>(args.inputs[0]);
  const auto* b = static_cast<const T*>(args.inputs[1]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (a == nullptr || b == nullptr || y == nullptr) return kKernelMissingAddress;
  if constexpr (std::is_integral_v<T> && std::is_same_v<Op, DivOp>) {
    if (!p.loop.empty) {
      for (int64_t i = 0; i < p.b_elements; ++i) {
        if (b[i] == T(0)) return kKernelIntegerDivisionByZero;
      }
    }
  }
  const int64_t inner = p.loop.inner_size();
  const int64_t a_step = p.loop.inner_stride(0);
  const int64_t b_step = p.loop.inner_stride(1);
  for_each_run(p.loop, [&](int64_t row, int64_t a_offset, int64_t b_offset) {
    T* out = y + row * inner;
    const T* a_run = a + a_offset;
    const T* b_run = b + b_offset;
    // The common stride patterns get their own loops so that they vectorise.
    if (a_step == 1 && b_step == 1) {
      for (int64_t i = 0; i < inner; ++i) out[i] = Op::apply(a_run[i], b_run[i]);
    } else if (a_step == 1 && b_step == 0) {
      const T b_value = *b_run;
      for (int64_t i = 0; i < inner; ++i) out[i] = Op::apply(a_run[i], b_value);
    } else if (a_step == 0 && b_step == 1) {
      const T a_value = *a_run;
      for (int64_t i = 0; i < inner; ++i) out[i] = Op::apply(a_value, b_run[i]);
    } else {
      for (int64_t i = 0; i < inner; ++i) out[i] = Op::apply(a_run[i * a_step], b_run[i * b_step]);
    }
  });
  return kKernelOk;
}

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

template <typename Op>
Result<PreparedKernel> prepare_binary(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
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
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, *y_dims));
  std::optional<StridedLoop> loop = make_strided_loop(
      *y_dims, {broadcast_strides(a_dims, y_dims->size()), broadcast_strides(b_dims, y_dims->size())});
  if (!loop)
    return unsupported_feature(context, "broadcast of rank " + std::to_string(y_dims->size()) +
                                            " that does not merge below " + std::to_string(kMaxLoopRank) + " axes");
  params.loop = *loop;
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &binary_kernel<T, Op>; });
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_binary_elementwise_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Add", data_types(NumericTypes{}), &prepare_binary<AddOp>});
  table.push_back({"Sub", data_types(NumericTypes{}), &prepare_binary<SubOp>});
  table.push_back({"Mul", data_types(NumericTypes{}), &prepare_binary<MulOp>});
  table.push_back({"Div", data_types(NumericTypes{}), &prepare_binary<DivOp>});
}

}  // namespace ge::cpu_kernels
