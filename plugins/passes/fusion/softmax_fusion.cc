#include "softmax_fusion.h"

#include "fusion_util.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::fusion {
namespace {

/// The single axis a keepdims reduction reduces, or nullopt.
std::optional<int64_t> single_axis(const Node& reduce, int64_t rank) {
  if (reduce.get_int("keepdims", 1) != 1) return std::nullopt;
  std::optional<std::vector<int64_t>> axes = node_axes(reduce, "axes", 1, rank);
  if (!axes || axes->size() != 1) return std::nullopt;
  return (*axes)[0];
}

}  // namespace

std::vector<Pattern> SoftmaxFusion::patterns() const {
  Pattern p("softmax");
  PatternValue x = p.any("x");
  PatternOp& max = p.op("ReduceMax", {x}, "max").allow_extra_inputs();
  PatternOp& shifted = p.op("Sub", {x, max}, "shift").optional(0);
  PatternOp& exp = p.op("Exp", {shifted}, "exp");
  PatternOp& sum = p.op("ReduceSum", {exp}, "sum").allow_extra_inputs();
  p.op("Div", {exp, sum}, "div");
  std::vector<Pattern> list;
  list.push_back(std::move(p));
  return list;
}

bool SoftmaxFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  const TensorDesc& x = match.value("x")->desc();
  if (!x.has_rank() || x.rank() == 0 || !is_float_type(x.dtype)) {
    reason = "x " + x.to_string() + " is not a float tensor of known rank >= 1";
    return false;
  }
  std::optional<int64_t> axis = single_axis(*match.node("sum"), x.rank());
  if (!axis) {
    reason = "the ReduceSum does not reduce one axis with keepdims=1";
    return false;
  }
  if (const Node* max = match.node("shift") != nullptr ? match.node("max") : nullptr;
      max != nullptr && single_axis(*max, x.rank()) != axis) {
    reason = "the ReduceMax and the ReduceSum reduce different axes";
    return false;
  }
  if (onnx_opset(*match.root()) < 13 && *axis != x.rank() - 1) {
    reason = "before opset 13 Softmax flattens from its axis: only the last axis qualifies";
    return false;
  }
  return true;
}

Status SoftmaxFusion::replacement(const Match& match, Replacement& r) const {
  const int64_t rank = match.value("x")->desc().rank();
  Node* softmax = r.add_node("Softmax", {r.use("x")}, match.node("exp")->name());
  softmax->set_attribute("axis", *single_axis(*match.node("sum"), rank));
  return Status::ok();
}

}  // namespace ge::fusion
