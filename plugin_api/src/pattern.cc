// A fusion pattern built in code (ge/plugin_api/pattern.h).
#include "ge/plugin_api/pattern.h"

#include <cmath>
#include <set>

#include "ge/plugin_api/graph_rewrite.h"

namespace ge {

PatternOp& PatternOp::attr(const std::string& name, Attribute expected, std::optional<Attribute> when_absent) {
  pattern_->validated_.reset();
  attribute_tests_.push_back({name, std::move(expected), std::move(when_absent)});
  return *this;
}

PatternOp& PatternOp::where(std::string description, std::function<bool(const Node&)> test) {
  pattern_->validated_.reset();
  node_tests_.push_back({std::move(description), std::move(test)});
  return *this;
}

PatternOp& PatternOp::commutative(int a, int b) {
  pattern_->validated_.reset();
  commutative_pairs_.emplace_back(a, b);
  return *this;
}

PatternOp& PatternOp::optional(int passthrough_input) {
  pattern_->validated_.reset();
  passthrough_ = passthrough_input;
  return *this;
}

PatternOp& PatternOp::allow_extra_inputs() {
  pattern_->validated_.reset();
  extra_inputs_ = true;
  return *this;
}

PatternValue PatternOp::out(int index) const {
  if (index < 0) return PatternValue();
  if (static_cast<size_t>(index) >= outputs_.size()) outputs_.resize(static_cast<size_t>(index) + 1, -1);
  int& id = outputs_[static_cast<size_t>(index)];
  if (id < 0) {
    Pattern::ValueInfo info;
    info.kind = Pattern::ValueKind::kOpOutput;
    info.op = id_;
    info.output_index = index;
    id = pattern_->add_value(std::move(info));
  }
  PatternValue value;
  value.id_ = id;
  return value;
}

Pattern::Pattern(std::string name) : name_(std::move(name)) {}
Pattern::~Pattern() = default;

Pattern::Pattern(Pattern&& other) noexcept
    : name_(std::move(other.name_)),
      ops_(std::move(other.ops_)),
      values_(std::move(other.values_)),
      root_(other.root_),
      validated_(std::move(other.validated_)) {
  for (PatternOp& op : ops_) op.pattern_ = this;  // ops point back at their pattern
}

Pattern& Pattern::operator=(Pattern&& other) noexcept {
  name_ = std::move(other.name_);
  ops_ = std::move(other.ops_);
  values_ = std::move(other.values_);
  root_ = other.root_;
  validated_ = std::move(other.validated_);
  for (PatternOp& op : ops_) op.pattern_ = this;
  return *this;
}

int Pattern::add_value(ValueInfo info) {
  validated_.reset();
  values_.push_back(std::move(info));
  return static_cast<int>(values_.size()) - 1;
}

PatternValue Pattern::any(std::string capture) {
  PatternValue v;
  v.id_ = add_value({ValueKind::kAny, std::move(capture), -1, 0, {}});
  return v;
}

PatternValue Pattern::constant(std::string capture) {
  PatternValue v;
  v.id_ = add_value({ValueKind::kConstant, std::move(capture), -1, 0, {}});
  return v;
}

PatternValue Pattern::scalar(double value, std::string capture, double relative_tolerance) {
  PatternValue v = constant(std::move(capture));
  char text[64];
  std::snprintf(text, sizeof(text), "a constant equal to %g", value);
  where(v, text, [value, relative_tolerance](const Value& candidate) {
    std::optional<double> actual = constant_scalar(&candidate);
    return actual && std::fabs(*actual - value) <= relative_tolerance * std::max(1.0, std::fabs(value));
  });
  return v;
}

void Pattern::where(PatternValue value, std::string description, std::function<bool(const Value&)> test) {
  if (!value.valid() || static_cast<size_t>(value.id()) >= values_.size()) return;  // validate() reports it
  values_[static_cast<size_t>(value.id())].tests.push_back({std::move(description), std::move(test)});
  validated_.reset();
}

PatternValue Pattern::maybe(PatternValue value) {
  value.optional_slot_ = true;
  return value;
}

PatternOp& Pattern::op(const char* type, std::vector<PatternValue> inputs, std::string name) {
  return op(std::vector<std::string>{type != nullptr ? type : ""}, std::move(inputs), std::move(name));
}

PatternOp& Pattern::op(std::vector<std::string> types, std::vector<PatternValue> inputs, std::string name) {
  ops_.emplace_back();
  PatternOp& op = ops_.back();
  op.pattern_ = this;
  op.id_ = static_cast<int>(ops_.size()) - 1;
  op.name_ = name.empty() ? "op" + std::to_string(op.id_) : std::move(name);
  op.types_ = std::move(types);
  op.inputs_ = std::move(inputs);
  root_ = op.id_;
  validated_.reset();
  return op;
}

const PatternOp& Pattern::root() const { return ops_.at(static_cast<size_t>(root_)); }

Status Pattern::validate() const {
  if (!validated_) validated_ = check();
  return *validated_;
}

Status Pattern::check() const {
  const std::string where = "pattern '" + name_ + "': ";
  if (ops_.empty() || root_ < 0) return invalid_argument(where + "has no ops");
  std::set<std::string> names;
  for (const PatternOp& op : ops_) {
    if (!names.insert(op.name()).second) return invalid_argument(where + "two ops are named '" + op.name() + "'");
    if (op.types_.empty()) return invalid_argument(where + "op '" + op.name() + "' has no op type");
    for (size_t i = 0; i < op.inputs_.size(); ++i) {
      const PatternValue& in = op.inputs_[i];
      if (!in.valid() || static_cast<size_t>(in.id()) >= values_.size()) {
        return invalid_argument(where + "input " + std::to_string(i) + " of op '" + op.name() + "' is not a value of this pattern");
      }
      const ValueInfo& info = values_[static_cast<size_t>(in.id())];
      if (info.kind == ValueKind::kOpOutput && info.op >= op.id()) {
        return invalid_argument(where + "op '" + op.name() + "' uses the output of op '" +
                                ops_[static_cast<size_t>(info.op)].name() + "', which is not added before it");
      }
    }
    for (const auto& [a, b] : op.commutative_pairs_) {
      if (a < 0 || b < 0 || static_cast<size_t>(std::max(a, b)) >= op.inputs_.size() || a == b) {
        return invalid_argument(where + "op '" + op.name() + "': commutative inputs " + std::to_string(a) + ", " +
                                std::to_string(b) + " are not two of its inputs");
      }
    }
    if (op.passthrough_ && (*op.passthrough_ < 0 || static_cast<size_t>(*op.passthrough_) >= op.inputs_.size())) {
      return invalid_argument(where + "optional op '" + op.name() + "' passes through input " +
                              std::to_string(*op.passthrough_) + ", which it does not have");
    }
  }
  if (root().passthrough_) return invalid_argument(where + "the root op '" + root().name() + "' cannot be optional");
  // Every op must feed the root: matching walks producer edges from the anchor only.
  std::vector<bool> reached(ops_.size(), false);
  std::vector<int> work{root_};
  reached[static_cast<size_t>(root_)] = true;
  while (!work.empty()) {
    const PatternOp& op = ops_[static_cast<size_t>(work.back())];
    work.pop_back();
    for (const PatternValue& in : op.inputs_) {
      const ValueInfo& info = values_[static_cast<size_t>(in.id())];
      if (info.kind == ValueKind::kOpOutput && !reached[static_cast<size_t>(info.op)]) {
        reached[static_cast<size_t>(info.op)] = true;
        work.push_back(info.op);
      }
    }
  }
  for (const PatternOp& op : ops_) {
    if (!reached[static_cast<size_t>(op.id())]) {
      return invalid_argument(where + "op '" + op.name() + "' does not feed the root op '" + root().name() + "'");
    }
  }
  return Status::ok();
}

}  // namespace ge
