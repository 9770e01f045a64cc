#pragma once
/// What ONNX standard ops declare to the memory planner: the in-place pairs, views and
/// concatenations that share storage, and the constants it places with the weights
/// (OpSchemaInfo::in_place, is_view, concatenates_along, is_constant).

#include <string>
#include <vector>

#include "ge/op_registry.h"

namespace ge::onnx_ops {

/// The in-place pairs of `op_type` in `domain` ("" is ai.onnx): output 0 over any input
/// for the ops computing each output element from the same element of their inputs
/// (unary math, activations, binary and variadic arithmetic and logic, Where,
/// BatchNormalization); none for every other op, and for every op outside ai.onnx.
/// Thread-safe.
std::vector<InPlacePair> in_place_pairs_for(const std::string& domain, const std::string& op_type);

/// Whether output 0 of `op_type` in `domain` is input 0's bytes unchanged: Reshape,
/// Flatten, Squeeze, Unsqueeze and Identity of ai.onnx.
bool is_view_op(const std::string& domain, const std::string& op_type);

/// The attribute holding the axis along which output 0 of `op_type` in `domain` joins its
/// inputs: "axis" for Concat of ai.onnx, "" (no concatenation) for every other op.
std::string concatenation_axis_attribute(const std::string& domain, const std::string& op_type);

/// Whether `op_type` in `domain` outputs a constant fixed by its attributes: Constant of
/// ai.onnx.
bool is_constant_op(const std::string& domain, const std::string& op_type);

}  // namespace ge::onnx_ops
