#include "dead_code_elimination.h"

#include <unordered_set>
#include <vector>

namespace ge::passes {
namespace {

Status eliminate(Graph& graph, bool& changed) {
  std::unordered_set<const Node*> live;
  std::vector<const Node*> work;
  auto mark = [&](const Node* node) {
    if (node != nullptr && node->graph() == &graph && live.insert(node).second) work.push_back(node);
  };
  for (const Value* out : graph.outputs()) mark(out->producer());
  while (!work.empty()) {
    const Node* node = work.back();
    work.pop_back();
    for (const Value* in : node->inputs()) {
      if (in != nullptr) mark(in->producer());
    }
    for (const Value* in : graph.implicit_inputs(*node)) mark(in->producer());
    for (const Node* pred : node->control_predecessors()) mark(pred);
  }
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
  // Users before producers, so each removed node has no remaining uses.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    if (live.count(node)) continue;
    for (size_t i = 0; i < node->input_count(); ++i) node->set_input(i, nullptr);
    GE_RETURN_IF_ERROR(graph.remove_node(node));
    changed = true;
  }
  for (const auto& node : graph.nodes()) {
    for (Graph* sub : node->subgraphs()) GE_RETURN_IF_ERROR(eliminate(*sub, changed));
  }
  if (graph.remove_unused_values() > 0) changed = true;
  return Status::ok();
}

}  // namespace

Status DeadCodeElimination::run(Graph& graph, PassContext& /*context*/, bool& changed) {
  return eliminate(graph, changed);
}

}  // namespace ge::passes
