// Structural checks on a Graph (ge/verifier.h).
#include "ge/verifier.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ge {
namespace {

// Graphs nested deeper than this are reported instead of recursed into, so a graph that
// (wrongly) holds itself cannot overflow the stack.
constexpr int kMaxGraphNesting = 64;

bool is_plain_value_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Values are named as in the text IR: %x, or %"odd name" when the name needs quoting.
std::string value_text(const Value& v) {
  if (is_plain_value_name(v.name())) return "%" + v.name();
  std::string out = "%\"";
  for (char c : v.name()) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string graph_text(const Graph& g) { return "graph '" + g.name() + "'"; }

// Owners of every value and node reachable from the outermost graph: lets a message name
// a foreign value or node without dereferencing a pointer no graph owns.
struct Ownership {
  std::unordered_map<const Value*, const Graph*> values;
  std::unordered_map<const Node*, const Graph*> nodes;

  explicit Ownership(const Graph& any) {
    const Graph* root = &any;
    std::unordered_set<const Graph*> seen{root};
    while (root->parent() && seen.insert(root->parent()).second) root = root->parent();
    std::unordered_set<const Graph*> visited;
    add(*root, visited);
  }

  void add(const Graph& g, std::unordered_set<const Graph*>& visited) {
    if (!visited.insert(&g).second) return;
    for (const Value* v : g.inputs()) values.emplace(v, &g);
    for (const Value* v : g.initializers()) values.emplace(v, &g);
    for (const Value* v : g.captures()) values.emplace(v, &g);
    for (const auto& node : g.nodes()) {
      nodes.emplace(node.get(), &g);
      for (const Value* v : node->outputs()) values.emplace(v, &g);
    }
    for (const auto& node : g.nodes())
      for (const auto& [name, attr] : node->attributes()) {
        if (attr.holds<Attribute::GraphPtr>()) {
          if (const auto& sub = attr.get<Attribute::GraphPtr>()) add(*sub, visited);
        } else if (attr.holds<std::vector<Attribute::GraphPtr>>()) {
          for (const auto& sub : attr.get<std::vector<Attribute::GraphPtr>>())
            if (sub) add(*sub, visited);
        }
      }
  }
};

bool is_ancestor(const Graph* maybe_ancestor, const Graph& g) {
  int steps = 0;
  for (const Graph* p = g.parent(); p && steps < 1024; p = p->parent(), ++steps)
    if (p == maybe_ancestor) return true;
  return false;
}

class Verifier {
 public:
  explicit Verifier(const Graph& top) : top_(top) {}

  Status verify(const Graph& g, const std::string& where, int depth) {
    if (depth > kMaxGraphNesting)
      return fail(where, "subgraphs are nested more than " + std::to_string(kMaxGraphNesting) +
                             " deep (does a graph hold itself?)");
    Scope scope{g, where, {}, {}, {}, {}};
    GE_RETURN_IF_ERROR(check_definitions(scope));
    for (const auto& node : g.nodes()) GE_RETURN_IF_ERROR(check_node(scope, *node));
    for (const Value* v : scope.order) GE_RETURN_IF_ERROR(check_uses(scope, *v));
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      const Value* v = g.outputs()[i];
      std::string what = "graph output #" + std::to_string(i);
      if (!v) return fail(where, what + " is null");
      if (!scope.roles.count(v)) return fail(where, what + " " + foreign_value(g, v));
      if (v->name().empty())
        return fail(where, what + " is " + scope.roles[v] + ", which is unnamed (an omitted output)");
    }
    GE_RETURN_IF_ERROR(check_captures(scope));
    for (const auto& node : g.nodes()) GE_RETURN_IF_ERROR(check_subgraphs(scope, *node, depth));
    auto order = g.topological_order();
    if (!order.is_ok()) {
      // The message already names the graph; only a nested graph needs its location.
      std::string cycle = order.status().message();
      return invalid_argument(where == graph_text(g) ? cycle : where + ": " + cycle);
    }
    return Status::ok();
  }

 private:
  struct Scope {
    const Graph& g;
    const std::string& where;
    std::unordered_map<const Value*, std::string> roles;  // every value this graph defines
    std::vector<const Value*> order;                      // the same, in definition order
    std::unordered_set<const Node*> nodes;
    std::unordered_map<const Value*, size_t> reads;  // input slots reading each value
  };

  static Status fail(const std::string& where, const std::string& message) {
    return invalid_argument(where + ": " + message);
  }

  Ownership& ownership() {
    if (!ownership_) ownership_ = std::make_unique<Ownership>(top_);
    return *ownership_;
  }

  // Why `v` (not defined by `g`) may not be referenced from `g`.
  std::string foreign_value(const Graph& g, const Value* v) {
    auto it = ownership().values.find(v);
    if (it == ownership().values.end())
      return "refers to a value outside this graph and the graphs around and inside it (a removed value?)";
    std::string text = "is " + value_text(*v) + " of " + graph_text(*it->second) + ", not a value of this graph";
    if (is_ancestor(it->second, g)) text += "; a subgraph must use an enclosing value through a capture";
    return text;
  }

  // Names a node through a pointer that may not be trustworthy (a broken back-pointer).
  std::string node_text(const Node* n) {
    if (!n) return "no node";
    return ownership().nodes.count(n) ? n->describe() : "a node outside this graph and the graphs around and inside it";
  }

  // Why node `n` (not in the graph being checked) may not be referenced from it.
  std::string foreign_node(const Node* n) {
    auto it = ownership().nodes.find(n);
    if (it == ownership().nodes.end())
      return "refers to a node outside this graph and the graphs around and inside it (a removed node?)";
    return "is " + n->describe() + " of " + graph_text(*it->second) + ", not a node of this graph";
  }

  Status add_definition(Scope& scope, const Value* v, const std::string& role) {
    auto [it, inserted] = scope.roles.emplace(v, role);
    if (!inserted) return fail(scope.where, role + " is " + value_text(*v) + ", which is already the " + it->second);
    scope.order.push_back(v);
    return Status::ok();
  }

  Status check_owned(const Scope& scope, const Value& v, const std::string& role) {
    if (v.graph() != &scope.g) {
      std::string owner = v.graph() ? graph_text(*v.graph()) : "no graph";
      return fail(scope.where, role + " " + value_text(v) + " says it belongs to " + owner);
    }
    return Status::ok();
  }

  Status check_definitions(Scope& scope) {
    const Graph& g = scope.g;
    const std::string& where = scope.where;
    std::unordered_set<const Value*> inputs(g.inputs().begin(), g.inputs().end());
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Value* v = g.inputs()[i];
      std::string role = "graph input #" + std::to_string(i);
      if (!v) return fail(where, role + " is null");
      GE_RETURN_IF_ERROR(check_owned(scope, *v, role));
      if (v->name().empty()) return fail(where, role + " has an empty name");
      if (!v->is_graph_input()) return fail(where, role + " " + value_text(*v) + " is not marked as a graph input");
      if (v->producer())
        return fail(where, role + " " + value_text(*v) + " has a producer, " + node_text(v->producer()));
      GE_RETURN_IF_ERROR(add_definition(scope, v, role));
    }
    std::unordered_set<const Value*> initializers;
    for (size_t i = 0; i < g.initializers().size(); ++i) {
      const Value* v = g.initializers()[i];
      std::string role = "initializer #" + std::to_string(i);
      if (!v) return fail(where, role + " is null");
      if (!initializers.insert(v).second)
        return fail(where, role + " is " + value_text(*v) + ", which is listed as an initializer twice");
      GE_RETURN_IF_ERROR(check_owned(scope, *v, role));
      if (v->name().empty()) return fail(where, role + " has an empty name");
      if (!v->is_constant()) return fail(where, role + " " + value_text(*v) + " has no data");
      if (v->producer())
        return fail(where, role + " " + value_text(*v) + " has a producer, " + node_text(v->producer()));
      if (v->is_graph_input() && !inputs.count(v))
        return fail(where, role + " " + value_text(*v) + " is marked as a graph input but is not in the input list");
      GE_RETURN_IF_ERROR(check_initializer_type(scope, *v, role));
      if (!inputs.count(v)) GE_RETURN_IF_ERROR(add_definition(scope, v, role));
    }
    for (size_t i = 0; i < g.captures().size(); ++i) {
      const Value* v = g.captures()[i];
      std::string role = "capture #" + std::to_string(i);
      if (!v) return fail(where, role + " is null");
      GE_RETURN_IF_ERROR(check_owned(scope, *v, role));
      if (!v->is_capture()) return fail(where, role + " " + value_text(*v) + " is not marked as a capture");
      if (v->name().empty()) return fail(where, role + " has an empty name, so it cannot name an enclosing value");
      GE_RETURN_IF_ERROR(add_definition(scope, v, role));
    }
    for (const auto& node : g.nodes()) {
      if (node->graph() != &g)
        return fail(where, node->describe() + " says it belongs to " +
                               (node->graph() ? graph_text(*node->graph()) : std::string("no graph")));
      scope.nodes.insert(node.get());
      for (size_t i = 0; i < node->outputs().size(); ++i) {
        const Value* v = node->outputs()[i];
        std::string role = "output #" + std::to_string(i) + " of " + node->describe();
        if (!v) return fail(where, role + " is null");
        GE_RETURN_IF_ERROR(check_owned(scope, *v, role));
        if (v->producer() != node.get() || v->producer_output_index() != static_cast<int>(i)) {
          std::string producer = node_text(v->producer());
          return fail(where, role + " " + value_text(*v) + " names its producer as output #" +
                                 std::to_string(v->producer_output_index()) + " of " + producer);
        }
        GE_RETURN_IF_ERROR(add_definition(scope, v, role));
      }
    }
    // Omitted optional outputs all have the empty name; every other name is unique.
    std::unordered_map<std::string, const Value*> by_name;
    for (const Value* v : scope.order) {
      if (v->name().empty()) continue;
      auto [it, inserted] = by_name.emplace(v->name(), v);
      if (!inserted)
        return fail(where, "value name " + value_text(*v) + " is defined twice: by " + scope.roles[it->second] +
                               " and by " + scope.roles[v]);
    }
    return Status::ok();
  }

