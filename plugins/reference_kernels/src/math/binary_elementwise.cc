// Add, Sub, Mul, Div (opsets 1-14) for every numeric dtype including float16/bfloat16
// (computed in float, rounded to nearest even): numpy multidirectional broadcasting
// (opset >= 7) and the legacy `broadcast`/`axis` attributes (opsets 1 and 6), through the
// math family's broadcasting engine. Integers wrap; integer Div truncates toward zero as
// ONNX (and C++) does, and a zero divisor fails the launch.

#include <type_traits>

#include "math/math_binary.h"

namespace ge::reference_kernels {
namespace {


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
  static constexpr bool kIntegerDivision = true;
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      // The one overflowing quotient, lowest / -1, wraps like the other integer ops.
      if (b == T(-1)) return wrapping_sub(T(0), a);
    }
    return static_cast<T>(a / b);
  }
};

}  // namespace

void add_binary_elementwise_kernels(std::vector<OpKernel>& table) {
  using math::prepare_same_type_binary;
  const std::vector<DataType> types = data_types(NumericTypes{});
  table.push_back({"Add", types, &prepare_same_type_binary<AddOp, NumericTypes>});
  table.push_back({"Sub", types, &prepare_same_type_binary<SubOp, NumericTypes>});
  table.push_back({"Mul", types, &prepare_same_type_binary<MulOp, NumericTypes>});
  table.push_back({"Div", types, &prepare_same_type_binary<DivOp, NumericTypes>});
}

}  // namespace ge::reference_kernels
