// Finding a Pattern in a Graph (ge/plugin_api/pattern_match.h).
#include "ge/plugin_api/pattern_match.h"

#include <algorithm>
#include <functional>

#include "ge/plugin_api/graph_rewrite.h"

namespace ge {
namespace {

std::string type_key(const Node& node) {
  return node.domain().empty() || node.domain() == "ai.onnx" ? node.op_type() : node.domain() + "::" + node.op_type();
}

std::string value_text(const Value* value) {
  if (value == nullptr) return "an omitted input";
  std::string text = "%" + value->name();
  if (value->producer() != nullptr) return text + " (output of " + value->producer()->describe() + ")";
  if (value->is_capture()) return text + " (a capture)";
  if (value->is_constant()) return text + (value->is_graph_input() ? " (an overridable initializer)" : " (a constant)");
  return text + " (a graph input)";
}

std::string types_text(const std::vector<std::string>& types) {
  std::string text;
  for (const std::string& t : types) text += (text.empty() ? "" : "|") + t;
  return text;
}

}  // namespace

/// Backtracking matcher: continuation-passing, so a failure deep in one input can retry
/// an earlier choice (commutative order, optional op absent or present).
class PatternMatcher {
 public:
  using Continuation = std::function<bool()>;

  explicit PatternMatcher(const Pattern& pattern)
      : pattern_(pattern),
        nodes_(pattern.ops().size(), nullptr),
        absent_(pattern.ops().size(), false),
        values_(pattern.values().size(), nullptr) {}

  bool match_root(Node& anchor) {
    return match_node(pattern_.root(), anchor, Where{}, [] { return true; });
  }

  Match result() const { return Match(&pattern_, nodes_, values_); }
  const std::string& failure() const { return failure_; }

 private:
  /// Where a value is being matched: input `input` of `node` (pattern op `op`), or the
  /// anchor itself. Formatted only for the message that is kept.
  struct Where {
    const PatternOp* op = nullptr;
    const Node* node = nullptr;
    size_t input = 0;
    bool anchor() const { return node == nullptr; }
    std::string text() const {
      return "input " + std::to_string(input) + " of " + node->describe() + " (pattern op '" + op->name() + "')";
    }
  };

  static std::string at(const PatternOp& op, const Node& node) {
    return node.describe() + " (pattern op '" + op.name() + "')";
  }

  /// Keeps the reason of the most complete attempt (most ops bound; on a tie the later,
  /// which matched more inputs). Messages are only built when kept:
  /// a pass tries every pattern at every node, and most attempts fail at once.
  template <typename MakeReason>
  void fail(MakeReason&& make_reason) {
    int bound = 0;
    for (Node* n : nodes_) bound += n != nullptr ? 1 : 0;
    if (bound >= failure_score_) {  // ties: the later failure got further
      failure_score_ = bound;
      failure_ = make_reason();
    }
  }

  bool value_tests_pass(int id, const Value& value, const Where& where) {
    for (const Described<Value>& test : pattern_.values()[static_cast<size_t>(id)].tests) {
      if (!test.test(value)) {
        fail([&] { return where.text() + ": %" + value.name() + " is not " + test.description; });
        return false;
      }
    }
    return true;
  }

  bool match_value(const PatternValue& slot, Value* value, const Where& where, const Continuation& k) {
    const size_t id = static_cast<size_t>(slot.id());
    if (values_[id] != nullptr) {
      if (values_[id] == value) return k();
      fail([&] {
        return where.text() + ": " + value_text(value) + " is not the value matched earlier, " + value_text(values_[id]);
      });
      return false;
    }
    const Pattern::ValueInfo& info = pattern_.values()[id];
    if (info.kind != Pattern::ValueKind::kOpOutput) {
      if (info.kind == Pattern::ValueKind::kConstant && !is_constant_value(value)) {
        fail([&] { return where.text() + ": " + value_text(value) + " is not a constant"; });
        return false;
      }
      if (!value_tests_pass(slot.id(), *value, where)) return false;
      values_[id] = value;
      if (k()) return true;
      values_[id] = nullptr;
      return false;
    }
    const PatternOp& op = pattern_.ops()[static_cast<size_t>(info.op)];
    const size_t op_id = static_cast<size_t>(op.id());
    if (nodes_[op_id] != nullptr || absent_[op_id]) {
      // Bound already (binding a node binds all its output values) but not to this value.
      fail([&] {
        return where.text() + ": " + value_text(value) + " does not fit pattern op '" + op.name() + "' as matched earlier";
      });
      return false;
    }
    Node* producer = value->producer();
    if (producer != nullptr && value->producer_output_index() == info.output_index) {
      if (match_node(op, *producer, where, [&] { return value_tests_pass(slot.id(), *value, where) && k(); })) {
        return true;
      }
    } else {
      fail([&] {
        return where.text() + ": " + value_text(value) + " is not output " + std::to_string(info.output_index) +
               " of a " + types_text(op.types()) + " (pattern op '" + op.name() + "')";
      });
    }
    if (op.passthrough_ && info.output_index == 0) {
      // The optional op is absent: its output is its pass-through input.
      absent_[op_id] = true;
      values_[id] = value;
      if (match_value(op.inputs_[static_cast<size_t>(*op.passthrough_)], value, where, k)) return true;
      values_[id] = nullptr;
      absent_[op_id] = false;
    }
    return false;
  }

