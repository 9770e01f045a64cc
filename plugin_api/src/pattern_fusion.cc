// The pattern-fusion pass driver (ge/plugin_api/pattern_fusion.h).
#include "ge/plugin_api/pattern_fusion.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <unordered_set>

#include "ge/plugin_api/backend.h"
#include "ge/logging.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge {
namespace {

/// Nodes with control edges in either direction: a rewrite would lose those edges.
std::unordered_set<const Node*> nodes_with_control_edges(const Graph& graph) {
  std::unordered_set<const Node*> nodes;
  for (const auto& node : graph.nodes()) {
    if (!node->control_predecessors().empty()) {
      nodes.insert(node.get());
      for (const Node* p : node->control_predecessors()) nodes.insert(p);
    }
  }
  return nodes;
}

}  // namespace

std::string FusionEvent::to_string(const std::string& pass_name) const {
  return pass_name + ": pattern '" + pattern + "' at " + anchor + ": " + (kind == Kind::kFused ? "fused: " : "rejected: ") +
         reason;
}

bool PatternFusionPass::meets_requirements(const Match&, const PassContext&, std::string&) const { return true; }

Status PatternFusionPass::run(Graph& graph, PassContext& context, bool& changed) {
  events_.clear();
  reported_.clear();
  if (context.ops == nullptr) return internal_error("pass '" + name() + "' needs PassContext::ops to infer replacements");
  std::vector<Pattern> list = patterns();
  for (const Pattern& pattern : list) GE_RETURN_IF_ERROR(pattern.validate().with_context("pass '" + name() + "'"));
  GE_RETURN_IF_ERROR(run_on(graph, list, context, changed));
  if (!events_.empty()) {
    const auto fused = std::count_if(events_.begin(), events_.end(),
                                     [](const FusionEvent& e) { return e.kind == FusionEvent::Kind::kFused; });
    const auto rejected = static_cast<std::ptrdiff_t>(events_.size()) - fused;
    GE_LOG_INFO("{}: {} fused, {} rejected{}", name(), fused, rejected, rejected > 0 ? " (-vv lists why)" : "");
  }
  return Status::ok();
}

namespace {

struct SweepState {
  std::set<std::string> captured;                  // names subgraphs capture
  std::unordered_set<const Node*> control;         // nodes with control edges
  std::unordered_set<const Node*> removed;         // matched nodes rewritten this sweep
  // Names in use, kept up to date by commit(): Graph::find_value/find_node are linear.
  std::unordered_set<std::string> node_names, value_names;
  uint64_t counter = 0;

