#include "gelu_fusion.h"

#include <cmath>
#include <functional>

#include "fusion_util.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::fusion {
namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrt2OverPi = 0.79788456080286535588;

enum class Cube { kPow, kMul };

/// 1 + Erf(x / sqrt 2): the x / sqrt 2 is a Div or a Mul, checked in meets_requirements.
PatternValue erf_term(Pattern& p, PatternValue x) {
  PatternOp& scaled = p.op({"Div", "Mul"}, {x, p.constant("erf_scale")}, "erf_scale").commutative();
  PatternOp& erf = p.op("Erf", {scaled}, "erf");
  return p.op("Add", {erf, p.scalar(1.0)}, "add_one").commutative();
}

/// 1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)).
PatternValue tanh_term(Pattern& p, PatternValue x, Cube cube) {
  PatternValue x3;
  if (cube == Cube::kPow) {
    x3 = p.op("Pow", {x, p.scalar(3.0)}, "cube");
  } else {
    PatternOp& square = p.op("Mul", {x, x}, "square");
    x3 = p.op("Mul", {x, square}, "cube").commutative();
  }
  PatternOp& term = p.op("Mul", {x3, rounded_scalar(p, 0.044715)}, "cubic_term").commutative();
  PatternOp& sum = p.op("Add", {x, term}, "sum").commutative();
  PatternOp& scaled = p.op("Mul", {sum, rounded_scalar(p, kSqrt2OverPi)}, "tanh_scale").commutative();
  PatternOp& tanh = p.op("Tanh", {scaled}, "tanh");
  return p.op("Add", {tanh, p.scalar(1.0)}, "add_one").commutative();
}

/// The three associations of 0.5 * x * t.
void outer_product(Pattern& p, PatternValue x, PatternValue t, int form) {
  if (form == 0) {  // (x * t) * 0.5
    PatternOp& xt = p.op("Mul", {x, t}, "x_times").commutative();
    p.op("Mul", {xt, p.scalar(0.5)}, "half").commutative();
  } else if (form == 1) {  // (x * 0.5) * t
    PatternOp& half = p.op("Mul", {x, p.scalar(0.5)}, "half").commutative();
    p.op("Mul", {half, t}, "x_times").commutative();
  } else {  // x * (t * 0.5)
    PatternOp& half = p.op("Mul", {t, p.scalar(0.5)}, "half").commutative();
    p.op("Mul", {x, half}, "x_times").commutative();
  }
}

}  // namespace

std::vector<Pattern> GeluFusion::patterns() const {
  std::vector<Pattern> list;
  for (int form = 0; form < 3; ++form) {
    Pattern erf("gelu_erf_" + std::to_string(form));
    PatternValue x = erf.any("x");
    outer_product(erf, x, erf_term(erf, x), form);
    list.push_back(std::move(erf));
    for (Cube cube : {Cube::kPow, Cube::kMul}) {
      Pattern tanh(std::string("gelu_tanh_") + (cube == Cube::kPow ? "pow_" : "mul_") + std::to_string(form));
      PatternValue tx = tanh.any("x");
      outer_product(tanh, tx, tanh_term(tanh, tx, cube), form);
      list.push_back(std::move(tanh));
    }
  }
  return list;
}

bool GeluFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  if (!is_float_type(match.value("x")->desc().dtype)) {
    reason = "x is " + match.value("x")->desc().to_string() + ", not a float tensor";
    return false;
  }
  if (const Node* scale = match.node("erf_scale")) {
    const double expected = scale->op_type() == "Div" ? kSqrt2 : 1.0 / kSqrt2;
    const Value* constant = match.value("erf_scale");
    std::optional<double> actual = constant_scalar(constant);
    const double tolerance = constant_tolerance(constant->desc().dtype);
    if (scale->input(0) != match.value("x") || !actual || std::fabs(*actual - expected) > tolerance * expected) {
      reason = scale->describe() + " does not compute x / sqrt(2)";
      return false;
    }
  }
  return true;
}

Status GeluFusion::replacement(const Match& match, Replacement& r) const {
  const bool tanh = match.node("tanh") != nullptr;
  Node* gelu = r.add_node("Gelu", {r.use("x")}, {}, "ge");
  gelu->set_attribute("approximate", tanh ? "tanh" : "none");
  return Status::ok();
}

}  // namespace ge::fusion
