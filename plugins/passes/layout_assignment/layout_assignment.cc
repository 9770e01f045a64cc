#include "layout_assignment.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::passes {
namespace {

bool has_subgraph(const Node& node) {
  for (const auto& [key, attribute] : node.attributes()) {
    if (attribute.holds<Attribute::GraphPtr>() || attribute.holds<std::vector<Attribute::GraphPtr>>()) return true;
  }
  return false;
}

const std::vector<std::string>* listed(const std::vector<std::vector<std::string>>& lists, size_t index) {
  return index < lists.size() ? &lists[index] : nullptr;
}

bool lists_format(const std::vector<std::vector<std::string>>& lists, size_t index, const std::string& format) {
  const std::vector<std::string>* formats = listed(lists, index);
  return formats != nullptr && std::find(formats->begin(), formats->end(), format) != formats->end();
}

class UnionFind {
 public:
  explicit UnionFind(size_t size) : parent_(size) { std::iota(parent_.begin(), parent_.end(), size_t{0}); }
  size_t find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void unite(size_t a, size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<size_t> parent_;
};

struct Group {
  std::vector<Value*> members;
  bool forced_plain = false;
  std::map<std::string, int> votes;  // format -> ops that prefer it touching the group
  int mismatches = 0;                // touches by ops that read/write plain only
};

}  // namespace

Status LayoutAssignment::run(Graph& graph, PassContext& context, bool& changed) {
  Backend* backend = context.target_backend;
  if (backend == nullptr) return Status::ok();
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());

  std::unordered_map<const Node*, FormatCapability> capabilities;
  std::unordered_map<const Value*, size_t> index;
  std::vector<Value*> values;
  for (Node* node : order) {
    if (!has_subgraph(*node)) capabilities[node] = backend->format_capability(*node);
    for (Value* output : node->outputs()) {
      index[output] = values.size();
      values.push_back(output);
    }
  }
  bool any_preference = false;
  for (const auto& [node, capability] : capabilities) {
    for (const auto& list : capability.outputs) any_preference = any_preference || !list.empty();
  }
  if (!any_preference) return Status::ok();

  // Groups: values an agnostic op ties together (same shape, one format).
  // An elementwise op that writes a graph output is a boundary: it reads plain.
  auto agnostic = [&](const Node* node) {
    auto it = capabilities.find(node);
    return it != capabilities.end() && it->second.format_agnostic && !graph.is_output(node->output(0));
  };
  UnionFind sets(values.size());
  for (Node* node : order) {
    if (!agnostic(node)) continue;
    const Value* out = node->output(0);
    for (const Value* in : node->inputs()) {
      if (in == nullptr || in->desc().shape != out->desc().shape) continue;
      auto it = index.find(in);
      if (it != index.end()) sets.unite(it->second, index.at(out));
    }
  }
  std::unordered_map<size_t, Group> groups;
  for (size_t i = 0; i < values.size(); ++i) groups[sets.find(i)].members.push_back(values[i]);
  for (Node* node : order) {
    // An agnostic op reading a same-shaped graph input or constant keeps its group plain.
    if (!agnostic(node)) continue;
    const Value* out = node->output(0);
    for (const Value* in : node->inputs()) {
      if (in != nullptr && in->desc().shape == out->desc().shape && !index.count(in)) {
        groups[sets.find(index.at(out))].forced_plain = true;
      }
    }
  }

  // Values a subgraph reads by name (If/Loop/Scan bodies capture them) stay plain: the
  // host executor hands them to kernels that know nothing of formats.
  for (Node* node : order) {
    if (!has_subgraph(*node)) continue;
    for (Value* captured : graph.implicit_inputs(*node)) {
      auto it = index.find(captured);
      if (it != index.end()) groups[sets.find(it->second)].forced_plain = true;
    }
  }
  for (auto& [root, group] : groups) {
    for (Value* value : group.members) {
      const TensorDesc& desc = value->desc();
      if (!desc.is_static() || desc.kind != ValueKind::kTensor || graph.is_output(value) || !desc.is_plain()) {
        group.forced_plain = true;
      }
      Node* producer = value->producer();
      if (!agnostic(producer)) {
        auto it = capabilities.find(producer);
        const std::vector<std::string>* formats =
            it == capabilities.end() ? nullptr : listed(it->second.outputs, value->producer_output_index());
        if (formats != nullptr && !formats->empty()) {
          ++group.votes[formats->front()];
        } else {
          ++group.mismatches;
        }
      }
      for (const Use& use : value->uses()) {
        if (agnostic(use.user)) continue;
        auto it = capabilities.find(use.user);
        const std::vector<std::string>* formats =
            it == capabilities.end() ? nullptr : listed(it->second.inputs, static_cast<size_t>(use.input_index));
        if (formats != nullptr && !formats->empty()) {
          ++group.votes[formats->front()];
        } else {
          ++group.mismatches;
        }
      }
    }
  }

  // Blocked groups, in a deterministic order (by their first member's position).
  std::vector<std::pair<size_t, std::string>> blocked;
  for (auto& [root, group] : groups) {
    if (group.forced_plain || group.votes.empty()) continue;
    auto best = std::max_element(group.votes.begin(), group.votes.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best->second <= group.mismatches) continue;  // as many reorders as ops helped
    blocked.emplace_back(index.at(group.members.front()), best->first);
  }
  std::sort(blocked.begin(), blocked.end());
  if (blocked.empty()) return Status::ok();
  ensure_opset_import(graph, "ge", 1);

  auto add_trans_data = [&](Value* input, const std::string& suffix) {
    const std::string name = graph.unique_name(input->name() + "/" + suffix);
    Node* node = graph.add_node("TransData", {input}, 1, name, {name});
    node->set_domain("ge");
    TensorDesc desc = input->desc();
    desc.format.clear();
    node->output(0)->set_desc(desc);
    return node->output(0);
  };
  for (const auto& [first, format] : blocked) {
    Group& group = groups.at(sets.find(first));
    std::vector<Value*> members = group.members;
    for (Value*& value : members) {
      // A producer that writes plain only: it keeps its plain value, a reorder makes the
      // blocked one the group's consumers read.
      Node* producer = value->producer();
      if (!agnostic(producer)) {
        auto it = capabilities.find(producer);
        if (it == capabilities.end() || !lists_format(it->second.outputs, value->producer_output_index(), format)) {
          const std::vector<Use> uses = value->uses();
          Value* reordered = add_trans_data(value, "to_" + format);
          for (const Use& use : uses) use.user->set_input(static_cast<size_t>(use.input_index), reordered);
          value = reordered;
        }
      }
    }
    for (Value* value : members) value->mutable_desc().format = format;
    for (Value* value : members) {
      // Consumers that read plain only share one reorder back.
      Value* plain = nullptr;
      const std::vector<Use> uses = value->uses();
      for (const Use& use : uses) {
        if (agnostic(use.user)) continue;
        if (use.user->domain() == "ge" && use.user->op_type() == "TransData") continue;
        auto it = capabilities.find(use.user);
        if (it != capabilities.end() && lists_format(it->second.inputs, static_cast<size_t>(use.input_index), format)) {
          continue;
        }
        if (plain == nullptr) plain = add_trans_data(value, "to_plain");
        use.user->set_input(static_cast<size_t>(use.input_index), plain);
      }
    }
  }
  changed = true;
  return Status::ok();
}

}  // namespace ge::passes
