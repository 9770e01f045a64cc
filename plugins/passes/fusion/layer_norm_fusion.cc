#include "layer_norm_fusion.h"

#include <algorithm>

#include "fusion_util.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::fusion {
namespace {

constexpr int64_t kLayerNormalizationOpset = 17;  // the first ai.onnx opset with LayerNormalization

/// The core d / Sqrt(ReduceMean(d^2) + eps) with d = X - ReduceMean(X); returns the Div.
PatternOp& normalisation(Pattern& p) {
  PatternValue x = p.any("x");
  PatternOp& mean = p.op("ReduceMean", {x}, "mean").allow_extra_inputs();
  PatternOp& d = p.op("Sub", {x, mean}, "sub");
  PatternOp& square = p.op({"Pow", "Mul"}, {d, p.any("exponent")}, "square").commutative();
  PatternOp& variance = p.op("ReduceMean", {square}, "variance").allow_extra_inputs();
  PatternOp& add = p.op("Add", {variance, p.constant("epsilon")}, "add_epsilon").commutative();
  PatternOp& root = p.op("Sqrt", {add}, "sqrt");
  return p.op("Div", {d, root}, "div");
}

/// The trailing axes a ReduceMean reduces (normalised), or nullopt when it does not
/// reduce trailing axes with keepdims.
std::optional<std::vector<int64_t>> trailing_axes(const Node& reduce, int64_t rank) {
  if (reduce.get_int("keepdims", 1) != 1) return std::nullopt;
  std::optional<std::vector<int64_t>> axes = node_axes(reduce, "axes", 1, rank);
  if (!axes || axes->empty()) return std::nullopt;
  std::vector<int64_t> sorted = *axes;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != rank - static_cast<int64_t>(sorted.size() - i)) return std::nullopt;
  }
  return sorted;
}

/// The static dims X has from `axis` on (the normalised shape), or nullopt.
std::optional<std::vector<int64_t>> normalised_shape(const TensorDesc& x, int64_t axis) {
  if (!x.has_rank()) return std::nullopt;
  std::vector<int64_t> dims;
  for (size_t i = static_cast<size_t>(axis); i < x.shape->size(); ++i) {
    if (!(*x.shape)[i].is_static()) return std::nullopt;
    dims.push_back((*x.shape)[i].value);
  }
  return dims;
}

}  // namespace

std::vector<Pattern> LayerNormFusion::patterns() const {
  std::vector<Pattern> list;
  Pattern full("layer_norm_affine");
  PatternOp& scaled = full.op("Mul", {normalisation(full), full.constant("gamma")}, "scale").commutative().optional(0);
  full.op("Add", {scaled, full.constant("beta")}, "shift").commutative();
  list.push_back(std::move(full));
  Pattern scale_only("layer_norm_scale");
  scale_only.op("Mul", {normalisation(scale_only), scale_only.constant("gamma")}, "scale").commutative();
  list.push_back(std::move(scale_only));
  Pattern plain("layer_norm");
  normalisation(plain);
  list.push_back(std::move(plain));
  return list;
}

bool LayerNormFusion::meets_requirements(const Match& match, const PassContext& context, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  const Value* x = match.value("x");
  const TensorDesc& desc = x->desc();
  if (!desc.has_rank() || !is_float_type(desc.dtype)) {
    reason = "X " + desc.to_string() + " is not a float tensor of known rank";
    return false;
  }
  const int64_t rank = desc.rank();
  std::optional<std::vector<int64_t>> axes = trailing_axes(*match.node("mean"), rank);
  if (!axes || trailing_axes(*match.node("variance"), rank) != axes) {
    reason = "the two ReduceMeans do not reduce the same trailing axes with keepdims=1";
    return false;
  }
  std::optional<std::vector<int64_t>> normalised = normalised_shape(desc, (*axes)[0]);
  if (!normalised) {
    reason = "the normalised dims of X " + desc.to_string() + " are not static";
    return false;
  }
  const Node& square = *match.node("square");
  const Value* d = match.node("sub")->output(0);
  const bool squares = square.op_type() == "Pow" ? square.input(0) == d && constant_scalar(square.input(1)) == 2.0
                                                 : square.input(0) == d && square.input(1) == d;
  if (!squares) {
    reason = square.describe() + " does not square X - mean";
    return false;
  }
  const Tensor& epsilon = *match.constant("epsilon");
  if (epsilon.element_count() != 1 || !constant_scalar(match.value("epsilon"))) {
    reason = "epsilon is not a scalar constant";
    return false;
  }
  for (const char* name : {"gamma", "beta"}) {
    const Tensor* t = match.constant(name);
    if (t != nullptr && (t->dtype() != desc.dtype || !broadcasts_to(t->shape(), *normalised))) {
      reason = std::string(name) + " " + std::string(data_type_name(t->dtype())) + shape_to_string(t->shape()) +
               " does not broadcast to the normalised shape " + shape_to_string(*normalised);
      return false;
    }
  }
  return standard_op_domain(*match.root(), "LayerNormalization", kLayerNormalizationOpset, context.opt_level, reason)
      .has_value();
}

Status LayerNormFusion::replacement(const Match& match, Replacement& r) const {
  const Value* x = match.value("x");
  const std::vector<int64_t> axes = *trailing_axes(*match.node("mean"), x->desc().rank());
  const int64_t axis = axes[0];
  const std::vector<int64_t> normalised = *normalised_shape(x->desc(), axis);
  const DataType dtype = x->desc().dtype;
  const std::string name = match.node("mean")->name();
  // LayerNormalization takes scale and bias of the normalised shape.
  auto materialise = [&](const char* capture, double fill) -> Value* {
    const Tensor* t = match.constant(capture);
    if (t != nullptr && t->shape() == normalised) return r.use(capture);
    std::vector<double> values = t != nullptr ? broadcast_values(*t, normalised)
                                              : std::vector<double>(static_cast<size_t>(element_count(normalised)), fill);
    return r.constant(name + "_" + capture, from_doubles(dtype, normalised, values));
  };
  Value* gamma = materialise("gamma", 1.0);
  Value* beta = match.value("beta") != nullptr ? materialise("beta", 0.0) : nullptr;
  std::vector<Value*> inputs{r.use("x"), gamma};
  if (beta != nullptr) inputs.push_back(beta);
  // meets_requirements() allowed the "ge" copy where the model's opset predates the op.
  const std::string domain = onnx_opset(*match.root()) >= kLayerNormalizationOpset ? "" : "ge";
  Node* norm = r.add_node("LayerNormalization", inputs, name, domain);
  norm->set_attribute("axis", axis);
  norm->set_attribute("epsilon", static_cast<float>(*constant_scalar(match.value("epsilon"))));
  return Status::ok();
}

}  // namespace ge::fusion
