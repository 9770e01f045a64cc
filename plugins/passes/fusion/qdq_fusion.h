#pragma once
/// fuse_qdq: the QDQ form of an int8 model, as ONNX's quantisation tools and PyTorch's
/// exporter write it, into the standard quantised ops:
///
///   QuantizeLinear([Relu | Clip](Conv(DQ(x_q), DQ(w_q), [b])), y_scale, y_zero)
///     -> QLinearConv(x_q, xs, xz, w_q, ws, wz, y_scale, y_zero, B_int32) [-> Clip]
///   QuantizeLinear([Relu | Clip](MatMul | Gemm(DQ(a_q), DQ(b_q))), ...)
///     -> QLinearMatMul(a_q, as, az, b_q, bs, bz, y_scale, y_zero) [-> Clip]
///   QuantizeLinear([Relu | Clip](Add(MatMul(DQ(a_q), DQ(b_q)), bias) | Gemm(.., C)), ...)
///     -> Reshape(QLinearConv(Reshape(a_q, [M, K, 1, 1]), .., b_q as [N, K, 1, 1], ..,
///        B_int32), [M, N]) [-> Clip]
///   QuantizeLinear([Relu](Add(DQ(a_q), DQ(b_q))), y_scale, y_zero)    (the residual add)
///     -> ge::QLinearAdd(a_q, as, az, b_q, bs, bz, y_scale, y_zero) {relu}
///
/// Weights, every scale and zero point must be constants; x, y (and a) per tensor; the
/// weights per tensor or per output channel (Conv: axis 0; MatMul's 2-D B and Gemm's B:
/// per column). The bias (Conv's B, Gemm's C, or the constant addend of an Add after a
/// 2-D MatMul) is a float constant, quantised as ONNX Runtime does to round(b / (xs * ws)),
/// or DequantizeLinear(int32 constant), taken as is where its scale is xs * ws. No
/// standard quantised op adds a bias to a matrix product; a 1x1 QLinearConv over A seen as
/// an [M, K, 1, 1] image computes exactly the same int32 sums and adds one. A Relu or Clip
/// between the op and the QuantizeLinear becomes a Clip of the quantised tensor to
/// [Q(min), Q(max)] (Q is monotone, so Q(clip(y)) == clip(Q(y))), left out where it cannot
/// clip anything (e.g. Relu with y_zero = the type's lowest value); integer Clip needs
/// opset 12. Gemm takes alpha 1 and transA 0; transB transposes the constant weights.
/// Weights given as QuantizeLinear(float constant) -> DequantizeLinear, as torch.onnx.export
/// writes them, are quantised here as the reference kernel does. An Add after a Conv (a
/// residual) stays float, as does ConvTranspose (ONNX has no quantised form of it). The DequantizeLinear nodes are not
/// part of a match: one with other users keeps feeding them, one left without users goes to dce. Every pattern that
/// does not fit is left in float, the reason logged at -vv.
///
/// The residual add takes a_q, b_q and y of one 8-bit type, every scale and zero point a
/// constant per tensor; its kernel does the float graph's float32 operations in their order,
/// so it is bit-exact.
///
/// Level -O2. The fused op sums (x_q - xz)(w_q - wz) exactly in int32 and requantises
/// with xs * ws / ys in float; the float graph multiplies dequantised values in float and
/// rounds that. Both are round-to-nearest-even of almost the same real number (a float
/// bias, rounded to a multiple of xs * ws, moves it by at most xs * ws / 2, far below ys),
/// so the results differ by at most one quantisation step, where the float result lies
/// near a rounding boundary (as in every engine's QDQ fusion).
///
/// Phase fold, before constant_folding: folding would turn DequantizeLinear(w_q) into
/// float weights and the pattern would be gone.

#include "ge/plugin_api/pattern_fusion.h"

namespace ge::fusion {

class QdqFusion final : public PatternFusionPass {
 public:
  std::string name() const override { return "fuse_qdq"; }
  std::vector<Pattern> patterns() const override;
  bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const override;
  Status replacement(const Match& match, Replacement& replacement) const override;
};

}  // namespace ge::fusion
