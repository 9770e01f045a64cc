#pragma once
/// Small questions about a graph's nodes and values that core and plugins both ask.

#include <string_view>

#include "ge/graph.h"

namespace ge {

/// True for the ONNX default domain, which a node names "" or "ai.onnx".
inline bool is_onnx_domain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }
/// True when `node` is in the ONNX default domain.
inline bool is_onnx_domain(const Node& node) { return is_onnx_domain(node.domain()); }

/// True for an omitted optional output of a node in `graph`: unnamed, unused and not a
/// graph output (see Node::outputs); also for null. Nothing stores or reads such a value.
inline bool is_omitted_output(const Graph& graph, const Value* value) {
  return value == nullptr || (value->name().empty() && !value->has_uses() && !graph.is_output(value));
}

}  // namespace ge
