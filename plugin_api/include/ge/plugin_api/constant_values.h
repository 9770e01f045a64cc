#pragma once
/// Reading the constants a pass may fold: initializers a caller cannot override, their
/// scalar or integer contents, and axes given as an attribute or a constant input.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge {

/// An initializer that is not also a graph input (whose value a caller could override).
bool is_constant_value(const Value* value);
/// The common value of every element of a constant (numeric or bool, at least one
/// element); nullopt when `value` is not a constant or its elements differ.
std::optional<double> constant_scalar(const Value* value);
/// The contents of an integer constant; nullopt when not one.
std::optional<std::vector<int64_t>> constant_ints(const Value* value);

/// Axes given as attribute `attribute` (older opsets) or as constant input `input_index`
/// (newer ones), normalised to [0, rank). nullopt when absent or not constant, or out of
/// range.
std::optional<std::vector<int64_t>> node_axes(const Node& node, const std::string& attribute, size_t input_index,
                                              int64_t rank);

}  // namespace ge
