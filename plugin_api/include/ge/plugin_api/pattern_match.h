#pragma once
/// Finding a Pattern in a Graph: the structural match of a pattern anchored at one node.

#include <string>
#include <string_view>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/pattern.h"
#include "ge/status.h"

namespace ge {

/// One structural match: which graph node each pattern op bound (null for an absent
/// optional op) and which graph value each pattern value bound.
class Match {
 public:
  Match() = default;
  Match(const Pattern* pattern, std::vector<Node*> nodes, std::vector<Value*> values)
      : pattern_(pattern), nodes_(std::move(nodes)), values_(std::move(values)) {}

  const Pattern& pattern() const { return *pattern_; }
  /// The node bound to the pattern op called `op_name`; null when absent or unknown.
  Node* node(std::string_view op_name) const;
  /// The value captured as `capture` (Pattern::any/constant/scalar); null when unknown
  /// or bound to an absent optional input.
  Value* value(std::string_view capture) const;
  /// The data of a captured constant; null when it is not one.
  const Tensor* constant(std::string_view capture) const;
  /// The anchor: the node bound to the root op.
  Node* root() const;
  /// Every node of the match (present ops), in pattern op order.
  std::vector<Node*> nodes() const;
  /// The node bound to pattern op `id` (null when absent).
  Node* node_at(int op_id) const { return nodes_.at(static_cast<size_t>(op_id)); }
  Value* value_at(int value_id) const { return values_.at(static_cast<size_t>(value_id)); }
  /// "pattern 'conv_relu' at Relu 'r' (conv: Conv 'c', act: Relu 'r')".
  std::string describe() const;

 private:
  const Pattern* pattern_ = nullptr;
  std::vector<Node*> nodes_;
  std::vector<Value*> values_;
};

/// Tries to match `pattern` with its root op bound to `anchor`. On failure returns
/// kNotFound whose message says why the most complete attempt failed, e.g.
/// "input 1 of Conv 'c' (pattern op 'conv'): %w is not a constant".
/// Deterministic: alternatives (commutative orders, optional ops) are tried in a fixed
/// order and the first complete match wins.
Result<Match> match_pattern(const Pattern& pattern, Node& anchor);

}  // namespace ge
