// The one-input activations: Relu (integer types from opset 14), Sigmoid, Tanh,
// LeakyRelu, Elu, Selu, Celu, HardSigmoid, HardSwish, ThresholdedRelu, Softplus,
// Softsign, Shrink (every numeric type), Mish and Gelu (opset 20), each with the
// attribute defaults of the ONNX spec. float16/bfloat16 compute in float (Gelu in
// double); NaN inputs give NaN as numpy does.

#include <cmath>
#include <string>
#include <type_traits>

#include "math/math_unary.h"

namespace ge::reference_kernels {
namespace {

using math::read_float;
using math::UnaryParams;

struct ReluOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return x < C(0) ? C(0) : x;
  }
};
struct SigmoidOp {
  // exp(-x) overflows to inf for very negative x, which still gives the right limit 0.
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return C(1) / (C(1) + std::exp(-x));
  }
};
struct TanhOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return std::tanh(x);
  }
};
struct LeakyReluOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    return read_float(context, "alpha", 0.01f, p.alpha);
  }
  template <typename C>
  static C apply(const UnaryParams& p, C x) {
    return x < C(0) ? C(p.alpha) * x : x;
  }
};
struct EluOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    return read_float(context, "alpha", 1.0f, p.alpha);
  }
  template <typename C>
  static C apply(const UnaryParams& p, C x) {
    return x < C(0) ? C(p.alpha) * std::expm1(x) : x;
  }
};
struct SeluOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    GE_RETURN_IF_ERROR(read_float(context, "alpha", 1.67326319217681884765625f, p.alpha));
    return read_float(context, "gamma", 1.05070102214813232421875f, p.gamma);
  }
  template <typename C>
  static C apply(const UnaryParams& p, C x) {
    return x <= C(0) ? C(p.gamma) * (C(p.alpha) * std::exp(x) - C(p.alpha)) : C(p.gamma) * x;
  }
};
struct CeluOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    GE_RETURN_IF_ERROR(read_float(context, "alpha", 1.0f, p.alpha));
    if (p.alpha == 0.0f) return invalid_attribute(context, "alpha", "must not be 0 (Celu divides by it)");
    return Status::ok();
  }
  template <typename C>
  static C apply(const UnaryParams& p, C x) {
    const C alpha = C(p.alpha);
    return x > C(0) ? x : alpha * std::expm1(x / alpha);
  }
};
// max(0, min(1, alpha * x + beta)), letting NaN through.
template <typename C>
C hard_sigmoid(C x, C alpha, C beta) {
  const C v = alpha * x + beta;
  return v < C(0) ? C(0) : (v > C(1) ? C(1) : v);
}
struct HardSigmoidOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    GE_RETURN_IF_ERROR(read_float(context, "alpha", 0.2f, p.alpha));
    return read_float(context, "beta", 0.5f, p.beta);
  }
  template <typename C>
  static C apply(const UnaryParams& p, C x) {
    return hard_sigmoid(x, C(p.alpha), C(p.beta));
  }
};
struct HardSwishOp {  // x * HardSigmoid(x) with alpha = 1/6, beta = 0.5 (no attributes)
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return x * hard_sigmoid(x, C(1) / C(6), C(0.5));
  }
};
struct ThresholdedReluOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    return read_float(context, "alpha", 1.0f, p.alpha);
  }
  template <typename C>
  static C apply(const UnaryParams& p, C x) {
    return x > C(p.alpha) ? x : (std::isnan(x) ? x : C(0));
  }
};
// log(exp(x) + 1) without overflowing exp for large x.
template <typename C>
C softplus(C x) {
  return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
struct SoftplusOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return softplus(x);
  }
};
struct SoftsignOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return x / (C(1) + std::fabs(x));
  }
};
struct ShrinkOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    GE_RETURN_IF_ERROR(read_float(context, "bias", 0.0f, p.beta));
    return read_float(context, "lambd", 0.5f, p.alpha);
  }
  // Integers compute in double (the attributes are floats); the result truncates back.
  template <typename C>
  static auto apply(const UnaryParams& p, C x) {
    using W = std::conditional_t<std::is_integral_v<C>, double, C>;
    const W v = static_cast<W>(x);
    const W lambd = static_cast<W>(p.alpha);
    const W bias = static_cast<W>(p.beta);
    return v < -lambd ? v + bias : (v > lambd ? v - bias : W(0));
  }
};
struct MishOp {
  template <typename C>
  static C apply(const UnaryParams&, C x) {
    return x * std::tanh(softplus(x));
  }
};