  explicit SweepState(const Graph& graph) {
    for (const auto& node : graph.nodes()) {
      node_names.insert(node->name());
      for (const Value* out : node->outputs()) value_names.insert(out->name());
    }
    for (const auto* list : {&graph.inputs(), &graph.initializers(), &graph.captures()}) {
      for (const Value* v : *list) value_names.insert(v->name());
    }
  }
  /// `hint` when no node (`nodes`) or value uses it, else `hint_N`.
  std::string fresh(const std::string& hint, bool nodes) {
    const std::unordered_set<std::string>& taken = nodes ? node_names : value_names;
    std::string name = hint;
    while (name.empty() || taken.count(name)) name = hint + "_" + std::to_string(counter++);
    return name;
  }
};

/// Why `match` may not be rewritten as it stands in the graph, or "".
std::string interior_problem(const Graph& graph, const Match& match, const SweepState& state) {
  const std::vector<Node*> nodes = match.nodes();
  const std::unordered_set<const Node*> members(nodes.begin(), nodes.end());
  for (const Node* node : nodes) {
    if (state.control.count(node)) return node->describe() + " has control edges";
    if (node == match.root()) continue;
    for (const Value* out : node->outputs()) {
      if (graph.is_output(out)) return "interior value %" + out->name() + " of " + node->describe() + " is a graph output";
      if (!out->name().empty() && state.captured.count(out->name())) {
        return "interior value %" + out->name() + " of " + node->describe() + " is captured by a subgraph";
      }
      for (const Use& use : out->uses()) {
        if (!members.count(use.user)) {
          return "interior value %" + out->name() + " of " + node->describe() + " has a user outside the match: " +
                 use.user->describe();
        }
      }
    }
  }
  return {};
}

/// Why the replacement's wiring does not fit the match, or "": it may only read values
/// that stay, and must give a value for every root output that is used.
std::string wiring_problem(const Graph& graph, const Match& match, const Replacement& replacement,
                           const SweepState& state) {
  const std::vector<Node*> nodes = match.nodes();
  const std::unordered_set<const Node*> members(nodes.begin(), nodes.end());
  auto removed_by_rewrite = [&](const Value* original) {
    return original != nullptr && original->producer() != nullptr && members.count(original->producer()) != 0;
  };
  for (const Node* node : replacement.new_nodes()) {
    for (const Value* in : node->inputs()) {
      const Value* original = in != nullptr ? replacement.original_of(in) : nullptr;
      if (removed_by_rewrite(original)) return "the replacement uses %" + original->name() + ", which the rewrite removes";
    }
  }
  const Node* root = match.root();
  const std::vector<Value*> outputs = replacement.outputs();
  for (size_t i = 0; i < root->output_count(); ++i) {
    const Value* old = root->output(i);
    const bool named_use = graph.is_output(old) || state.captured.count(old->name()) != 0;
    if (!old->has_uses() && !named_use) continue;
    if (outputs[i] == nullptr) return "the replacement gives no value for output " + std::to_string(i) + " %" + old->name();
    const Value* original = replacement.original_of(outputs[i]);
    if (removed_by_rewrite(original)) {
      return "the replacement's output " + std::to_string(i) + " is %" + original->name() + ", which the rewrite removes";
    }
    if (original != nullptr && named_use) {
      return "output %" + old->name() + " is a graph output or captured, and the replacement would rename it";
    }
  }
  return {};
}

/// A replacement dim is acceptable where the matched output's dim is unknown, or equal.
bool same_type_and_shape(const TensorDesc& matched, const TensorDesc& replacement) {
  if (matched.kind != replacement.kind || matched.dtype != replacement.dtype) return false;
  if (!matched.has_rank()) return true;
  if (!replacement.has_rank() || replacement.rank() != matched.rank()) return false;
  for (size_t i = 0; i < matched.shape->size(); ++i) {
    const Dim& m = (*matched.shape)[i];
    const Dim& r = (*replacement.shape)[i];
    if (m.is_static() && !(r.is_static() && r.value == m.value)) return false;
    if (!m.is_static() && !m.symbol.empty() && !r.is_static() && !r.symbol.empty() && r.symbol != m.symbol) return false;
  }
  return true;
}

/// Infers the replacement and compares it with what it replaces; "" when it fits.
std::string inference_problem(const OpRegistry& ops, const Match& match, Replacement& replacement) {
  Status inferred = ops.infer_graph(replacement.scratch());
  if (!inferred.is_ok()) return "the replacement does not infer: " + inferred.message();
  const Node* root = match.root();
  const std::vector<Value*> outputs = replacement.outputs();
  for (size_t i = 0; i < root->output_count(); ++i) {
    if (outputs[i] == nullptr || replacement.original_of(outputs[i]) != nullptr) continue;
    const TensorDesc& before = root->output(i)->desc();
    const TensorDesc& after = outputs[i]->desc();
    if (!same_type_and_shape(before, after)) {
      return "the replacement's output " + std::to_string(i) + " infers to " + after.to_string() +
             ", the matched output %" + root->output(i)->name() + " is " + before.to_string();
    }
  }
  return {};
}

std::string backend_problem(Backend* backend, const Replacement& replacement) {
  if (backend == nullptr) return {};
  for (const Node* node : replacement.new_nodes()) {
    std::string why;
    if (!backend->supports(*node, &why)) {
      return "backend '" + backend->name() + "' does not support the replacement " + node->describe() +
             (why.empty() ? "" : ": " + why);
    }
  }
  return {};
}

/// Copies the replacement into `graph`, rewires the root's users and removes the match.
/// Returns the new nodes, described, for the log.
Result<std::string> commit(Graph& graph, const Match& match, const Replacement& replacement, SweepState& state) {
  const std::vector<Node*> matched = match.nodes();
  const Node* root = match.root();
  const std::vector<Value*> outputs = replacement.outputs();
  std::map<const Value*, size_t> replaces;  // scratch value -> root output it replaces
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] != nullptr && !replaces.count(outputs[i])) replaces[outputs[i]] = i;
  }
  std::map<const Value*, Value*> real;  // scratch value -> graph value
  for (Value* constant : replacement.new_constants()) {
    const std::string name = state.fresh(constant->name(), false);
    state.value_names.insert(name);
    real[constant] = graph.add_initializer(name, *constant->constant());
  }
  auto graph_value = [&](Value* scratch_value) -> Value* {
    if (scratch_value == nullptr) return nullptr;
    if (Value* original = replacement.original_of(scratch_value)) return original;
    return real.at(scratch_value);
  };
  std::string description;
  for (Node* node : replacement.new_nodes()) {
    std::vector<Value*> inputs;
    for (Value* in : node->inputs()) inputs.push_back(graph_value(in));
    // A name of a matched node may be reused: that node is removed below.
    const bool matched_name = std::any_of(matched.begin(), matched.end(), [&](const Node* m) { return m->name() == node->name(); });
    const std::string node_name = matched_name ? node->name() : state.fresh(node->name(), true);
    state.node_names.insert(node_name);
    // A replacing value takes the replaced one's name (shared until the match is removed
    // below), so graph outputs and captures keep their names.
    std::vector<std::string> output_names;
    for (const Value* out : node->outputs()) {
      auto it = replaces.find(out);
      output_names.push_back(it != replaces.end() ? root->output(it->second)->name() : state.fresh(out->name(), false));
      state.value_names.insert(output_names.back());
    }
    Node* added = graph.add_node(node->op_type(), inputs, node->output_count(), node_name, output_names, node->domain());
    for (const auto& [key, attribute] : node->attributes()) added->set_attribute(key, attribute);
    for (size_t i = 0; i < node->output_count(); ++i) {
      added->output(i)->set_desc(node->output(i)->desc());
      real[node->output(i)] = added->output(i);
    }
    if (!node->domain().empty() && node->domain() != "ai.onnx") {
      ensure_opset_import(graph, node->domain(), replacement.scratch_opset(node->domain()));
    }
    description += (description.empty() ? "" : ", ") + added->describe();
  }
  std::vector<std::string> root_names;  // root is removed below; its replaced names live on
  for (size_t i = 0; i < outputs.size(); ++i) {
    root_names.push_back(root->output(i)->name());
    if (outputs[i] != nullptr) graph.replace_all_uses(root->output(i), graph_value(outputs[i]));
  }
  for (Node* node : matched) {
    for (size_t i = 0; i < node->input_count(); ++i) node->set_input(i, nullptr);
  }
  for (Node* node : matched) {
    // The names of a removed node and its outputs are free again, unless reused above.
    std::vector<std::string> freed;
    for (const Value* out : node->outputs()) freed.push_back(out->name());
    const std::string freed_node = node->name();
    Status removed = graph.remove_node(node);
    if (!removed.is_ok()) return internal_error(removed.message());
    state.removed.insert(node);
    if (std::none_of(replacement.new_nodes().begin(), replacement.new_nodes().end(),
                     [&](const Node* n) { return n->name() == freed_node; })) {
      state.node_names.erase(freed_node);
    }
    for (const std::string& name : freed) {
      bool reused = false;
      for (size_t i = 0; i < outputs.size(); ++i) reused = reused || (outputs[i] != nullptr && root_names[i] == name);
      if (!reused) state.value_names.erase(name);
    }
  }
  return "replaced by " + (description.empty() ? std::string("existing values") : description);
}

}  // namespace