  // The declared type may be less specific than the data (an overridable initializer may
  // declare symbolic dims, an undefined dtype or an unknown rank) but never contradict it.
  Status check_initializer_type(const Scope& scope, const Value& v, const std::string& role) {
    const Tensor& data = *v.constant();
    const TensorDesc& desc = v.desc();
    bool ok = desc.kind == ValueKind::kTensor &&
              (desc.dtype == data.dtype() || desc.dtype == DataType::kUndefined);  // undefined: not yet known
    if (ok && desc.shape) {
      ok = desc.shape->size() == data.shape().size();
      for (size_t i = 0; ok && i < desc.shape->size(); ++i)
        if ((*desc.shape)[i].is_static() && (*desc.shape)[i].value != data.shape()[i]) ok = false;
    }
    if (!ok) {
      std::string shape = "[";
      for (size_t i = 0; i < data.shape().size(); ++i) shape += (i ? "," : "") + std::to_string(data.shape()[i]);
      return fail(scope.where, role + " " + value_text(v) + " is declared " + desc.to_string() + " but its data is " +
                                   std::string(data_type_name(data.dtype())) + shape + "]");
    }
    return Status::ok();
  }

  Status check_node(Scope& scope, const Node& node) {
    const std::string& where = scope.where;
    for (size_t i = 0; i < node.inputs().size(); ++i) {
      const Value* v = node.inputs()[i];
      if (!v) continue;  // an omitted optional input
      if (!scope.roles.count(v))
        return fail(where, node.describe() + ": input #" + std::to_string(i) + " " + foreign_value(scope.g, v));
      ++scope.reads[v];
    }
    for (size_t i = 0; i < node.control_predecessors().size(); ++i) {
      const Node* pred = node.control_predecessors()[i];
      if (pred && scope.nodes.count(pred)) continue;
      std::string what = node.describe() + ": control predecessor #" + std::to_string(i);
      if (!pred) return fail(where, what + " is null");
      return fail(where, what + " " + foreign_node(pred));
    }
    return Status::ok();
  }

