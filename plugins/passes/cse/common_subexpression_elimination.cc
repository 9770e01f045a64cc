#include "common_subexpression_elimination.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ge/graph_queries.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::passes {
namespace {

bool mergeable(const Node& node, const std::unordered_set<const Node*>& with_control_edges) {
  static const std::set<std::string> domains = {"", "ai.onnx", "ai.onnx.ml", "ge"};
  if (!domains.count(node.domain()) || node.output_count() == 0 || with_control_edges.count(&node)) return false;
  if (is_random_op(node)) return false;
  for (const auto& [name, attribute] : node.attributes()) {
    if (attribute.holds<Attribute::GraphPtr>() || attribute.holds<std::vector<Attribute::GraphPtr>>()) return false;
  }
  return true;
}

/// Ops whose first two inputs may be swapped (binary ones) or permuted (variadic ones).
bool commutative(const Node& node) {
  static const std::set<std::string> ops = {"Add", "Mul", "Max", "Min", "Sum", "Mean", "And", "Or", "Xor", "Equal"};
  return is_onnx_domain(node) && ops.count(node.op_type()) != 0;
}

/// The inputs in a canonical order: commutative ops sort theirs by identity. Only
/// equality within one run matters, so pointer order is fine.
std::vector<const Value*> canonical_inputs(const Node& node) {
  std::vector<const Value*> inputs(node.inputs().begin(), node.inputs().end());
  if (commutative(node)) std::sort(inputs.begin(), inputs.end(), std::less<const Value*>());
  return inputs;
}

size_t hash_attribute(const Attribute& a) {
  switch (a.type()) {
    case AttributeType::kInt: return std::hash<int64_t>()(a.get<int64_t>());
    case AttributeType::kString: return std::hash<std::string>()(a.get<std::string>());
    case AttributeType::kTensor: return hash_tensor(a.get<Tensor>());
    case AttributeType::kInts: return a.get<std::vector<int64_t>>().size();
    default: return static_cast<size_t>(a.type());  // equal attributes still collide here
  }
}

size_t node_hash(const Node& node) {
  size_t h = std::hash<std::string>()(node.domain() + "::" + node.op_type());
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(node.output_count());
  for (const Value* in : canonical_inputs(node)) mix(std::hash<const Value*>()(in));
  for (const auto& [name, attribute] : node.attributes()) {
    mix(std::hash<std::string>()(name));
    mix(hash_attribute(attribute));
  }
  return h;
}

bool same_computation(const Node& a, const Node& b) {
  if (a.domain() != b.domain() || a.op_type() != b.op_type() || a.output_count() != b.output_count()) return false;
  if (canonical_inputs(a) != canonical_inputs(b)) return false;
  if (a.attributes().size() != b.attributes().size()) return false;
  for (const auto& [name, attribute] : a.attributes()) {
    const Attribute* other = b.attribute(name);
    if (other == nullptr || !attributes_equal(attribute, *other)) return false;
  }
  for (size_t i = 0; i < a.output_count(); ++i) {
    // An output one node omits and the other produces cannot be merged cleanly.
    if (a.output(i)->name().empty() != b.output(i)->name().empty()) return false;
  }
  return true;
}

class Eliminator {
 public:
  explicit Eliminator(Graph& graph) : graph_(graph) {}

  Status run(bool& changed) {
    merge_constants(changed);
    GE_RETURN_IF_ERROR(merge_nodes(changed));
    for (const auto& node : graph_.nodes()) {
      for (Graph* sub : node->subgraphs()) {
        Eliminator inner(*sub);
        GE_RETURN_IF_ERROR(inner.run(changed));
      }
    }
    return Status::ok();
  }

 private:
  void merge_constants(bool& changed) {
    // Contents are read only for constants that share dtype and shape with another: a
    // model's large, unique weights (memory-mapped external data) stay untouched.
    std::map<std::pair<DataType, std::vector<int64_t>>, int> same_kind;
    const std::vector<Value*> initializers = graph_.initializers();
    for (const Value* value : initializers) {
      if (is_constant_value(value)) ++same_kind[{value->constant()->dtype(), value->constant()->shape()}];
    }
    std::unordered_map<size_t, std::vector<Value*>> seen;
    bool merged = false;
    for (Value* value : initializers) {
      if (!is_constant_value(value) || graph_.is_output(value)) continue;
      if (same_kind[{value->constant()->dtype(), value->constant()->shape()}] < 2) continue;
      std::vector<Value*>& bucket = seen[hash_tensor(*value->constant())];
      auto same = std::find_if(bucket.begin(), bucket.end(),
                               [&](const Value* kept) { return tensors_equal(*kept->constant(), *value->constant()); });
      if (same == bucket.end()) {
        bucket.push_back(value);
      } else if (value->has_uses()) {
        graph_.replace_all_uses(value, *same);
        merged = true;
      }
    }
    if (merged) {
      graph_.remove_unused_values();
      changed = true;
    }
  }

  Status merge_nodes(bool& changed) {
    std::unordered_set<const Node*> with_control_edges;
    for (const auto& node : graph_.nodes()) {
      if (node->control_predecessors().empty()) continue;
      with_control_edges.insert(node.get());
      for (const Node* p : node->control_predecessors()) with_control_edges.insert(p);
    }
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph_.topological_order());
    std::unordered_map<size_t, std::vector<Node*>> seen;
    for (Node* node : order) {
      if (!mergeable(*node, with_control_edges)) continue;
      std::vector<Node*>& bucket = seen[node_hash(*node)];
      auto same = std::find_if(bucket.begin(), bucket.end(), [&](const Node* kept) { return same_computation(*kept, *node); });
      if (same == bucket.end()) {
        bucket.push_back(node);
        continue;
      }
      bool is_output = false;
      for (const Value* out : node->outputs()) is_output = is_output || graph_.is_output(out);
      if (is_output) continue;  // its name is part of the model's interface
      for (size_t i = 0; i < node->output_count(); ++i) {
        if (!node->output(i)->name().empty()) graph_.replace_all_uses(node->output(i), (*same)->output(i));
      }
      for (size_t i = 0; i < node->input_count(); ++i) node->set_input(i, nullptr);
      GE_RETURN_IF_ERROR(graph_.remove_node(node));
      changed = true;
    }
    return Status::ok();
  }

  Graph& graph_;
};

}  // namespace

Status CommonSubexpressionElimination::run(Graph& graph, PassContext& /*context*/, bool& changed) {
  Eliminator eliminator(graph);
  return eliminator.run(changed);
}

}  // namespace ge::passes
