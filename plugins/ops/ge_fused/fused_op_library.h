#pragma once
/// The "ge" op domain: ops the built-in fusion passes produce. Shape inference of a fused
/// op is the inference of the standard op it extends, run through the registry, so the
/// two can never disagree.
///
/// - ge::FusedConv(X, W, [B])   Conv's inputs and attributes, plus `activation` and
///   `activation_params`; Y = activation(Conv(X, W, B)).
/// - ge::FusedConvTranspose(X, W, [B])   ConvTranspose's inputs and attributes, plus the
///   activation.
/// - ge::FusedGemm(A, B, [C])   Gemm's inputs and attributes, plus the activation.
/// - ge::FusedMatMul(A, B, [bias])  Y = activation(MatMul(A, B) + bias), the bias
///   broadcasting to MatMul's output without changing its shape.
/// - ge::Gelu(X) {approximate: "none" | "tanh"}   as ONNX Gelu-20.
/// - ge::LayerNormalization(X, Scale, [B]) {axis, epsilon, stash_type}   as ONNX
///   LayerNormalization-17, output Y only: for models whose opset predates it.
/// - ge::HardSwish(X)   as ONNX HardSwish-14, for models whose opset predates it.
/// - ge::QLinearAdd(A, A_scale, [A_zero_point], B, B_scale, [B_zero_point], C_scale,
///   [C_zero_point]) {relu: 0 | 1}   as com.microsoft's QLinearAdd, per tensor only: A, B
///   and C of one type (uint8 or int8), float32 scalar scales, scalar zero points (absent:
///   0); C = QuantizeLinear(relu?(DequantizeLinear(A) + DequantizeLinear(B))) in float32,
///   A and B broadcasting as Add.
/// - ge::ScatterRows(data, rows, updates, shape)   ScatterElements(data, Expand(rows,
///   shape), updates) on axis 0, reduction none: `rows` has the rank of `data` and only
///   unit dims after the first, so each row of `updates` goes to the row of the output
///   its index names (negative from the end), and the broadcast index tensor is never
///   made. Expand(rows, shape) must have the shape of `updates`, as ScatterElements
///   requires of its indices.
///
/// - ge_autofuse.Fused(inputs...) {program}   a group the autofusion pass fused: the
///   program (ge/autofuse/loop_ir.h, text form) says what it computes; its outputs are
///   float32 of the dims the program lists.
///
/// `activation` is one of Relu, Sigmoid, Tanh, HardSwish, Swish (y * Sigmoid(y); no
/// params), LeakyRelu [alpha], HardSigmoid [alpha, beta], Clip [min, max], Gelu
/// [approximate: 1 tanh, 0 erf]; an empty or absent `activation` is none.

#include <map>
#include <string>

#include "ge/op_registry.h"

namespace ge::fused_ops {

inline constexpr const char* kDomain = "ge";
inline constexpr const char* kAutofuseDomain = "ge_autofuse";

/// How many activation_params each activation takes; -1 for an unknown activation.
int activation_param_count(const std::string& activation);

class FusedOpLibrary final : public OpLibrary {
 public:
  FusedOpLibrary();
  std::string name() const override { return "ge_fused"; }
  /// Every version of the "ge" domain (including an unimported one, 0) has these ops.
  const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type,
                                  int64_t opset_version) const override;
  /// Checks the activation attributes, then infers like the standard op. Errors name the
  /// node and the attribute or input.
  Status infer(Node& node, int64_t opset_version, const InputDataProvider& data,
               const OpRegistry& registry) const override;

 private:
  std::map<std::string, OpSchemaInfo> schemas_;
  OpSchemaInfo autofused_;  // ge_autofuse.Fused
};

}  // namespace ge::fused_ops