// Gelu-20: 0.5 x (1 + erf(x / sqrt 2)), or with approximate = "tanh"
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). The formulas of ge::Gelu (fused.cc),
// in double for every dtype so that float32 rounds once. alpha: 0 erf, 1 tanh.
struct GeluOp {
  static Status read_attributes(const KernelContext& context, UnaryParams& p) {
    // Read through the Result, not GE_ASSIGN_OR_RETURN: GCC 12 -O3 flags the moved
    // string as maybe-uninitialized here.
    const Result<std::string> approximate = string_attribute(context, "approximate", "none");
    if (!approximate.is_ok()) return approximate.status();
    const std::string& value = approximate.value();
    if (value != "none" && value != "tanh") {
      return invalid_attribute(context, "approximate", "is '" + value + "', expected 'none' or 'tanh'");
    }
    p.alpha = value == "tanh" ? 1.0f : 0.0f;
    return Status::ok();
  }
  template <typename C>
  static double apply(const UnaryParams& p, C x) {
    constexpr double kInvSqrt2 = 0.70710678118654752440;
    constexpr double kSqrt2OverPi = 0.79788456080286535588;
    const double v = static_cast<double>(x);
    const double inner =
        p.alpha != 0.0f ? std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v)) : std::erf(v * kInvSqrt2);
    return 0.5 * v * (1.0 + inner);
  }
};

}  // namespace

void add_unary_activation_kernels(std::vector<OpKernel>& table) {
  using math::prepare_same_type_unary;
  const std::vector<DataType> floating = data_types(FloatingTypes{});
  table.push_back({"Relu", data_types(SignedNumericTypes{}), &prepare_same_type_unary<ReluOp, SignedNumericTypes>});
  table.push_back({"Sigmoid", floating, &prepare_same_type_unary<SigmoidOp, FloatingTypes>});
  table.push_back({"Tanh", floating, &prepare_same_type_unary<TanhOp, FloatingTypes>});
  table.push_back({"LeakyRelu", floating, &prepare_same_type_unary<LeakyReluOp, FloatingTypes>});
  table.push_back({"Elu", floating, &prepare_same_type_unary<EluOp, FloatingTypes>});
  table.push_back({"Selu", floating, &prepare_same_type_unary<SeluOp, FloatingTypes>});
  table.push_back({"Celu", floating, &prepare_same_type_unary<CeluOp, FloatingTypes>});
  table.push_back({"HardSigmoid", floating, &prepare_same_type_unary<HardSigmoidOp, FloatingTypes>});
  table.push_back({"HardSwish", floating, &prepare_same_type_unary<HardSwishOp, FloatingTypes>});
  table.push_back({"ThresholdedRelu", floating, &prepare_same_type_unary<ThresholdedReluOp, FloatingTypes>});
  table.push_back({"Softplus", floating, &prepare_same_type_unary<SoftplusOp, FloatingTypes>});
  table.push_back({"Softsign", floating, &prepare_same_type_unary<SoftsignOp, FloatingTypes>});
  table.push_back({"Shrink", data_types(NumericTypes{}), &prepare_same_type_unary<ShrinkOp, NumericTypes>});
  table.push_back({"Mish", floating, &prepare_same_type_unary<MishOp, FloatingTypes>});
  table.push_back({"Gelu", floating, &prepare_same_type_unary<GeluOp, FloatingTypes>});
}

}  // namespace ge::reference_kernels
