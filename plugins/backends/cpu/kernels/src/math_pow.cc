// Pow: base types float16/bfloat16/float/double/int32/int64, exponent any numeric type
// (opset 12+; before that both are one floating type), output the base type, numpy
// broadcasting (legacy attributes below opset 7). Integer powers are exact (wrapping,
// by repeated squaring; a negative exponent gives the truncated 1 / base^-e); every
// other mix computes pow in double and converts to the base type (truncating for ints).

#include <cmath>
#include <optional>
#include <type_traits>

#include "math_binary.h"
#include "math_ops.h"

namespace ge::cpu_kernels::math {
namespace {

using PowBaseTypes = Concat<FloatingTypes, TypeList<int32_t, int64_t>>;

template <typename A, typename B>
A integer_pow(A base, B exponent) {
  if constexpr (std::is_signed_v<B>) {
    if (exponent < 0) {
      if (base == A(1)) return A(1);
      if constexpr (std::is_signed_v<A>) {
        if (base == A(-1)) return (exponent % 2 == 0) ? A(1) : A(-1);
      }
      return A(0);
    }
  }
  A result = A(1);
  A factor = base;
  for (auto e = exponent; e > 0; e /= 2) {
    if (e % 2 != 0) result = wrapping_mul(result, factor);
    factor = wrapping_mul(factor, factor);
  }
  return result;
}

struct PowOp {
  template <typename A, typename B>
  static auto apply(A a, B b) {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
      return integer_pow(a, b);
    } else {
      return std::pow(static_cast<double>(a), static_cast<double>(b));
    }
  }
};

/// x^2 as x * x: correctly rounded either way (a float's square is exact in double), so
/// the result equals std::pow's.
struct SquareParams {
  int64_t count = 0;
};

template <typename T>
int square_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SquareParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.count > 0 && (x == nullptr || y == nullptr)) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.count; ++i) y[i] = x[i] * x[i];
  return kKernelOk;
}

/// The kernel of a float or double base raised to a constant scalar 2 that does not
/// broadcast the base; null otherwise.
std::optional<PreparedKernel> prepare_square(const KernelContext& context, DataType base) {
  const Value* exponent = context.node.input_count() > 1 ? context.node.input(1) : nullptr;
  const Tensor* constant = exponent != nullptr ? exponent->constant() : nullptr;
  if (constant == nullptr || constant->element_count() != 1 || (base != DataType::kFloat32 && base != DataType::kFloat64)) {
    return std::nullopt;
  }
  double value = 0.0;
  switch (constant->dtype()) {
    case DataType::kFloat32: value = constant->data<float>()[0]; break;
    case DataType::kFloat64: value = constant->data<double>()[0]; break;
    case DataType::kInt32: value = constant->data<int32_t>()[0]; break;
    case DataType::kInt64: value = static_cast<double>(constant->data<int64_t>()[0]); break;
    default: return std::nullopt;
  }
  Result<std::vector<int64_t>> x_dims = input_dims(context, 0);
  Result<std::vector<int64_t>> y_dims = output_dims(context, 0);
  if (value != 2.0 || !x_dims.is_ok() || !y_dims.is_ok() || *x_dims != *y_dims) return std::nullopt;
  SquareParams params{element_count(*x_dims)};
  KernelFunction function = base == DataType::kFloat32 ? &square_kernel<float> : &square_kernel<double>;
  return make_kernel(context, function, params, 0, "square");
}

Result<PreparedKernel> prepare_pow(const KernelContext& context) {
  const DataType base = input_dtype(context, 0);
  const DataType exponent = input_dtype(context, 1);
  if (std::optional<PreparedKernel> square = prepare_square(context, base)) return *square;
  GE_ASSIGN_OR_RETURN(BinaryParams params, prepare_binary_params(context, base));
  KernelFunction function = select_kernel(base, PowBaseTypes{}, [&]<typename A>() -> KernelFunction {
    return select_kernel(exponent, NumericTypes{},
                         []<typename B>() -> KernelFunction { return &binary_kernel<A, B, A, PowOp>; });
  });
  if (function == nullptr) {
    return unsupported_feature(context, "exponent dtype " + std::string(data_type_name(exponent)) +
                                            " (supported: " + data_type_list(data_types(NumericTypes{})) + ")");
  }
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_pow_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Pow", data_types(PowBaseTypes{}), &prepare_pow});
}

}  // namespace ge::cpu_kernels::math
