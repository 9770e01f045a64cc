#pragma once
/// Checks on a node that some libonnx inference functions rely on without checking
/// themselves; violating them there is undefined behaviour (out-of-range reads), so they
/// are turned into errors before libonnx runs.

#include <string>

#include "ge/graph.h"
#include "ge/status.h"

namespace onnx {
class OpSchema;
}

namespace ge::onnx_ops {

/// Input/output counts within the schema's range, no omitted required or variadic input,
/// and the rank rules of the convolution family (X rank >= 3, W rank == X rank).
/// Errors are kInvalidArgument and start with `where` (the node, op and opset).
Status check_inference_preconditions(const Node& node, const onnx::OpSchema& schema,
                                     const std::string& where);

}  // namespace ge::onnx_ops
