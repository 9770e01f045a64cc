#pragma once
// Helpers the built-in fusions share: reading constants as doubles, building constants
// of a dtype, static shapes and broadcasting checks.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"

#include "ge/plugin_api/pattern.h"

namespace ge {
class Match;
}  // namespace ge

namespace ge::fusion {

/// float16, bfloat16, float32 or float64: the dtypes the ge::Fused* ops and the
/// standard ops the fusions build take.
bool is_float_type(DataType type);
/// The static dims of `value`, or nullopt.
std::optional<std::vector<int64_t>> static_dims(const Value* value);
/// A float/double tensor's elements as doubles.
std::vector<double> to_doubles(const Tensor& tensor);
/// A float16, bfloat16, float32 or float64 tensor of `dims` holding `values`, each
/// rounded once to nearest even.
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
/// Whether `actual` is `expected` within `relative_tolerance` (absolute near 0).
bool near(double actual, double expected, double relative_tolerance = 1e-4);
/// The relative tolerance within which a constant of `dtype` stands for a value: 1e-4
/// (as Pattern::scalar), widened to one unit in the last place of float16 (2^-10) and
/// bfloat16 (2^-7), whose models store their constants rounded.
double constant_tolerance(DataType dtype);
/// Pattern::scalar(value, capture), the tolerance that of the constant's own dtype
/// (constant_tolerance): a float16 model's 0.7978 (sqrt(2 / pi) rounded) matches.
PatternValue rounded_scalar(Pattern& pattern, double value, std::string capture = {});
/// The constant [min, max] of a Clip (attributes before opset 11, scalar constant inputs
/// from 11; an absent bound is the float32 limit), or nullopt when a bound is not constant.
std::optional<std::pair<float, float>> clip_bounds(const Node& clip);
/// The `activation_params` a ge::Fused* op takes for folding the activation node `act`
/// (LeakyRelu alpha; HardSigmoid alpha, beta; Clip bounds; Gelu [0] erf or [1] tanh; none
/// for the others), or nullopt when they are not constant (or the Gelu form is unknown).
std::optional<std::vector<float>> fused_activation_params(const Node& act);

/// Whether every binary op of `match` broadcasts as numpy does. Before opset 7 an `axis`
/// attribute (with broadcast = 1) lines B up with A from that axis, which no fusion's
/// checks nor fused op model: false, with `reason` naming the node, where it moves B.
bool broadcasts_like_numpy(const Match& match, std::string& reason);

/// The lowest -O level at which a fusion may build a "ge" op in place of a standard op
/// that the model's opset lacks: -O2 graphs keep to ai.onnx ops.
inline constexpr int kGeDomainOptLevel = 3;
/// The domain a fusion rooted at `anchor` builds `op_type` in: ai.onnx ("") where the
/// model's opset has it (from `since_opset`), else "ge" (the ge_fused op library's copy
/// of the standard op). nullopt, with `reason`, when that is "ge" and `opt_level` is below
/// kGeDomainOptLevel.
std::optional<std::string> standard_op_domain(const Node& anchor, const std::string& op_type, int64_t since_opset,
                                              int opt_level, std::string& reason);

}  // namespace ge::fusion