  struct UseHash {
    size_t operator()(const Use& use) const {
      return std::hash<const Node*>()(use.user) * 31 + static_cast<size_t>(use.input_index);
    }
  };

  // Each use-list entry must be a distinct input slot that reads the value; then the list
  // is complete exactly when it is as long as the number of slots reading the value. This
  // keeps the check linear even for values with very many uses.
  Status check_uses(Scope& scope, const Value& v) {
    const std::string& where = scope.where;
    std::string what = "value " + value_text(v);
    // The empty name marks an omitted optional output, which nothing may read.
    if (v.name().empty() && v.has_uses())
      return fail(where, scope.roles[&v] + " is unnamed (an omitted output) but has " +
                             std::to_string(v.uses().size()) + " use(s)");
    std::unordered_set<Use, UseHash> listed;
    for (const Use& use : v.uses()) {
      if (!use.user) return fail(where, what + " has a use with no user node");
      if (!scope.nodes.count(use.user)) {
        auto owner = ownership().nodes.find(use.user);
        if (owner == ownership().nodes.end())
          return fail(where, what +
                                 " lists a use by a node outside this graph and the graphs around and inside it "
                                 "(a removed node?)");
        std::string user = use.user->describe() + " of " + graph_text(*owner->second);
        if (is_ancestor(&scope.g, *owner->second))
          return fail(where, what + " is used directly by " + user +
                                 "; a subgraph must use an enclosing value through a capture");
        return fail(where, what + " lists a use by " + user + ", which is not a node of this graph");
      }
      auto use_text = [&] { return use.user->describe() + " input #" + std::to_string(use.input_index); };
      if (use.input_index < 0 || static_cast<size_t>(use.input_index) >= use.user->input_count())
        return fail(where, what + " lists a use by " + use_text() + ", but that node has only " +
                               std::to_string(use.user->input_count()) + " inputs");
      const Value* actual = use.user->input(static_cast<size_t>(use.input_index));
      if (actual != &v)
        return fail(where,
                    what + " lists a use by " + use_text() + ", but that input is " +
                        (actual ? (scope.roles.count(actual) ? value_text(*actual) : std::string("another value"))
                                : std::string("omitted")));
      if (!listed.insert(use).second) return fail(where, what + " lists its use by " + use_text() + " twice");
    }
    auto reads = scope.reads.find(&v);
    size_t read_count = reads == scope.reads.end() ? 0 : reads->second;
    if (listed.size() != read_count) {
      for (const auto& node : scope.g.nodes())
        for (size_t i = 0; i < node->input_count(); ++i)
          if (node->input(i) == &v && !listed.count(Use{node.get(), static_cast<int>(i)}))
            return fail(where, node->describe() + ": input #" + std::to_string(i) + " is " + value_text(v) +
                                   ", but the use list of " + value_text(v) + " has no entry for it");
    }
    return Status::ok();
  }

