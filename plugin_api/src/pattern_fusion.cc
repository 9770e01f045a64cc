#include "ge/plugin_api/pattern_fusion.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "ge/backend.h"
#include "ge/logging.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge {
namespace {

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
  if (context.ops == nullptr) return internal_error("pass '" + name() + "' needs PassContext::ops to infer replacements");
  std::vector<Pattern> list = patterns();
  for (const Pattern& pattern : list) GE_RETURN_IF_ERROR(pattern.validate().with_context("pass '" + name() + "'"));
  return run_on(graph, list, context, changed);
}

namespace {

struct SweepState {
  std::set<std::string> captured;
  std::unordered_set<const Node*> control;
  std::unordered_set<const Node*> removed;
};

/// Why `match` may not be rewritten, or "" when its structure allows it.
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

}  // namespace

Status PatternFusionPass::run_on(Graph& graph, const std::vector<Pattern>& list, PassContext& context, bool& changed) {
  for (int sweep = 0; sweep < max_sweeps_; ++sweep) {
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
    SweepState state;
    state.captured = captured_names(graph);
    state.control = nodes_with_control_edges(graph);
    bool fused_any = false;
    for (Node* anchor : order) {
      if (state.removed.count(anchor)) continue;
      const std::string anchor_text = anchor->describe();  // the anchor may be removed below
      for (const Pattern& pattern : list) {
        Result<Match> match = match_pattern(pattern, *anchor);
        if (!match.is_ok()) {
          // Only anchors of the root's op type are worth a line: that is where a user
          // expected the pattern to fire.
          const std::string message = match.status().message();
          if (message.rfind(anchor_text + " is not a ", 0) != 0) {
            events_.push_back({FusionEvent::Kind::kRejected, pattern.name(), anchor_text, message});
            GE_LOG_INFO("{}", events_.back().to_string(name()));
          }
          continue;
        }
        std::string reason = interior_problem(graph, *match, state);
        std::vector<Node*> matched = match->nodes();
        std::unique_ptr<Replacement> replacement;
        std::vector<Value*> outputs;
        if (reason.empty() && !meets_requirements(*match, context, reason) && reason.empty()) {
          reason = "meets_requirements() said no";
        }
        if (reason.empty()) {
          replacement = std::make_unique<Replacement>(graph, *match);
          Status built = this->replacement(*match, *replacement);
          if (!built.is_ok()) {
            if (built.code() == StatusCode::kInternal) return built.with_context(match->describe());
            reason = built.message();
          } else if (replacement->new_nodes().empty() && replacement->outputs().empty()) {
            reason = "the replacement is empty";
          }
        }
        const Node* root = match->root();
        if (reason.empty()) {
          outputs = replacement->outputs();
          const std::unordered_set<const Node*> members(matched.begin(), matched.end());
          for (Node* node : replacement->new_nodes()) {
            for (const Value* in : node->inputs()) {
              const Value* original = in != nullptr ? replacement->original_of(in) : nullptr;
              if (original != nullptr && original->producer() != nullptr && members.count(original->producer())) {
                reason = "the replacement uses %" + original->name() + ", which the rewrite removes";
              }
            }
          }
          for (size_t i = 0; reason.empty() && i < root->output_count(); ++i) {
            const Value* old = root->output(i);
            const bool used = old->has_uses() || graph.is_output(old) || state.captured.count(old->name());
            if (!used) continue;
            if (outputs[i] == nullptr) {
              reason = "the replacement gives no value for output " + std::to_string(i) + " %" + old->name();
            } else if (const Value* original = replacement->original_of(outputs[i]); original != nullptr) {
              if (original->producer() != nullptr && members.count(original->producer())) {
                reason = "the replacement's output " + std::to_string(i) + " is %" + original->name() +
                         ", which the rewrite removes";
              } else if (graph.is_output(old) || state.captured.count(old->name())) {
                reason = "output %" + old->name() + " is a graph output or captured, and the replacement would rename it";
              }
            }
          }
        }
        if (reason.empty()) {
          Status inferred = context.ops->infer_graph(replacement->scratch());
          if (!inferred.is_ok()) reason = "the replacement does not infer: " + inferred.message();
        }
        for (size_t i = 0; reason.empty() && i < root->output_count(); ++i) {
          if (outputs[i] == nullptr || replacement->original_of(outputs[i]) != nullptr) continue;
          const TensorDesc& before = root->output(i)->desc();
          const TensorDesc& after = outputs[i]->desc();
          if (!same_type_and_shape(before, after)) {
            reason = "the replacement's output " + std::to_string(i) + " infers to " + after.to_string() +
                     ", the matched output %" + root->output(i)->name() + " is " + before.to_string();
          }
        }
        if (reason.empty() && context.target_backend != nullptr) {
          for (const Node* node : replacement->new_nodes()) {
            std::string why;
            if (!context.target_backend->supports(*node, &why)) {
              reason = "backend '" + context.target_backend->name() + "' does not support the replacement " +
                       node->describe() + (why.empty() ? "" : ": " + why);
              break;
            }
          }
        }
        if (!reason.empty()) {
          events_.push_back({FusionEvent::Kind::kRejected, pattern.name(), anchor_text, reason});
          GE_LOG_INFO("{}", events_.back().to_string(name()));
          continue;
        }

        // ---- commit: copy the scratch nodes in, rewire, remove the match ----
        std::map<const Value*, Value*> real;  // scratch value -> graph value
        std::map<const Value*, size_t> replaces;  // scratch value -> root output it replaces
        for (size_t i = 0; i < outputs.size(); ++i) {
          if (outputs[i] != nullptr && !replaces.count(outputs[i])) replaces[outputs[i]] = i;
        }
        const std::unordered_set<const Node*> members(matched.begin(), matched.end());
        for (Value* constant : replacement->new_constants()) {
          std::string value_name = graph.find_value(constant->name()) == nullptr ? constant->name()
                                                                                  : graph.unique_name(constant->name());
          real[constant] = graph.add_initializer(value_name, *constant->constant());
        }
        std::string fused_text;
        for (Node* node : replacement->new_nodes()) {
          std::vector<Value*> inputs;
          for (Value* in : node->inputs()) {
            if (in == nullptr) {
              inputs.push_back(nullptr);
            } else if (Value* original = replacement->original_of(in)) {
              inputs.push_back(original);
            } else {
              inputs.push_back(real.at(in));
            }
          }
          std::string node_name = node->name();
          if (Node* existing = graph.find_node(node_name); existing != nullptr && !members.count(existing)) {
            node_name = graph.unique_name(node_name);
          }
          std::vector<std::string> output_names;
          for (const Value* out : node->outputs()) {
            auto it = replaces.find(out);
            // A replacing value takes the replaced one's name (shared until the match is
            // removed below), so graph outputs and captures keep their names.
            output_names.push_back(it != replaces.end() ? root->output(it->second)->name()
                                   : graph.find_value(out->name()) == nullptr ? out->name()
                                                                              : graph.unique_name(out->name()));
          }
          Node* added = graph.add_node(node->op_type(), inputs, node->output_count(), node_name, output_names,
                                       node->domain());
          for (const auto& [key, attribute] : node->attributes()) added->set_attribute(key, attribute);
          for (size_t i = 0; i < node->output_count(); ++i) {
            added->output(i)->set_desc(node->output(i)->desc());
            real[node->output(i)] = added->output(i);
          }
          if (!node->domain().empty() && node->domain() != "ai.onnx") {
            ensure_opset_import(graph, node->domain(), replacement->scratch().opset_version(node->domain()));
          }
          fused_text += (fused_text.empty() ? "" : ", ") + added->describe();
        }
        for (size_t i = 0; i < outputs.size(); ++i) {
          if (outputs[i] == nullptr) continue;
          Value* original = replacement->original_of(outputs[i]);
          graph.replace_all_uses(root->output(i), original != nullptr ? original : real.at(outputs[i]));
        }
        for (Node* node : matched) {
          for (size_t i = 0; i < node->input_count(); ++i) node->set_input(i, nullptr);
        }
        for (Node* node : matched) {
          Status removed = graph.remove_node(node);
          if (!removed.is_ok()) return internal_error("pass '" + name() + "': " + removed.message());
          state.removed.insert(node);
        }
        events_.push_back({FusionEvent::Kind::kFused, pattern.name(), anchor_text,
                           "replaced by " + (fused_text.empty() ? std::string("existing values") : fused_text)});
        GE_LOG_INFO("{}", events_.back().to_string(name()));
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
