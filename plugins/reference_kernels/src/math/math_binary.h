#pragma once
// The broadcasting engine every two-input elementwise op shares (Add ... Div, Pow, Mod,
// comparisons, logic, bit ops, PRelu, and the folds of Sum/Mean/Min/Max): numpy
// multidirectional broadcasting through a StridedLoop, and the legacy (opset < 7)
// `broadcast`/`axis` attributes. An op is a struct with
//   template <typename A, typename B> static auto apply(A a, B b);
// over the compute types (float for float16/bfloat16); the kernel converts the result to
// the output type. An op that sets `static constexpr bool kIntegerDivision = true` fails
// the launch on an integer zero divisor.

#include <type_traits>
#include <utility>
#include <vector>

#include "common/strided_loop.h"
#include "math/math_types.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {

/// What a two-input kernel needs at launch.
struct BinaryParams {
  StridedLoop loop;        ///< operand 0 is A, operand 1 is B
  int64_t b_elements = 0;  ///< for the integer zero-divisor check
};

template <typename Op>
constexpr bool is_integer_division_v = requires { Op::kIntegerDivision; };

/// y = Op::apply(a, b) over `loop`. `y` may be `a` or `b` when that operand is read
/// contiguously (each element is read before it is written).
template <typename TA, typename TB, typename TY, typename Op>
void run_binary(const StridedLoop& loop, const TA* a, const TB* b, TY* y) {
  const int64_t inner = loop.inner_size();
  const int64_t a_step = loop.inner_stride(0);
  const int64_t b_step = loop.inner_stride(1);
  auto apply = [](TA x, TB z) { return convert<TY>(Op::apply(load(x), load(z))); };
  for_each_run(loop, [&](int64_t row, int64_t a_offset, int64_t b_offset) {
    TY* out = y + row * inner;
    const TA* a_run = a + a_offset;
    const TB* b_run = b + b_offset;
    if constexpr (std::is_same_v<TA, Float16> && std::is_same_v<TB, Float16>) {
      float_compute::map_float16(
          inner, out, [](float x, float z) { return Op::apply(x, z); },
          [](auto value) { return convert<TY>(value); }, std::pair{a_run, a_step}, std::pair{b_run, b_step});
      return;
    }
    // The common stride patterns get their own loops so that they vectorise.
    if (a_step == 1 && b_step == 1) {
      for (int64_t i = 0; i < inner; ++i) out[i] = apply(a_run[i], b_run[i]);
    } else if (a_step == 1 && b_step == 0) {
      const TB b_value = *b_run;
      for (int64_t i = 0; i < inner; ++i) out[i] = apply(a_run[i], b_value);
    } else if (a_step == 0 && b_step == 1) {
      const TA a_value = *a_run;
      for (int64_t i = 0; i < inner; ++i) out[i] = apply(a_value, b_run[i]);
    } else {
      for (int64_t i = 0; i < inner; ++i) out[i] = apply(a_run[i * a_step], b_run[i * b_step]);
    }
  });
}

template <typename TA, typename TB, typename TY, typename Op>
int binary_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const BinaryParams*>(args.params);
  const auto* a = static_cast<const TA*>(args.inputs[0]);
  const auto* b = static_cast<const TB*>(args.inputs[1]);
  auto* y = static_cast<TY*>(args.outputs[0]);
  if (a == nullptr || b == nullptr || y == nullptr) return kKernelMissingAddress;
  if constexpr (is_integer_division_v<Op> && std::is_integral_v<TB>) {
    if (!p.loop.empty) {
      for (int64_t i = 0; i < p.b_elements; ++i) {
        if (b[i] == TB(0)) return kKernelIntegerDivisionByZero;
      }
    }
  }
  run_binary<TA, TB, TY, Op>(p.loop, a, b, y);
  return kKernelOk;
}

/// A loop over `y_dims` reading operands of `a_dims` and `b_dims` (each broadcast to
/// y_dims); kUnsupported when it does not merge below kMaxLoopRank axes.
Result<StridedLoop> broadcast_loop(const KernelContext& context, const std::vector<int64_t>& y_dims,
                                   const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims);

/// The loop of y = f(input 0, input 1): numpy broadcasting, or at opset < 7 the legacy
/// `broadcast`/`axis` attributes. Checks that output 0 has `y_dtype` and the broadcast
/// shape.
Result<BinaryParams> prepare_binary_params(const KernelContext& context, DataType y_dtype);

/// y = Op(a, b) with a, b and y of one dtype from `List`.
template <typename Op, typename List>
Result<PreparedKernel> prepare_same_type_binary(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(BinaryParams params, prepare_binary_params(context, dtype));
  KernelFunction function =
      select_kernel(dtype, List{}, []<typename T>() -> KernelFunction { return &binary_kernel<T, T, T, Op>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(List{}));
  return make_kernel(context, function, std::move(params));
}

/// bool y = Op(a, b) with a and b of one dtype from `List`.
template <typename Op, typename List>
Result<PreparedKernel> prepare_predicate_binary(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 1, dtype));
  GE_ASSIGN_OR_RETURN(BinaryParams params, prepare_binary_params(context, DataType::kBool));
  KernelFunction function =
      select_kernel(dtype, List{}, []<typename T>() -> KernelFunction { return &binary_kernel<T, T, bool, Op>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(List{}));
  return make_kernel(context, function, std::move(params));
}

}  // namespace ge::reference_kernels::math
