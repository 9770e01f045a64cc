// One-input math: Neg, Abs, Sign, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round, the
// trigonometric and hyperbolic functions and their inverses, Erf, IsNaN, IsInf, Not and
// BitwiseNot. Integers wrap (Neg/Abs of the lowest value give itself, as in numpy);
// Round is round-half-to-even; Erf of an integer type computes in double and truncates.
// IsNaN and IsInf also take the float8 types (opset 20): E5M2 has infinities, the other
// three none, so IsInf is false for all of their codes.

#include <cmath>
#include <type_traits>

#include "ge/minifloat.h"
#include "math/math_unary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct NegOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    if constexpr (std::is_integral_v<C>) {
      return wrapping_sub(C(0), x);
    } else {
      return -x;  // keeps the sign of zero and NaN
    }
  }
};
struct AbsOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else if constexpr (std::is_integral_v<C>) {
      return x < C(0) ? wrapping_sub(C(0), x) : x;
    } else {
      return std::fabs(x);
    }
  }
};
struct SignOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
    }
    return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
  }
};

// Ops that are one <cmath> function of a floating-point value.
#define GE_MATH_UNARY_FUNCTION(Name, expression)  \
  struct Name {                                   \
    template <typename C>                         \
    static C apply(const UnaryParams&, C x) {     \
      return expression;                          \
    }                                             \
  };
GE_MATH_UNARY_FUNCTION(ExpOp, std::exp(x))
GE_MATH_UNARY_FUNCTION(LogOp, std::log(x))
GE_MATH_UNARY_FUNCTION(SqrtOp, std::sqrt(x))
GE_MATH_UNARY_FUNCTION(ReciprocalOp, C(1) / x)
GE_MATH_UNARY_FUNCTION(FloorOp, std::floor(x))
GE_MATH_UNARY_FUNCTION(CeilOp, std::ceil(x))
// nearbyint rounds in the default (to nearest, ties to even) mode.
GE_MATH_UNARY_FUNCTION(RoundOp, std::nearbyint(x))
GE_MATH_UNARY_FUNCTION(SinOp, std::sin(x))
GE_MATH_UNARY_FUNCTION(CosOp, std::cos(x))
GE_MATH_UNARY_FUNCTION(TanOp, std::tan(x))
GE_MATH_UNARY_FUNCTION(AsinOp, std::asin(x))
GE_MATH_UNARY_FUNCTION(AcosOp, std::acos(x))
GE_MATH_UNARY_FUNCTION(AtanOp, std::atan(x))
GE_MATH_UNARY_FUNCTION(SinhOp, std::sinh(x))
GE_MATH_UNARY_FUNCTION(CoshOp, std::cosh(x))
GE_MATH_UNARY_FUNCTION(AsinhOp, std::asinh(x))
GE_MATH_UNARY_FUNCTION(AcoshOp, std::acosh(x))
GE_MATH_UNARY_FUNCTION(AtanhOp, std::atanh(x))
#undef GE_MATH_UNARY_FUNCTION

struct ErfOp {
  template <typename C>
  static auto apply(const UnaryParams&, C x) {
    if constexpr (std::is_integral_v<C>) {
      return std::erf(static_cast<double>(x));
    } else {
      return std::erf(x);
    }
  }
};
struct IsNaNOp {
  template <typename C>
  static bool apply(const UnaryParams&, C x) {
    return std::isnan(x);
  }
};
struct IsInfOp {
  // alpha: detect_positive, beta: detect_negative (0 or 1).
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    GE_ASSIGN_OR_RETURN(int64_t positive, int_attribute(context, "detect_positive", 1));
    GE_ASSIGN_OR_RETURN(int64_t negative, int_attribute(context, "detect_negative", 1));
    p.alpha = positive != 0 ? 1.0f : 0.0f;
    p.beta = negative != 0 ? 1.0f : 0.0f;
    return Status::ok();
  }
  template <typename C>
  static bool apply(const UnaryParams& p, C x) {
    if (!std::isinf(x)) return false;
    return x > C(0) ? p.alpha != 0.0f : p.beta != 0.0f;
  }
};

// IsNaN/IsInf on a float8 tensor: the code decoded to float.
struct Float8PredicateParams {
  UnaryParams unary;
  MinifloatFormat format;
};

