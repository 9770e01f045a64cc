#pragma once
/// The text IR: a readable, round-trippable form of a Graph for tests and dumps.
///
///   graph main (opset ""=17, "com.microsoft"=1) {
///     input %x : float32[N,3,4,4]
///     init %w : float32[2,3,1,1] = [0.5, 1, -2, 0.1, 3, 4]
///     init input %b : float32[B] = float32[2] [0, 0]
///     %y : float32[N,2,?,4] = Conv(%x, %w, %b) {strides: ints = [1, 1]} "conv1"
///     %a, _ = com.microsoft::FusedConv(%y, _, %w) after ["conv1"]
///     output %y
///   }
///
/// One statement per line; whitespace is otherwise free and `//` starts a comment.
/// - `input %v[: T]` a graph input; `capture %v[: T]` a capture of an enclosing value;
///   `init [input ]%v[: T] = DATA` an initializer (`input`: also a graph input). DATA is
///   `[e, ...]` when T is the data's own static type, else a tensor literal.
///   Inputs and initializers print in an order that rebuilds both lists exactly.
/// - Nodes print in insertion order (uses may precede definitions):
///   `OUTS = [domain::]Op(INS) [{attrs}] ["name"] [after [refs]]`, `OUTS = ` absent for a
///   node without outputs. An omitted optional input or output prints as `_` (an omitted
///   output may still carry `: T`). Control edges name a node by its name string when
///   that is unique in the graph, else by its position `#N` (0-based).
/// - `output %v` (or `output _` for a null output), in order.
/// - Types T: `dtype[d, ...]` with dims an integer, `?` (unknown) or a symbol;
///   `dtype[*]` for unknown rank; `seq(...)`, `opt(...)`, `opt(seq(...))` for the kinds.
///   A value with the default TensorDesc prints no type.
/// - Attributes `name: type = value` with type int, float, string, tensor, graph, ints,
///   floats, strings, tensors or graphs; a graph value is a nested `graph name {...}` block
///   whose parent is the node's graph. Tensor literals: `dtype[dims] [e, ...]`, or
///   `undefined` for an empty Tensor.
/// - Elements: float32/float64 in the shortest decimal that reads back exactly, `inf`,
///   `-inf`, `nan` (the canonical quiet NaN) or `0x...` raw bits (any other NaN);
///   float16/bfloat16 as `0xHHHH` raw bits (a decimal is also accepted, rounded to nearest
///   even); complex as `(re, im)`; integers in decimal; bools `true`/`false`; strings quoted.
/// - `elided(N elements, xxh3 0xH)` in place of `[e, ...]`: data a dump left out (see
///   PrintOptions); parse_graph rejects it, naming the elided constant.
/// - Names: value names follow `%`, bare when made of [A-Za-z0-9_.-], else quoted; graph,
///   attribute, op, domain and dim names are bare identifiers or quoted strings. Strings
///   escape `\" \\ \n \t \r` and `\xHH` (control bytes and bytes that are not well-formed
///   UTF-8), so any name or byte string round-trips.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge {

/// Prints `graph` in the text IR. Nodes appear in insertion order; floats print with
/// enough digits to round-trip exactly. For any graph g that verify_graph accepts,
/// print_graph(*parse_graph(print_graph(g))) == print_graph(g). Invalid graphs print too
/// (for dumps), but may not parse back.
std::string print_graph(const Graph& graph);

/// How print_graph(graph, options) prints. The default is print_graph(graph): everything,
/// in full, round-trippable.
struct PrintOptions {
  /// Unset: every constant in full. Set: a constant (initializer data, tensor attribute)
  /// with more elements prints as its dtype, shape and an XXH3-64 checksum of its bytes,
  /// `float32[64,3,7,7] elided(9408 elements, xxh3 0x...)` (after `init %w : T =` just
  /// `elided(...)`), so that dumps of large models stay small. parse_graph refuses an
  /// elided constant with an error that says so.
  std::optional<int64_t> max_constant_elements;
};

/// The elision threshold of --dump-graph dumps (ge-run --dump-graph-constants: none).
inline constexpr int64_t kDumpMaxConstantElements = 32;

/// Prints `graph` as print_graph(graph) does, with `options`.
std::string print_graph(const Graph& graph, const PrintOptions& options);

/// Parses the text IR. Errors are kParseError with "line L, column C: expected X but found
/// Y" (or a message naming the undefined or duplicate value, node or capture). Checks the
/// syntax, that every value used is defined in its graph exactly once and that captures
/// name a value of an enclosing graph; it does not check acyclicity or types (see
/// verify_graph). Never crashes on malformed input; nesting deeper than 64 graphs is an error.
Result<std::unique_ptr<Graph>> parse_graph(std::string_view text);

}  // namespace ge
