#include "matmul_add_fusion.h"

#include "fusion_util.h"

namespace ge::fusion {

std::vector<Pattern> MatMulAddFusion::patterns() const {
  Pattern p("matmul_add");
  p.op("Add", {p.op("MatMul", {p.any("a"), p.any("b")}, "matmul"), p.any("c")}, "add").commutative();
  std::vector<Pattern> list;
  list.push_back(std::move(p));
  return list;
}

bool MatMulAddFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  const TensorDesc& a = match.value("a")->desc();
  const TensorDesc& b = match.value("b")->desc();
  if (a.rank() != 2 || b.rank() != 2) {
    reason = "A " + a.to_string() + " and B " + b.to_string() + " are not both 2-D";
    return false;
  }
  if (!broadcasts_into(match.value("c")->desc(), match.node("matmul")->output(0)->desc())) {
    reason = "C " + match.value("c")->desc().to_string() + " does not broadcast into the product " +
             match.node("matmul")->output(0)->desc().to_string();
    return false;
  }
  return true;
}

Status MatMulAddFusion::replacement(const Match& match, Replacement& r) const {
  Node* gemm = r.add_node("Gemm", {r.use("a"), r.use("b"), r.use("c")}, match.node("matmul")->name());
  // Before opset 7 Gemm broadcasts C only when asked to.
  if (onnx_opset(*match.root()) < 7) gemm->set_attribute("broadcast", int64_t{1});
  return Status::ok();
}

}  // namespace ge::fusion
