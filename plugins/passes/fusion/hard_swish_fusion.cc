#include "hard_swish_fusion.h"

#include "fusion_util.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::fusion {
namespace {

constexpr int64_t kHardSwishOpset = 14;  // the first ai.onnx opset with HardSwish

/// Where the division by 6 sits in x * Clip(x + 3, 0, 6) / 6.
enum class Scaled { kProduct, kClip, kX };

/// `value` / 6 or `value` * (1/6): which of the two, and the constant, are checked in
/// meets_requirements.
PatternOp& sixth(Pattern& p, PatternValue value) {
  return p.op({"Div", "Mul"}, {value, p.constant("scale")}, "scale").commutative();
}

Pattern clip_form(Scaled scaled) {
  static const char* const names[] = {"hard_swish_clip_scaled_product", "hard_swish_clip_scaled_clip",
                                      "hard_swish_clip_scaled_x"};
  Pattern p(names[static_cast<int>(scaled)]);
  PatternValue x = p.any("x");
  PatternOp& shifted = p.op("Add", {x, p.scalar(3.0)}, "add_three").commutative();
  PatternOp& clip = p.op("Clip", {shifted}, "clip").allow_extra_inputs();
  if (scaled == Scaled::kProduct) {
    sixth(p, p.op("Mul", {x, clip}, "product").commutative());
  } else if (scaled == Scaled::kClip) {
    p.op("Mul", {x, sixth(p, clip)}, "product").commutative();
  } else {
    p.op("Mul", {sixth(p, x), clip}, "product").commutative();
  }
  return p;
}

}  // namespace

std::vector<Pattern> HardSwishFusion::patterns() const {
  std::vector<Pattern> list;
  for (Scaled scaled : {Scaled::kProduct, Scaled::kClip, Scaled::kX}) list.push_back(clip_form(scaled));
  Pattern hard_sigmoid("hard_swish_hard_sigmoid");
  PatternValue x = hard_sigmoid.any("x");
  hard_sigmoid.op("Mul", {x, hard_sigmoid.op("HardSigmoid", {x}, "hard_sigmoid")}, "product").commutative();
  list.push_back(std::move(hard_sigmoid));
  return list;
}

bool HardSwishFusion::meets_requirements(const Match& match, const PassContext& context, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  const Value* x = match.value("x");
  if (!is_float_type(x->desc().dtype)) {
    reason = "x is " + x->desc().to_string() + ", not a float tensor";
    return false;
  }
  if (const Node* clip = match.node("clip")) {
    std::optional<std::pair<float, float>> bounds = clip_bounds(*clip);
    if (!bounds || !near(bounds->first, 0.0) || !near(bounds->second, 6.0)) {
      reason = clip->describe() + " does not clip to [0, 6]";
      return false;
    }
  }
  if (const Node* scale = match.node("scale")) {
    const bool divides = scale->op_type() == "Div";
    std::optional<double> factor = constant_scalar(match.value("scale"));
    // A Div matched with its operands swapped computes 6 / v, not v / 6.
    if ((divides && scale->input(1) != match.value("scale")) || !factor ||
        !near(*factor, divides ? 6.0 : 1.0 / 6.0, constant_tolerance(match.value("scale")->desc().dtype))) {
      reason = scale->describe() + " does not divide by 6";
      return false;
    }
  }
  if (const Node* hard_sigmoid = match.node("hard_sigmoid")) {
    if (!near(hard_sigmoid->get_float("alpha", 0.2f), 1.0 / 6.0) || !near(hard_sigmoid->get_float("beta", 0.5f), 0.5)) {
      reason = hard_sigmoid->describe() + " is not HardSigmoid(alpha = 1/6, beta = 0.5)";
      return false;
    }
  }
  return standard_op_domain(*match.root(), "HardSwish", kHardSwishOpset, context.opt_level, reason).has_value();
}

Status HardSwishFusion::replacement(const Match& match, Replacement& r) const {
  // meets_requirements() allowed the "ge" copy where the model's opset predates the op.
  const std::string domain = onnx_opset(*match.root()) >= kHardSwishOpset ? "" : "ge";
  r.add_node("HardSwish", {r.use("x")}, {}, domain);
  return Status::ok();
}

}  // namespace ge::fusion