  bool match_node(const PatternOp& op, Node& node, const Where& where, const Continuation& k) {
    const std::string key = type_key(node);
    if (std::find(op.types().begin(), op.types().end(), key) == op.types().end()) {
      fail([&] {
        return (where.anchor() ? "" : where.text() + ": ") + node.describe() + " is not a " + types_text(op.types()) +
               " (pattern op '" + op.name() + "')";
      });
      return false;
    }
    if (std::find(nodes_.begin(), nodes_.end(), &node) != nodes_.end()) {
      fail([&] { return at(op, node) + " is already matched by another pattern op"; });
      return false;
    }
    for (const auto& test : op.attribute_tests_) {
      const Attribute* actual = node.attribute(test.name);
      const bool ok = actual != nullptr
                          ? attributes_equal(*actual, test.expected)
                          : test.when_absent.has_value() && attributes_equal(*test.when_absent, test.expected);
      if (!ok) {
        fail([&] {
          return at(op, node) + ": attribute '" + test.name + "' " + (actual != nullptr ? "has another value" : "is absent");
        });
        return false;
      }
    }
    for (const Described<Node>& test : op.node_tests_) {
      if (!test.test(node)) {
        fail([&] { return at(op, node) + ": not " + test.description; });
        return false;
      }
    }
    const size_t pattern_inputs = op.inputs_.size();
    if (!op.extra_inputs_) {
      for (size_t i = pattern_inputs; i < node.input_count(); ++i) {
        if (node.input(i) != nullptr) {
          fail([&] {
            return at(op, node) + ": has input " + std::to_string(i) + ", the pattern expects at most " +
                   std::to_string(pattern_inputs);
          });
          return false;
        }
      }
    }
    nodes_[static_cast<size_t>(op.id())] = &node;
    std::vector<int> bound_outputs;
    bool outputs_fit = true;
    for (size_t o = 0; o < op.outputs_.size(); ++o) {
      const int id = op.outputs_[o];
      if (id < 0) continue;
      Value* out = node.output(o);
      Value*& bound = values_[static_cast<size_t>(id)];
      if (out == nullptr || (bound != nullptr && bound != out)) {
        outputs_fit = false;
        break;
      }
      if (bound == nullptr) {
        bound = out;
        bound_outputs.push_back(id);
      }
    }
    if (outputs_fit) {
      // Every combination of the commutative swaps, the identity order first.
      const size_t pairs = op.commutative_pairs_.size();
      for (size_t mask = 0; mask < (size_t{1} << pairs); ++mask) {
        std::vector<size_t> order(pattern_inputs);
        for (size_t i = 0; i < pattern_inputs; ++i) order[i] = i;
        for (size_t p = 0; p < pairs; ++p) {
          if (mask & (size_t{1} << p)) {
            const auto [a, b] = op.commutative_pairs_[p];
            std::swap(order[static_cast<size_t>(a)], order[static_cast<size_t>(b)]);
          }
        }
        if (match_inputs(op, node, order, 0, k)) return true;
      }
    } else {
      fail([&] { return at(op, node) + ": its outputs do not fit the values matched earlier"; });
    }
    for (int id : bound_outputs) values_[static_cast<size_t>(id)] = nullptr;
    nodes_[static_cast<size_t>(op.id())] = nullptr;
    return false;
  }

  bool match_inputs(const PatternOp& op, Node& node, const std::vector<size_t>& order, size_t i, const Continuation& k) {
    if (i == order.size()) return k();
    const PatternValue& slot = op.inputs_[i];
    Value* value = node.input(order[i]);
    const Where where{&op, &node, order[i]};
    if (value == nullptr) {
      if (slot.optional_slot()) return match_inputs(op, node, order, i + 1, k);
      fail([&] { return where.text() + ": the input is omitted"; });
      return false;
    }
    return match_value(slot, value, where, [&] { return match_inputs(op, node, order, i + 1, k); });
  }

  const Pattern& pattern_;
  std::vector<Node*> nodes_;
  std::vector<bool> absent_;
  std::vector<Value*> values_;
  std::string failure_;
  int failure_score_ = -1;
};

Node* Match::node(std::string_view op_name) const {
  if (pattern_ == nullptr) return nullptr;
  for (const PatternOp& op : pattern_->ops()) {
    if (op.name() == op_name) return nodes_[static_cast<size_t>(op.id())];
  }
  return nullptr;
}

Value* Match::value(std::string_view capture) const {
  if (pattern_ == nullptr || capture.empty()) return nullptr;
  const auto& infos = pattern_->values();
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].capture == capture) return values_[i];
  }
  return nullptr;
}

const Tensor* Match::constant(std::string_view capture) const {
  Value* v = value(capture);
  return v != nullptr ? v->constant() : nullptr;
}

Node* Match::root() const { return pattern_ != nullptr ? nodes_[static_cast<size_t>(pattern_->root().id())] : nullptr; }

std::vector<Node*> Match::nodes() const {
  std::vector<Node*> result;
  for (Node* n : nodes_) {
    if (n != nullptr) result.push_back(n);
  }
  return result;
}

std::string Match::describe() const {
  if (pattern_ == nullptr) return "(no match)";
  std::string text = "pattern '" + pattern_->name() + "' at " + (root() ? root()->describe() : std::string("?")) + " (";
  bool first = true;
  for (const PatternOp& op : pattern_->ops()) {
    Node* n = nodes_[static_cast<size_t>(op.id())];
    text += (first ? "" : ", ") + op.name() + ": " + (n != nullptr ? n->describe() : std::string("absent"));
    first = false;
  }
  return text + ")";
}

Result<Match> match_pattern(const Pattern& pattern, Node& anchor) {
  GE_RETURN_IF_ERROR(pattern.validate());
  PatternMatcher matcher(pattern);
  if (matcher.match_root(anchor)) return matcher.result();
  return not_found(matcher.failure().empty() ? "no match" : matcher.failure());
}

}  // namespace ge