template <typename Op>
int float8_predicate_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const Float8PredicateParams*>(args.params);
  const auto* x = static_cast<const uint8_t*>(args.inputs[0]);
  auto* y = static_cast<bool*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.unary.elements; ++i) y[i] = Op::apply(p.unary, minifloat_to_float(x[i], p.format));
  return kKernelOk;
}

template <typename Op>
Result<PreparedKernel> prepare_float_predicate(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  const std::optional<MinifloatFormat> format = minifloat_format(dtype);
  if (!format.has_value() || dtype == DataType::kFloat4E2M1) return prepare_predicate_unary<Op, FloatingTypes>(context);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kBool, dims));
  GE_ASSIGN_OR_RETURN(UnaryParams params, unary_params<Op>(context, product(dims)));
  return make_kernel(context, &float8_predicate_kernel<Op>, Float8PredicateParams{params, *format});
}

struct NotOp {
  static bool apply(const UnaryParams&, bool x) { return !x; }
};
struct BitwiseNotOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return static_cast<C>(~x);
  }
};

}  // namespace

void add_unary_math_kernels(std::vector<OpKernel>& table) {
  const std::vector<DataType> floating = data_types(FloatingTypes{});
  table.push_back({"Neg", data_types(SignedNumericTypes{}), &prepare_same_type_unary<NegOp, SignedNumericTypes>});
  table.push_back({"Abs", data_types(NumericTypes{}), &prepare_same_type_unary<AbsOp, NumericTypes>});
  table.push_back({"Sign", data_types(NumericTypes{}), &prepare_same_type_unary<SignOp, NumericTypes>});
  table.push_back({"Exp", floating, &prepare_same_type_unary<ExpOp, FloatingTypes>});
  table.push_back({"Log", floating, &prepare_same_type_unary<LogOp, FloatingTypes>});
  table.push_back({"Sqrt", floating, &prepare_same_type_unary<SqrtOp, FloatingTypes>});
  table.push_back({"Reciprocal", floating, &prepare_same_type_unary<ReciprocalOp, FloatingTypes>});
  table.push_back({"Floor", floating, &prepare_same_type_unary<FloorOp, FloatingTypes>});
  table.push_back({"Ceil", floating, &prepare_same_type_unary<CeilOp, FloatingTypes>});
  table.push_back({"Round", floating, &prepare_same_type_unary<RoundOp, FloatingTypes>});
  table.push_back({"Sin", floating, &prepare_same_type_unary<SinOp, FloatingTypes>});
  table.push_back({"Cos", floating, &prepare_same_type_unary<CosOp, FloatingTypes>});
  table.push_back({"Tan", floating, &prepare_same_type_unary<TanOp, FloatingTypes>});
  table.push_back({"Asin", floating, &prepare_same_type_unary<AsinOp, FloatingTypes>});
  table.push_back({"Acos", floating, &prepare_same_type_unary<AcosOp, FloatingTypes>});
  table.push_back({"Atan", floating, &prepare_same_type_unary<AtanOp, FloatingTypes>});
  table.push_back({"Sinh", floating, &prepare_same_type_unary<SinhOp, FloatingTypes>});
  table.push_back({"Cosh", floating, &prepare_same_type_unary<CoshOp, FloatingTypes>});
  table.push_back({"Asinh", floating, &prepare_same_type_unary<AsinhOp, FloatingTypes>});
  table.push_back({"Acosh", floating, &prepare_same_type_unary<AcoshOp, FloatingTypes>});
  table.push_back({"Atanh", floating, &prepare_same_type_unary<AtanhOp, FloatingTypes>});
  table.push_back({"Erf", data_types(NumericTypes{}), &prepare_same_type_unary<ErfOp, NumericTypes>});
  std::vector<DataType> floating_and_float8 = floating;
  for (DataType float8 : {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                          DataType::kFloat8E5M2FNUZ}) {
    floating_and_float8.push_back(float8);
  }
  table.push_back({"IsNaN", floating_and_float8, &prepare_float_predicate<IsNaNOp>});
  table.push_back({"IsInf", floating_and_float8, &prepare_float_predicate<IsInfOp>});
  table.push_back({"Not", data_types(BoolTypes{}), &prepare_same_type_unary<NotOp, BoolTypes>});
  table.push_back({"BitwiseNot", data_types(IntegerTypes{}), &prepare_same_type_unary<BitwiseNotOp, IntegerTypes>});
}

}  // namespace ge::reference_kernels::math
