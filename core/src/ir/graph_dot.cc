// Graphviz DOT export of a graph (core/src/ir/graph_dot.h).
#include "graph_dot.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ge {
namespace {

// A DOT double-quoted string. Control characters other than newline would not survive
// Graphviz, so they show as '?'.
std::string dot_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      out += '?';
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string type_text(const TensorDesc& desc) {
  std::string element = desc.dtype == DataType::kUndefined ? "undefined" : std::string(data_type_name(desc.dtype));
  if (!desc.shape) {
    element += "[*]";
  } else {
    element += '[';
    for (size_t i = 0; i < desc.shape->size(); ++i) {
      const Dim& d = (*desc.shape)[i];
      if (i) element += ',';
      element += !d.symbol.empty() ? d.symbol : d.value >= 0 ? std::to_string(d.value) : "?";
    }
    element += ']';
  }
  switch (desc.kind) {
    case ValueKind::kTensor:
      return element;
    case ValueKind::kSequence:
      return "seq(" + element + ")";
    case ValueKind::kOptional:
      return "opt(" + element + ")";
    case ValueKind::kOptionalSequence:
      return "opt(seq(" + element + "))";
  }
  return element;
}

// "name\ntype" for values; just the name when nothing is known about the type.
std::string value_label(const Value& v) {
  if (v.desc() == TensorDesc()) return v.name();
  return v.name() + "\n" + type_text(v.desc());
}

class DotWriter {
 public:
  std::string write(const Graph& g) {
    out_ += "digraph " + dot_string(g.name()) + " {\n";
    out_ += "  node [fontname=\"Helvetica\", fontsize=10];\n";
    out_ += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    write_graph(g, "g", 1);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  // DOT ids of the things that define values, per graph, so that captures in nested
  // clusters can draw an edge from the enclosing value they stand for.
  struct Scope {
    const Graph* graph;
    std::unordered_map<const Value*, std::string> source;  // value -> id of its definer
    std::unordered_map<std::string, const Value*> by_name;
  };

  void line(int depth, const std::string& text) {
    out_.append(static_cast<size_t>(2 * depth), ' ');
    out_ += text;
    out_ += '\n';
  }

  void define(Scope& scope, const Value* v, const std::string& id) {
    if (!v) return;
    scope.source.emplace(v, id);
    if (!v->name().empty()) scope.by_name.emplace(v->name(), v);
  }

  void write_graph(const Graph& g, const std::string& prefix, int depth) {
    if (std::find(stack_.begin(), stack_.end(), &g) != stack_.end() || stack_.size() > 64) return;
    Scope scope{&g, {}, {}};
    std::unordered_set<const Value*> initializers(g.initializers().begin(), g.initializers().end());
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Value* v = g.inputs()[i];
      if (!v || initializers.count(v)) continue;
      std::string id = prefix + "_in" + std::to_string(i);
      line(depth, id + " [shape=ellipse, label=" + dot_string(value_label(*v)) + "];");
      define(scope, v, id);
    }
    for (size_t i = 0; i < g.initializers().size(); ++i) {
      const Value* v = g.initializers()[i];
      if (!v) continue;
      std::string id = prefix + "_init" + std::to_string(i);
      std::string label = value_label(*v) + (v->is_graph_input() ? "\n(overridable input)" : "");
      line(depth, id + " [shape=note, label=" + dot_string(label) + "];");
      define(scope, v, id);
    }
    for (size_t i = 0; i < g.captures().size(); ++i) {
      const Value* v = g.captures()[i];
      if (!v) continue;
      std::string id = prefix + "_cap" + std::to_string(i);
      line(depth, id + " [shape=ellipse, style=dashed, label=" + dot_string("capture " + value_label(*v)) + "];");
      define(scope, v, id);
      // Dotted edge from the enclosing value this capture stands for.
      for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        auto found = it->by_name.find(v->name());
        if (found == it->by_name.end()) continue;
        line(depth, it->source.at(found->second) + " -> " + id + " [style=dotted];");
        break;
      }
    }
    std::unordered_map<const Node*, std::string> node_ids;
    size_t index = 0;
    for (const auto& node : g.nodes()) {
      std::string id = prefix + "_n" + std::to_string(index++);
      node_ids[node.get()] = id;
      std::string op = node->domain().empty() ? node->op_type() : node->domain() + "::" + node->op_type();
      std::string label = node->name().empty() ? op : op + "\n" + node->name();
      line(depth, id + " [shape=box, label=" + dot_string(label) + "];");
      for (const Value* v : node->outputs()) define(scope, v, id);
    }
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      const Value* v = g.outputs()[i];
      if (!v) continue;
      std::string id = prefix + "_out" + std::to_string(i);
      line(depth, id + " [shape=ellipse, style=bold, label=" + dot_string("output " + v->name()) + "];");
      auto source = scope.source.find(v);
      if (source != scope.source.end())
        line(depth, source->second + " -> " + id + " [label=" + dot_string(value_label(*v)) + "];");
    }
    for (const auto& node : g.nodes()) {
      const std::string& id = node_ids[node.get()];
      for (const Value* v : node->inputs()) {
        if (!v) continue;
        auto source = scope.source.find(v);
        if (source == scope.source.end()) continue;  // not of this graph: the verifier's business
        line(depth, source->second + " -> " + id + " [label=" + dot_string(value_label(*v)) + "];");
      }
      for (const Node* pred : node->control_predecessors()) {
        auto source = node_ids.find(pred);
        if (source != node_ids.end()) line(depth, source->second + " -> " + id + " [style=dashed];");
      }
    }
    stack_.push_back(&g);
    scopes_.push_back(std::move(scope));
    for (const auto& node : g.nodes()) write_subgraphs(*node, node_ids[node.get()], depth);
    scopes_.pop_back();
    stack_.pop_back();
  }

  // Subgraphs become clusters drawn beside the node that owns them.
  void write_subgraphs(const Node& node, const std::string& node_id, int depth) {
    size_t k = 0;
    for (const auto& [name, attr] : node.attributes()) {
      std::vector<const Graph*> graphs;
      if (attr.holds<Attribute::GraphPtr>()) graphs.push_back(attr.get<Attribute::GraphPtr>().get());
      if (attr.holds<std::vector<Attribute::GraphPtr>>())
        for (const auto& sub : attr.get<std::vector<Attribute::GraphPtr>>()) graphs.push_back(sub.get());
      for (const Graph* sub : graphs) {
        if (!sub) continue;
        std::string prefix = node_id + "_s" + std::to_string(k++);
        line(depth, "subgraph cluster_" + prefix + " {");
        line(depth + 1, "label=" + dot_string(name + ": " + sub->name()) + ";");
        line(depth + 1, "style=rounded;");
        write_graph(*sub, prefix, depth + 1);
        line(depth, "}");
      }
    }
  }

  std::string out_;
  std::vector<const Graph*> stack_;
  std::vector<Scope> scopes_;
};

}  // namespace

std::string graph_to_dot(const Graph& graph) { return DotWriter().write(graph); }

}  // namespace ge
