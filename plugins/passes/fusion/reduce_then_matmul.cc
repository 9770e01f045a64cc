#include "reduce_then_matmul.h"

#include <algorithm>

#include "fusion_util.h"
#include "ge/plugin_api/constant_values.h"

namespace ge::fusion {

std::vector<Pattern> ReduceMatMulReorder::patterns() const {
  Pattern p("reduce_of_matmul");
  // The axes are an attribute (older opsets) or a second input (ReduceSum from 13,
  // ReduceMean from 18): read in meets_requirements, passed on as they are.
  p.op({"ReduceSum", "ReduceMean"}, {p.op("MatMul", {p.any("a"), p.any("b")}, "matmul")}, "reduce")
      .allow_extra_inputs();
  std::vector<Pattern> list;
  list.push_back(std::move(p));
  return list;
}

bool ReduceMatMulReorder::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  const TensorDesc& a = match.value("a")->desc();
  const TensorDesc& b = match.value("b")->desc();
  const Node& reduce = *match.root();
  const Value* product = match.node("matmul")->output(0);
  if (!is_float_type(a.dtype) || !a.has_rank() || a.rank() < 2 || !b.has_rank() || b.rank() != 2) {
    reason = "A " + a.to_string() + " is not a float tensor of rank >= 2 or B " + b.to_string() + " is not 2-D";
    return false;
  }
  if (product->uses().size() != 1) {
    reason = "the product " + product->name() + " has other users";
    return false;
  }
  const int64_t rank = a.rank();
  std::optional<std::vector<int64_t>> axes = node_axes(reduce, "axes", 1, rank);
  if (!axes || axes->empty()) {
    reason = "the axes are not constant, or empty (every axis, or none)";
    return false;
  }
  if (std::find(axes->begin(), axes->end(), rank - 1) != axes->end()) {
    reason = "the reduction covers the product's last axis";
    return false;
  }
  bool fewer_rows = false;
  for (int64_t axis : *axes) {
    const Dim& dim = (*a.shape)[static_cast<size_t>(axis)];
    fewer_rows = fewer_rows || !dim.is_static() || dim.value > 1;
  }
  if (!fewer_rows) {
    reason = "every reduced extent is 1";
    return false;
  }
  return true;
}

Status ReduceMatMulReorder::replacement(const Match& match, Replacement& r) const {
  const Node& reduce = *match.root();
  std::vector<Value*> inputs{r.use("a")};
  for (size_t i = 1; i < reduce.input_count(); ++i) inputs.push_back(r.use(reduce.input(i)));
  Node* reduced = r.add_node(reduce.op_type(), inputs, reduce.name());
  for (const auto& [key, attribute] : reduce.attributes()) reduced->set_attribute(key, attribute);
  r.add_node("MatMul", {reduced->output(0), r.use("b")}, match.node("matmul")->name());
  return Status::ok();
}

}  // namespace ge::fusion
