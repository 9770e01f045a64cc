#pragma once
/// The value rules of the attributes that libonnx's inference functions use without
/// checking them (a stride of 0 is a division by zero in convPoolShapeInference, SIGFPE),
/// as one table per op, checked before libonnx runs.

#include <string>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge::onnx_ops {

/// Checks the attributes of an ai.onnx `node` that the table lists for its op type:
/// bounds (strides, dilations, kernel_shape, group >= 1; pads, output_padding >= 0;
/// flags 0 or 1; blocksize 1 to 2^31 - 1) and lengths against the spatial rank of input
/// 0 where it is known.
/// Errors are kInvalidArgument, start with `where` and name the attribute, its value and
/// the rule.
Status check_attribute_rules(const Node& node, const std::string& where);

}  // namespace ge::onnx_ops
