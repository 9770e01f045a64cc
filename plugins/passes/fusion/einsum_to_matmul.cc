#include "einsum_to_matmul.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "fusion_util.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"

namespace ge::fusion {
namespace {

struct EinsumPlan {
  bool transpose_a = false, transpose_b = false;
};

bool has_letter(const std::string& letters, char c) { return letters.find(c) != std::string::npos; }

// The plan for `node`'s equation, or nullopt with `reason`.
std::optional<EinsumPlan> einsum_plan(const Node& node, std::string& reason) {
  std::string equation;
  for (char c : node.get_string("equation", "")) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos) return reason = "an implicit output", std::nullopt;
  const std::string inputs = equation.substr(0, arrow), out = equation.substr(arrow + 2);
  const size_t comma = inputs.find(',');
  if (comma == std::string::npos || inputs.find(',', comma + 1) != std::string::npos) {
    return reason = "not two operands", std::nullopt;
  }
  const std::string a = inputs.substr(0, comma), b = inputs.substr(comma + 1);
  for (const std::string* term : {&a, &b, &out}) {
    for (size_t i = 0; i < term->size(); ++i) {
      const char c = (*term)[i];
      if (!std::isalpha(static_cast<unsigned char>(c))) return reason = "an ellipsis or another sign", std::nullopt;
      if (term->find(c, i + 1) != std::string::npos) return reason = "a repeated letter", std::nullopt;
    }
  }
  for (char c : a + b) {
    if (!has_letter(out, c) && !(has_letter(a, c) && has_letter(b, c)))
      return reason = "a letter summed over one operand", std::nullopt;
  }
  for (char c : out) {
    if (!has_letter(a, c) && !has_letter(b, c)) return reason = "an output letter of neither operand", std::nullopt;
  }
  // out = batch + i + j; a = batch + {i, k}; b = batch + {k, j}.
  if (out.size() < 2 || a.size() != out.size() || b.size() != out.size()) {
    return reason = "not one row, one column and one contracted letter", std::nullopt;
  }
  const size_t batch = out.size() - 2;
  const char i = out[batch], j = out[batch + 1];
  if (a.compare(0, batch, out, 0, batch) != 0 || b.compare(0, batch, out, 0, batch) != 0) {
    return reason = "batch letters not leading in one order", std::nullopt;
  }
  const std::string a_tail = a.substr(batch), b_tail = b.substr(batch);
  char k = 0;
  for (char c : a_tail) {
    if (c != i) k = c;
  }
  if (k == 0 || has_letter(out, k) || !has_letter(a_tail, i) || !has_letter(b_tail, j) || !has_letter(b_tail, k) ||
      has_letter(b_tail, i) || has_letter(a_tail, j)) {
    return reason = "not one row, one column and one contracted letter", std::nullopt;
  }
  EinsumPlan plan;
  plan.transpose_a = a_tail[0] == k;
  plan.transpose_b = b_tail[0] == j;
  return plan;
}

Value* transpose_last_two_axes(Graph& graph, Value* value, const std::string& prefix) {
  const int64_t rank = value->desc().rank();
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) perm[static_cast<size_t>(d)] = d;
  std::swap(perm[static_cast<size_t>(rank - 2)], perm[static_cast<size_t>(rank - 1)]);
  const std::string name = graph.unique_name(prefix);
  Node* transpose = graph.add_node("Transpose", {value}, 1, name, {name});
  transpose->set_attribute("perm", Attribute(perm));
  TensorDesc desc = value->desc();
  if (desc.shape) std::swap((*desc.shape)[static_cast<size_t>(rank - 2)], (*desc.shape)[static_cast<size_t>(rank - 1)]);
  transpose->output(0)->set_desc(desc);
  return transpose->output(0);
}

}  // namespace

Status EinsumToMatMul::run(Graph& graph, PassContext& context, bool& changed) {
  (void)context;
  std::vector<Node*> einsums;
  for (const auto& node : graph.nodes()) {
    if (is_onnx_domain(*node) && node->op_type() == "Einsum") einsums.push_back(node.get());
  }
  for (Node* node : einsums) {
    std::string reason;
    std::optional<EinsumPlan> plan;
    if (node->input_count() != 2 || node->input(0) == nullptr || node->input(1) == nullptr ||
        node->output_count() != 1) {
      reason = "not two operands";
    } else if (!is_float_type(node->input(0)->desc().dtype) ||
               node->input(1)->desc().dtype != node->input(0)->desc().dtype) {
      reason = "not float operands of one type";
    } else if (!node->input(0)->desc().has_rank() || node->input(1)->desc().rank() != node->input(0)->desc().rank() ||
               node->input(0)->desc().rank() < 2) {
      reason = "operands of unknown or different ranks, or below 2";
    } else {
      plan = einsum_plan(*node, reason);
    }
    if (!plan) {
      GE_LOG_DEBUG("einsum_to_matmul: {} stays an Einsum: {}", node->describe(), reason);
      continue;
    }
    Value* a = node->input(0);
    Value* b = node->input(1);
    if (plan->transpose_a) node->set_input(0, transpose_last_two_axes(graph, a, node->name() + "/a_transposed"));
    if (plan->transpose_b) node->set_input(1, transpose_last_two_axes(graph, b, node->name() + "/b_transposed"));
    node->set_op_type("MatMul");
    node->remove_attribute("equation");
    changed = true;
  }
  return Status::ok();
}

}  // namespace ge::fusion
