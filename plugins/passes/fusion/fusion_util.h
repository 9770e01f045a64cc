#pragma once
// Helpers the built-in fusions share: reading constants as doubles, building constants
// of a dtype, static shapes and broadcasting checks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge::fusion {

bool is_float_type(DataType type);
/// The static dims of `value`, or nullopt.
std::optional<std::vector<int64_t>> static_dims(const Value* value);
/// A float/double tensor's elements as doubles.
std::vector<double> to_doubles(const Tensor& tensor);
/// A float32 or float64 tensor of `dims` holding `values`.
Tensor from_doubles(DataType dtype, std::vector<int64_t> dims, const std::vector<double>& values);
/// Whether `dims` broadcast unidirectionally to `target` (numpy rules, right-aligned).
bool broadcasts_to(const std::vector<int64_t>& dims, const std::vector<int64_t>& target);
/// Whether a value of static desc `operand` broadcasts unidirectionally into `target`
/// without changing it: each aligned dim is 1 or equals a static dim of `target` (whose
/// other dims may be symbolic or unknown).
bool broadcasts_into(const TensorDesc& operand, const TensorDesc& target);
/// `tensor` broadcast to `target` (which it must broadcast to), as doubles.
std::vector<double> broadcast_values(const Tensor& tensor, const std::vector<int64_t>& target);
/// The ai.onnx opset of `node`'s graph (17 when none is imported).
int64_t onnx_opset(const Node& node);
/// Whether the node is in the ai.onnx domain.
bool is_onnx(const Node& node);

}  // namespace ge::fusion
