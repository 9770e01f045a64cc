#include "matmul_bias_fusion.h"

#include "fusion_util.h"

namespace ge::fusion {

std::vector<Pattern> MatMulBiasFusion::patterns() const {
  Pattern p("matmul_bias");
  p.op("Add", {p.op("MatMul", {p.any("a"), p.any("b")}, "matmul"), p.any("bias")}, "add").commutative();
  std::vector<Pattern> list;
  list.push_back(std::move(p));
  return list;
}

bool MatMulBiasFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  if (!broadcasts_into(match.value("bias")->desc(), match.node("matmul")->output(0)->desc())) {
    reason = "the bias " + match.value("bias")->desc().to_string() + " does not broadcast into the product " +
             match.node("matmul")->output(0)->desc().to_string();
    return false;
  }
  return true;
}

Status MatMulBiasFusion::replacement(const Match& match, Replacement& r) const {
  r.add_node("FusedMatMul", {r.use("a"), r.use("b"), r.use("bias")}, match.node("matmul")->name(), "ge");
  return Status::ok();
}

}  // namespace ge::fusion
