// Pow: base types float16/bfloat16/float/double/int32/int64, exponent any numeric type
// (opset 12+; before that both are one floating type), output the base type, numpy
// broadcasting (legacy attributes below opset 7). Integer powers are exact (wrapping,
// by repeated squaring; a negative exponent gives the truncated 1 / base^-e); every
// other mix computes pow in double and converts to the base type (truncating for ints).

#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>

#include "common/float_compute.h"
#include "math/math_binary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
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

/// float16/bfloat16: squared in float, where the square of an 11- (8-) bit significand
/// is exact, then rounded once, so the result equals pow's in double rounded to the base
/// type. float16 widens and rounds a chunk at a time (core's vectorised conversions).
template <typename T>
requires float_compute::is_half_v<T>
int square_half_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SquareParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.count > 0 && (x == nullptr || y == nullptr)) return kKernelMissingAddress;
  if constexpr (std::is_same_v<T, Float16>) {
    float_compute::map_float16(
        p.count, y, [](float v) { return v * v; }, [](float v) { return float_compute::store<T>(v); },
        std::pair{x, int64_t{1}});
  } else {
    for (int64_t i = 0; i < p.count; ++i) {
      const float v = float_compute::load(x[i]);
      y[i] = float_compute::store<T>(v * v);
    }
  }
  return kKernelOk;
}

/// The constant scalar `tensor` as a double; nullopt for other dtypes.
std::optional<double> scalar_value(const Tensor& tensor) {
  switch (tensor.dtype()) {
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kInt32:
    case DataType::kInt64:
      return tensor.scalar_as_double(0);
    default:
      return std::nullopt;
  }
}

/// The kernel of a floating base raised to a constant scalar 2 that does not broadcast
/// the base; null otherwise.
std::optional<PreparedKernel> prepare_square(const KernelContext& context, DataType base) {
  const Value* exponent = context.node.input_count() > 1 ? context.node.input(1) : nullptr;
  const Tensor* constant = exponent != nullptr ? exponent->constant() : nullptr;
  if (constant == nullptr || constant->element_count() != 1 || !contains(FloatingTypes{}, base)) return std::nullopt;
  const std::optional<double> value = scalar_value(*constant);
  Result<std::vector<int64_t>> x_dims = input_dims(context, 0);
  Result<std::vector<int64_t>> y_dims = output_dims(context, 0);
  if (value != 2.0 || !x_dims.is_ok() || !y_dims.is_ok() || *x_dims != *y_dims) return std::nullopt;
  SquareParams params{element_count(*x_dims)};
  KernelFunction function = nullptr;
  switch (base) {
    case DataType::kFloat32:
      function = &square_kernel<float>;
      break;
    case DataType::kFloat64:
      function = &square_kernel<double>;
      break;
    case DataType::kFloat16:
      function = &square_half_kernel<Float16>;
      break;
    default:
      function = &square_half_kernel<BFloat16>;
      break;
  }
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

}  // namespace ge::reference_kernels::math