void PatternFusionPass::report(FusionEvent event) {
  const std::string line = event.to_string(name());
  if (event.kind == FusionEvent::Kind::kRejected) {
    if (!reported_.insert(line).second) return;
    // A large model meets hundreds of near misses: keep them out of -v.
    GE_LOG_DEBUG("{}", line);
  } else {
    GE_LOG_INFO("{}", line);
  }
  events_.push_back(std::move(event));
}

Status PatternFusionPass::run_on(Graph& graph, const std::vector<Pattern>& list, PassContext& context, bool& changed) {
  for (int sweep = 0; sweep < max_sweeps_; ++sweep) {
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
    SweepState state(graph);
    state.captured = captured_names(graph);
    state.control = nodes_with_control_edges(graph);
    bool fused_any = false;
    // Consumers first: the largest pattern rooted at the end of a chain wins over a
    // smaller one rooted inside it (x*0.5*(1+erf(..)) before the inner x*0.5).
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* anchor = *it;
      if (state.removed.count(anchor)) continue;
      std::string anchor_text;  // described once a pattern's root fits (the anchor may be removed below)
      const std::string key = anchor->domain().empty() || anchor->domain() == "ai.onnx"
                                  ? anchor->op_type()
                                  : anchor->domain() + "::" + anchor->op_type();
      for (const Pattern& pattern : list) {
        // Only anchors of the root's op type are tried, and worth a line when they fail:
        // that is where a user expected the pattern to fire.
        const std::vector<std::string>& root_types = pattern.root().types();
        if (std::find(root_types.begin(), root_types.end(), key) == root_types.end()) continue;
        if (anchor_text.empty()) anchor_text = anchor->describe();
        Result<Match> match = match_pattern(pattern, *anchor);
        if (!match.is_ok()) {
          report({FusionEvent::Kind::kRejected, pattern.name(), anchor_text, match.status().message()});
          continue;
        }
        std::string reason = interior_problem(graph, *match, state);
        if (reason.empty() && !meets_requirements(*match, context, reason) && reason.empty()) {
          reason = "meets_requirements() said no";
        }
        Replacement built(graph, *match);
        if (reason.empty()) {
          Status status = replacement(*match, built);
          if (status.code() == StatusCode::kInternal) return status.with_context(match->describe());
          if (!status.is_ok()) reason = status.message();
        }
        if (reason.empty() && built.new_nodes().empty()) {
          const std::vector<Value*> outputs = built.outputs();
          if (std::all_of(outputs.begin(), outputs.end(), [](const Value* v) { return v == nullptr; })) {
            reason = "the replacement is empty";
          }
        }
        if (reason.empty()) reason = wiring_problem(graph, *match, built, state);
        if (reason.empty()) reason = inference_problem(*context.ops, *match, built);
        if (reason.empty()) reason = backend_problem(context.target_backend, built);
        if (!reason.empty()) {
          report({FusionEvent::Kind::kRejected, pattern.name(), anchor_text, reason});
          continue;
        }
        Result<std::string> done = commit(graph, *match, built, state);
        if (!done.is_ok()) return internal_error("pass '" + name() + "': " + done.status().message());
        report({FusionEvent::Kind::kFused, pattern.name(), anchor_text, *done});
        changed = true;
        fused_any = true;
        break;  // the anchor is gone
      }
    }
    if (!fused_any) break;
  }
  for (const auto& node : graph.nodes()) {
    for (Graph* sub : node->subgraphs()) GE_RETURN_IF_ERROR(run_on(*sub, list, context, changed));
  }
  return Status::ok();
}

}  // namespace ge
