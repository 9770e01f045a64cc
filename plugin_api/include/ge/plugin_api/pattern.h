#pragma once
/// A fusion pattern: a small DAG of op matchers over values, built in code.
///
///   Pattern p("conv_relu");
///   PatternValue x = p.any("x");
///   PatternOp& conv = p.op("Conv", {x, p.constant("w"), p.maybe(p.constant("b"))}, "conv");
///   p.op({"Relu", "LeakyRelu"}, {conv}, "act");   // the last op added is the root
///
/// Matching is anchored at the root op and walks producer edges, so every op must feed
/// the root. A value used by several ops of the pattern must be one graph value.

#include <deque>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ge/attribute.h"
#include "ge/graph.h"

namespace ge {

class Pattern;

/// A handle to a value of a pattern: a leaf or an output of a pattern op.
class PatternValue {
 public:
  PatternValue() = default;
  int id() const { return id_; }
  /// Whether the input slot holding this handle may be absent on the node (Pattern::maybe).
  bool optional_slot() const { return optional_slot_; }
  bool valid() const { return id_ >= 0; }

 private:
  friend class Pattern;
  friend class PatternOp;
  int id_ = -1;
  bool optional_slot_ = false;
};

/// A predicate with a description for "why didn't my pattern fire?" messages.
template <typename T>
struct Described {
  std::string description;
  std::function<bool(const T&)> test;
};

/// One op matcher. References stay valid while the Pattern lives.
class PatternOp {
 public:
  /// Requires attribute `name` to equal `expected`; an absent attribute reads as
  /// `when_absent` (nullopt: absent never matches). Ints and floats compare by value.
  PatternOp& attr(const std::string& name, Attribute expected, std::optional<Attribute> when_absent = std::nullopt);
  /// Requires `test(node)`; `description` appears in rejection messages.
  PatternOp& where(std::string description, std::function<bool(const Node&)> test);
  /// Inputs `a` and `b` may match in either order (Add, Mul, ...).
  PatternOp& commutative(int a = 0, int b = 1);
  /// The op may be absent: its output then matches its input `passthrough_input` directly.
  /// Match::node() returns null for an absent op.
  PatternOp& optional(int passthrough_input = 0);
  /// Allows the node to have inputs beyond the pattern's (they are not matched).
  PatternOp& allow_extra_inputs();

  /// Output `index` of this op as a pattern value.
  PatternValue out(int index = 0) const;
  operator PatternValue() const { return out(0); }  // NOLINT: an op stands for its output 0

  const std::string& name() const { return name_; }
  int id() const { return id_; }
  /// The op types this matcher accepts ("Conv", "ge::FusedConv").
  const std::vector<std::string>& types() const { return types_; }

 private:
  friend class Pattern;
  friend class PatternMatcher;
  Pattern* pattern_ = nullptr;
  int id_ = 0;
  std::string name_;
  std::vector<std::string> types_;  ///< "Conv" (ai.onnx) or "domain::Type"
  std::vector<PatternValue> inputs_;
  mutable std::vector<int> outputs_;  ///< pattern value id per output index (-1: unused)
  struct AttributeTest {
    std::string name;
    Attribute expected;
    std::optional<Attribute> when_absent;
  };
  std::vector<AttributeTest> attribute_tests_;
  std::vector<Described<Node>> node_tests_;
  std::vector<std::pair<int, int>> commutative_pairs_;
  std::optional<int> passthrough_;
  bool extra_inputs_ = false;
};

class Pattern {
 public:
  /// What a pattern value stands for.
  enum class ValueKind { kAny, kConstant, kOpOutput };

  explicit Pattern(std::string name);
  Pattern(Pattern&&) noexcept;
  Pattern& operator=(Pattern&&) noexcept;
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;
  ~Pattern();

  const std::string& name() const { return name_; }

  /// A leaf matching any value (graph input, initializer, capture or node output).
  /// A non-empty `capture` makes the value available as Match::value(capture).
  PatternValue any(std::string capture = {});
  /// A leaf matching a constant: an initializer that is not also an overridable input.
  PatternValue constant(std::string capture = {});
  /// A constant whose every element equals `value` within `relative_tolerance`
  /// (e.g. the 0.5 of a decomposed GELU). Matches float and integer constants.
  PatternValue scalar(double value, std::string capture = {}, double relative_tolerance = 1e-4);
  /// Adds a predicate on the graph value a pattern value matches.
  void where(PatternValue value, std::string description, std::function<bool(const Value&)> test);
  /// The same value, in an input slot that may be absent (an omitted optional input).
  static PatternValue maybe(PatternValue value);

  /// An op matcher for one of `types` ("Relu", or "domain::Op" outside ai.onnx) with
  /// these inputs. `name` (unique in the pattern) is how Match::node() finds it.
  /// (A `const char*` and a list, not std::string: {"Pow", "Mul"} would also read as a
  /// std::string built from two iterators.)
  PatternOp& op(const char* type, std::vector<PatternValue> inputs, std::string name = {});
  PatternOp& op(std::vector<std::string> types, std::vector<PatternValue> inputs, std::string name = {});

  /// The op matching is anchored at: the last one added unless set.
  void set_root(const PatternOp& root) {
    root_ = root.id();
    validated_.reset();
  }
  const PatternOp& root() const;

  // ---- read access for the matcher ----
  struct ValueInfo {
    ValueKind kind = ValueKind::kAny;
    std::string capture;
    int op = -1;            ///< kOpOutput: producing op id
    int output_index = 0;   ///< kOpOutput: which output
    std::vector<Described<Value>> tests;
  };
  const std::deque<PatternOp>& ops() const { return ops_; }
  const std::vector<ValueInfo>& values() const { return values_; }
  /// Ok when every op feeds the root, names are unique and inputs are valid handles;
  /// otherwise kInvalidArgument naming the pattern and the problem. The result is kept
  /// until the pattern changes, so matching many anchors checks it once.
  Status validate() const;

 private:
  friend class PatternOp;
  int add_value(ValueInfo info);
  Status check() const;

  std::string name_;
  std::deque<PatternOp> ops_;
  std::vector<ValueInfo> values_;
  int root_ = -1;
  mutable std::optional<Status> validated_;  // cleared by every change
};

}  // namespace ge
