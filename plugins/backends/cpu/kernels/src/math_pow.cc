// Pow: base types float16/bfloat16/float/double/int32/int64, exponent any numeric type
// (opset 12+; before that both are one floating type), output the base type, numpy
// broadcasting (legacy attributes below opset 7). Integer powers are exact (wrapping,
// by repeated squaring; a negative exponent gives the truncated 1 / base^-e); every
// other mix computes pow in double and converts to the base type (truncating for ints).

#include <cmath>
#include <type_traits>

#include "math_binary.h"
#include "math_ops.h"

namespace ge::cpu_kernels::math {
namespace {

using PowBaseTypes = Concat<FloatingTypes, Types<int32_t, int64_t>>;

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

Result<PreparedKernel> prepare_pow(const KernelContext& context) {
  const DataType base = input_dtype(context, 0);
  const DataType exponent = input_dtype(context, 1);
  GE_ASSIGN_OR_RETURN(BinaryParams params, prepare_binary_params(context, base));
  KernelFunction function = select(base, PowBaseTypes{}, [&]<typename A>() -> KernelFunction {
    return select(exponent, NumericTypes{},
                  []<typename B>() -> KernelFunction { return &binary_kernel<A, B, A, PowOp>; });
  });
  if (function == nullptr) {
    return unsupported_feature(context, "exponent dtype " + std::string(data_type_name(exponent)) + " (supported: " +
                                            data_type_list(dtypes(NumericTypes{})) + ")");
  }
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_pow_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Pow", dtypes(PowBaseTypes{}), &prepare_pow});
}

}  // namespace ge::cpu_kernels::math
