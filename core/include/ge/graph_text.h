#pragma once
/// The text IR: a readable, round-trippable form of a Graph for tests and dumps.
///
///   graph main (opset ""=17) {
///     input %x : float32[N,3,4,4]
///     init %w : float32[2,3,1,1] = [0.5, 1, ...]        (all values, exact)
///     %y : float32[N,2,4,4] = Conv(%x, %w) {strides: ints = [1, 1]} "conv1"
///     output %y
///   }
///
/// Omitted optional inputs print as `_`. Control edges print as `after ["n1", "n2"]`.
/// Subgraph attributes print nested `graph` blocks; captures print `capture %name : T`.

#include <memory>
#include <string>
#include <string_view>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge {

/// Prints `graph` in the text IR. Nodes appear in insertion order; floats print with
/// enough digits to round-trip exactly.
std::string print_graph(const Graph& graph);

/// Parses the text IR. Errors name the line and column.
Result<std::unique_ptr<Graph>> parse_graph(std::string_view text);

}  // namespace ge
