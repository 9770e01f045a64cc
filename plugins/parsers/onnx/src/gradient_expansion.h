#pragma once
/// Expands ONNX's training op Gradient (domain ai.onnx.preview.training) into explicit
/// reverse-mode ops at import time.
///
/// `Gradient(xs, y)` names values of the graph that holds it: its outputs are dy/dx for
/// each x in `xs`, summed over the elements of y. No backend can run that as a kernel (it
/// is a statement about the graph, not an op on tensors), so the parser rewrites it, as it
/// would expand an ONNX function: the ops between the xs and y are differentiated in
/// reverse topological order, the gradient of y is seeded with ones, and each Gradient
/// output becomes the accumulated gradient of its x (zeros where y does not depend on x).
///
/// Supported: the elementwise ops Add, Sub, Mul, Div, Neg, Identity and Relu with numpy
/// broadcasting (gradients are summed over broadcast axes), on values whose shapes and
/// float dtypes are known statically at import. Anything else is a kUnsupported error
/// naming the op and the Gradient node.

#include "ge/graph.h"
#include "ge/status.h"

namespace ge::onnx_parser {

inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

/// Rewrites every Gradient node of `graph` (top level; Gradient inside a subgraph is
/// rejected). A graph without Gradient nodes is left untouched.
Status expand_gradients(Graph& graph);

}  // namespace ge::onnx_parser
