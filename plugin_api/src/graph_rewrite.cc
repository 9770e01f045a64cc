// Editing a graph from a pass: captures, opset imports, bypassing a node
// (ge/plugin_api/graph_rewrite.h).
#include "ge/plugin_api/graph_rewrite.h"

namespace ge {

std::set<std::string> captured_names(const Graph& graph) {
  std::set<std::string> names;
  for (const auto& node : graph.nodes()) {
    for (Graph* sub : node->subgraphs()) {
      for (const std::string& name : sub->free_captured_names()) names.insert(name);
    }
  }
  return names;
}

Graph& root_graph(Graph& graph) {
  Graph* g = &graph;
  while (g->parent() != nullptr) g = g->parent();
  return *g;
}

void ensure_opset_import(Graph& graph, const std::string& domain, int64_t version) {
  if (graph.opset_version(domain) > 0) return;
  root_graph(graph).set_opset_import(domain, version);
}

Result<bool> bypass_output(Graph& graph, Node& node, size_t output_index, Value* replacement,
                           const std::set<std::string>* captured_names_of_graph) {
  Value* out = node.output(output_index);
  if (out == nullptr || replacement == nullptr || replacement == out) return false;
  std::set<std::string> computed;
  if (captured_names_of_graph == nullptr) computed = captured_names(graph);
  const std::set<std::string>& captured = captured_names_of_graph != nullptr ? *captured_names_of_graph : computed;
  const bool named_use = graph.is_output(out) || captured.count(out->name()) != 0;
  if (named_use) {
    // The replacement inherits the name: it must be free to change its own.
    const bool renamable = replacement->producer() != nullptr && replacement->graph() == &graph &&
                           !graph.is_output(replacement) && captured.count(replacement->name()) == 0;
    if (!renamable) return false;
  }
  const std::string name = out->name();
  // Take the name over first (briefly shared), so that captures renamed by
  // replace_all_uses keep naming the surviving value.
  if (named_use) replacement->set_name(name);
  graph.replace_all_uses(out, replacement);
  bool other_outputs_used = false;
  for (Value* o : node.outputs()) {
    if (o != out && (o->has_uses() || graph.is_output(o) || captured.count(o->name()))) other_outputs_used = true;
  }
  if (!other_outputs_used) {
    for (size_t i = 0; i < node.input_count(); ++i) node.set_input(i, nullptr);
    GE_RETURN_IF_ERROR(graph.remove_node(&node));
  } else if (named_use) {
    out->set_name(graph.unique_name(name + "_bypassed"));
  }
  return true;
}

}  // namespace ge
