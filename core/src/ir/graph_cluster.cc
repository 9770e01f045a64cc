// Cutting a set of nodes out of a graph as a standalone graph (graph_cluster.h).
#include "graph_cluster.h"

#include <unordered_map>

namespace ge {

Result<GraphCluster> extract_cluster(const std::vector<Node*>& nodes, const std::vector<const Value*>& outputs) {
  GraphCluster cluster;
  const Graph* source = nodes.empty() ? nullptr : nodes.front()->graph();
  if (source == nullptr && !outputs.empty()) source = outputs.front()->graph();
  cluster.graph = std::make_unique<Graph>(source != nullptr ? source->name() + "_cluster" : "cluster");
  Graph& g = *cluster.graph;
  for (const Graph* scope = source; scope != nullptr; scope = scope->parent()) {
    for (const auto& [domain, version] : scope->opset_imports()) {
      if (!g.opset_imports().count(domain)) g.set_opset_import(domain, version);
    }
  }
  std::unordered_map<const Value*, Value*> map;
  // A value the cluster reads from outside: a constant copied in, else a new input.
  auto outside = [&](const Value* value) -> Value* {
    if (auto found = map.find(value); found != map.end()) return found->second;
    Value* copy = nullptr;
    if (value->is_constant()) {
      copy = g.add_initializer(value->name(), *value->constant());
    } else {
      copy = g.add_input(value->name(), value->desc());
      cluster.inputs.push_back(value);
    }
    map.emplace(value, copy);
    return copy;
  };
  for (Node* node : nodes) {
    std::vector<Value*> inputs;
    inputs.reserve(node->input_count());
    for (const Value* in : node->inputs()) inputs.push_back(in == nullptr ? nullptr : outside(in));
    std::vector<std::string> names;
    for (const Value* out : node->outputs()) names.push_back(out->name());
    Node* copy = g.add_node(node->op_type(), std::move(inputs), node->output_count(), node->name(), names, node->domain());
    for (const auto& [key, attribute] : node->attributes()) {
      if (attribute.holds<Attribute::GraphPtr>() || attribute.holds<std::vector<Attribute::GraphPtr>>()) {
        return unsupported(node->describe() + " holds a subgraph");
      }
      copy->set_attribute(key, attribute);
    }
    for (size_t i = 0; i < node->output_count(); ++i) {
      copy->output(i)->set_desc(node->output(i)->desc());
      map.emplace(node->output(i), copy->output(i));
    }
  }
  for (const Value* out : outputs) {
    g.add_output(outside(out));
    cluster.outputs.push_back(out);
  }
  return cluster;
}

}  // namespace ge
