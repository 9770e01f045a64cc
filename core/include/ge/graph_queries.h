#pragma once
/// Small questions about a graph's nodes and values that core and plugins both ask.

#include <algorithm>
#include <array>
#include <string_view>

#include "ge/graph.h"

namespace ge {

/// True for the ONNX default domain, which a node names "" or "ai.onnx".
inline bool is_onnx_domain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }
/// True when `node` is in the ONNX default domain.
inline bool is_onnx_domain(const Node& node) { return is_onnx_domain(node.domain()); }

/// True for an ONNX op that draws random numbers: each run may give other values, so no
/// pass folds or merges it and no plan computes it ahead of a run.
inline bool is_random_op(const Node& node) {
  static constexpr std::array<std::string_view, 7> kRandom = {"RandomNormal",      "RandomUniform", "RandomNormalLike",
                                                             "RandomUniformLike", "Multinomial",   "Bernoulli",
                                                             "Dropout"};
  return is_onnx_domain(node) && std::find(kRandom.begin(), kRandom.end(), node.op_type()) != kRandom.end();
}

/// True for an omitted optional output of a node in `graph`: unnamed, unused and not a
/// graph output (see Node::outputs); also for null. Nothing stores or reads such a value.
inline bool is_omitted_output(const Graph& graph, const Value* value) {
  return value == nullptr || (value->name().empty() && !value->has_uses() && !graph.is_output(value));
}

}  // namespace ge