  // Captures resolve by name through the enclosing graphs, innermost first.
  Status check_captures(Scope& scope) {
    const Graph& g = scope.g;
    for (const Value* capture : g.captures()) {
      if (!g.parent())
        return fail(scope.where, "capture " + value_text(*capture) + " cannot resolve: " + graph_text(g) +
                                     " has no enclosing graph");
      bool found = false;
      int steps = 0;
      for (const Graph* p = g.parent(); p && !found && steps < 1024; p = p->parent(), ++steps)
        found = names_of(*p).count(capture->name()) != 0;
      if (!found)
        return fail(scope.where, "capture " + value_text(*capture) + " does not name a value of any enclosing graph");
    }
    return Status::ok();
  }

  const std::unordered_set<std::string>& names_of(const Graph& g) {
    auto [it, inserted] = names_.try_emplace(&g);
    std::unordered_set<std::string>& names = it->second;
    if (inserted) {
      auto add = [&names](const Value* v) {
        if (v && !v->name().empty()) names.insert(v->name());
      };
      for (const Value* v : g.inputs()) add(v);
      for (const Value* v : g.initializers()) add(v);
      for (const Value* v : g.captures()) add(v);
      for (const auto& node : g.nodes())
        for (const Value* v : node->outputs()) add(v);
    }
    return names;
  }

  Status check_subgraphs(Scope& scope, const Node& node, int depth) {
    for (const auto& [name, attr] : node.attributes()) {
      std::vector<const Graph*> graphs;
      if (attr.holds<Attribute::GraphPtr>()) {
        graphs.push_back(attr.get<Attribute::GraphPtr>().get());
      } else if (attr.holds<std::vector<Attribute::GraphPtr>>()) {
        for (const auto& sub : attr.get<std::vector<Attribute::GraphPtr>>()) graphs.push_back(sub.get());
      } else {
        continue;
      }
      for (size_t i = 0; i < graphs.size(); ++i) {
        std::string attr_text =
            "attribute '" + name + "'" + (attr.holds<Attribute::GraphPtr>() ? std::string() : " #" + std::to_string(i));
        const Graph* sub = graphs[i];
        if (!sub) return fail(scope.where, node.describe() + ": " + attr_text + " holds a null graph");
        if (sub->parent() != &scope.g)
          return fail(scope.where, node.describe() + ": " + attr_text + " holds " + graph_text(*sub) +
                                       " whose parent is " +
                                       (sub->parent() ? graph_text(*sub->parent()) : std::string("not set")) +
                                       " instead of this graph");
        std::string where = graph_text(*sub) + " (" + attr_text + " of " + node.describe() + " in " + scope.where + ")";
        GE_RETURN_IF_ERROR(verify(*sub, where, depth + 1));
      }
    }
    return Status::ok();
  }

  const Graph& top_;
  std::unique_ptr<Ownership> ownership_;
  std::unordered_map<const Graph*, std::unordered_set<std::string>> names_;
};

}  // namespace

Status verify_graph(const Graph& graph) { return Verifier(graph).verify(graph, graph_text(graph), 0); }

}  // namespace ge
