#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fusion_test_util.h"
#include "ge/executor.h"
#include "qdq_fusion.h"

namespace ge::fusion {
namespace {

using pass_testing::PluginEnvironment;
using testing::at_opset;
using testing::inferred;
using testing::run;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// The reason fuse_qdq gives for its last rejection in `ir` ("" when none).
std::string rejection(const std::string& ir) {
  PluginEnvironment& env = PluginEnvironment::get();
  auto graph = parse_graph(ir);
  if (!graph.is_ok()) return graph.status().to_string();
  Status status = env.ops().infer_graph(**graph);
  if (!status.is_ok()) return status.to_string();
  QdqFusion pass;
  PassContext context;
  context.ops = &env.ops();
  context.target_backend = env.cpu();
  context.reference_backend = env.cpu();
  bool changed = false;
  status = pass.run(**graph, context, changed);
  if (!status.is_ok()) return status.to_string();
  // The last rejection by the pass's own checks. A pattern whose structure does not
  // match ("... (pattern op 'x')") is no rejection: at every QuantizeLinear one of the two
  // patterns (residual add, op) does not match.
  for (auto it = pass.events().rbegin(); it != pass.events().rend(); ++it) {
    if (it->kind == FusionEvent::Kind::kRejected && it->reason.find("(pattern op '") == std::string::npos) {
      return it->reason;
    }
  }
  return {};
}

// uint8 input (scale 0.5, zero 128), int8 weights per output channel (scales 0.25, 0.5),
// a float bias, Relu, uint8 output (scale 0.75, zero 10).
// Bias: round(1 / (0.5 * 0.25)) = 8, round(-1 / (0.5 * 0.5)) = -4. Relu: Q(0) = 10.
const char* const kConv = R"(graph main (opset ""=13) {
  input %xq : uint8[1,2,3,3]
  init %xs : float32[] = [0.5]
  init %xz : uint8[] = [128]
  init %wq : int8[2,2,1,1] = [1, -2, 3, 4]
  init %ws : float32[2] = [0.25, 0.5]
  init %wz : int8[2] = [0, 0]
  init %b : float32[2] = [1, -1]
  init %ys : float32[] = [0.75]
  init %yz : uint8[] = [10]
  %x = DequantizeLinear(%xq, %xs, %xz) "dq_x"
  %w = DequantizeLinear(%wq, %ws, %wz) {axis: int = 0} "dq_w"
  %c = Conv(%x, %w, %b) {kernel_shape: ints = [1, 1]} "conv"
  %r = Relu(%c) "relu"
  %y = QuantizeLinear(%r, %ys, %yz) "q"
  output %y
})";

// The fused output is checked in tests/passes/qdq_fusion.ge.
TEST(QdqFusion, ConvReluFusesWithoutARejection) { EXPECT_EQ(rejection(kConv), ""); }

TEST(QdqFusion, KeepsADequantizeLinearThatOthersUse) {
  const std::string ir = replaced(kConv, "  output %y", "  output %y\n  output %x");
  const std::string out = run(ir, {"fuse_qdq", "dce"});
  EXPECT_NE(out.find("QLinearConv(%xq, %xs, %xz, %wq"), std::string::npos) << out;
  EXPECT_NE(out.find("%x : float32[1,2,3,3] = DequantizeLinear(%xq, %xs, %xz) \"dq_x\""), std::string::npos) << out;
  EXPECT_EQ(out.find(" = Conv("), std::string::npos) << out;
}

TEST(QdqFusion, OmittedZeroPointsBecomeZeros) {
  std::string ir = replaced(kConv, "%w = DequantizeLinear(%wq, %ws, %wz)", "%w = DequantizeLinear(%wq, %ws)");
  ir = replaced(ir, "  init %wz : int8[2] = [0, 0]\n", "");
  const std::string out = run(ir, {"fuse_qdq", "dce"});
  EXPECT_NE(out.find("init %conv_w_zero_point : int8[2] = [0, 0]"), std::string::npos) << out;
  EXPECT_NE(out.find("QLinearConv(%xq, %xs, %xz, %wq, %ws, %conv_w_zero_point, %ys, %yz"), std::string::npos) << out;
}

// int8 A per tensor, int8 B [3, 2] per column, int8 output.
const char* const kMatMul = R"(graph main (opset ""=13) {
  input %aq : int8[4,3]
  init %as : float32[] = [0.1]
  init %az : int8[] = [-3]
  init %bq : int8[3,2] = [1, 2, 3, 4, 5, 6]
  init %bs : float32[2] = [0.2, 0.3]
  init %bz : int8[2] = [0, 1]
  init %ys : float32[] = [0.05]
  init %yz : int8[] = [-128]
  %a = DequantizeLinear(%aq, %as, %az) "dq_a"
  %b = DequantizeLinear(%bq, %bs, %bz) {axis: int = 1} "dq_b"
  %m = MatMul(%a, %b) "matmul"
  %y = QuantizeLinear(%m, %ys, %yz) "q"
  output %y
})";

// ---- what stays float, and why ----

void expect_unfused(const std::string& ir, const std::string& reason) {
  EXPECT_EQ(run(ir, {"fuse_qdq"}), inferred(ir));
  EXPECT_EQ(rejection(ir), reason);
}

TEST(QdqFusion, LeavesNonConstantWeightsAndScales) {
  std::string weights = replaced(kConv, "  init %wq : int8[2,2,1,1] = [1, -2, 3, 4]", "  input %wq : int8[2,2,1,1]");
  expect_unfused(weights,
                 "the weights of Conv 'conv' (input of DequantizeLinear 'dq_w') are neither a constant nor a "
                 "QuantizeLinear of constants");
  std::string scale = replaced(kConv, "  init %xs : float32[] = [0.5]", "  input %xs : float32[]");
  expect_unfused(scale, "the scale of DequantizeLinear 'dq_x' is not a constant");
}

TEST(QdqFusion, LeavesPerAxisActivationsAndWeightsAlongAnotherAxis) {
  std::string x = replaced(kConv, "  init %xs : float32[] = [0.5]\n  init %xz : uint8[] = [128]",
                           "  init %xs : float32[2] = [0.5, 0.25]\n  init %xz : uint8[2] = [128, 128]");
  expect_unfused(x, "DequantizeLinear 'dq_x' quantises per axis (2 scales); the fused op takes its input per tensor");
  std::string w = replaced(kConv, "{axis: int = 0} \"dq_w\"", "{axis: int = 1} \"dq_w\"");
  expect_unfused(
      w,
      "the weights of Conv 'conv' are quantised along axis 1 with 2 scales; QLinearConv takes them per output "
      "channel (axis 0, 2 scales)");
}

TEST(QdqFusion, LeavesFloat16Scales) {
  std::string ir = replaced(kConv, "init %xs : float32[] = [0.5]", "init %xs : float16[] = [0x3800]");
  ir = replaced(ir, "init %ws : float32[2] = [0.25, 0.5]", "init %ws : float16[2] = [0x3400, 0x3800]");
  ir = replaced(ir, "init %b : float32[2] = [1, -1]", "init %b : float16[2] = [0x3c00, 0xbc00]");
  ir = replaced(ir, "init %ys : float32[] = [0.75]", "init %ys : float16[] = [0x3a00]");
  expect_unfused(at_opset(ir, 19),
                 "the scale of QuantizeLinear 'q' is float16; QLinearConv / QLinearMatMul take float32 scales");
}

TEST(QdqFusion, LeavesAFloat16DequantizeLinearOutput) {
  // Opset 23: float32 scales, but DequantizeLinear gives float16 (output_dtype 10).
  std::string ir = replaced(kConv, "(opset \"\"=13)", "(opset \"\"=23)");
  ir = replaced(ir, "%x = DequantizeLinear(%xq, %xs, %xz) \"dq_x\"",
                "%x = DequantizeLinear(%xq, %xs, %xz) {output_dtype: int = 10} \"dq_x\"");
  ir = replaced(ir, "{axis: int = 0} \"dq_w\"", "{axis: int = 0, output_dtype: int = 10} \"dq_w\"");
  ir = replaced(ir, "init %b : float32[2] = [1, -1]", "init %b : float16[2] = [0x3c00, 0xbc00]");
  expect_unfused(ir,
                 "DequantizeLinear 'dq_x' (input 0 of Conv 'conv') gives float16; the fused ops stand for float32 "
                 "arithmetic");
}

TEST(QdqFusion, LeavesBlockedQuantisation) {
  // Opset 21: W [2, 2, 1, 1] in blocks of 1 along axis 1: the scale is [2, 2, 1, 1].
  std::string ir =
      replaced(kConv, "init %ws : float32[2] = [0.25, 0.5]", "init %ws : float32[2,2,1,1] = [0.25, 0.5, 1, 2]");
  ir = replaced(ir, "init %wz : int8[2] = [0, 0]", "init %wz : int8[2,2,1,1] = [0, 0, 0, 0]");
  ir = replaced(ir, "{axis: int = 0} \"dq_w\"", "{axis: int = 1, block_size: int = 1} \"dq_w\"");
  ir = replaced(ir, "(opset \"\"=13)", "(opset \"\"=21)");
  expect_unfused(ir,
                 "DequantizeLinear 'dq_w' uses blocked quantisation (block_size = 1), which QLinearConv / "
                 "QLinearMatMul do not take");
}

TEST(QdqFusion, LeavesABiasThatWouldOverflowInt32) {
  const std::string ir = replaced(kConv, "init %b : float32[2] = [1, -1]", "init %b : float32[2] = [1, -3e9]");
  expect_unfused(
      ir, "the bias of Conv 'conv' channel 1 (-3000000000.000000) does not fit int32 at scale xs * ws = 0.250000");
}

TEST(QdqFusion, LeavesAMatMulAddWhoseAddendIsNotAConstantBias) {
  std::string add = replaced(kMatMul, "  %y = QuantizeLinear(%m, %ys, %yz) \"q\"",
                             "  %s = Add(%c, %m) \"add\"\n  %y = QuantizeLinear(%s, %ys, %yz) \"q\"");
  add = replaced(add, "  init %ys", "  input %c : float32[1,2]\n  init %ys");
  expect_unfused(add,
                 "the addend of Add 'add' (after MatMul 'matmul') is neither a float32 constant nor a DequantizeLinear "
                 "of an int32 constant");
}

TEST(QdqFusion, LeavesABiasWhoseSumCouldOverflowTheAccumulator) {
  // 268435424 (a float32) / 0.125 = 2147483392 fits int32, but with sum |x - xz| |w - wz|
  // up to 128 * (1 + 2) = 384 in channel 0 it could pass 2147483647.
  const std::string ir = replaced(kConv, "init %b : float32[2] = [1, -1]", "init %b : float32[2] = [268435424, -1]");
  expect_unfused(ir,
                 "the int32 accumulator of Conv 'conv' could overflow in output channel 0 (|sum| up to "
                 "2147483776.000000)");
}

TEST(QdqFusion, FusesTwoConvolutionsSharingOneWeightDequantizeLinear) {
  std::string ir = replaced(kConv, "  output %y",
                            "  %c2 = Conv(%x, %w) {kernel_shape: ints = [1, 1]} \"conv2\"\n"
                            "  %y2 = QuantizeLinear(%c2, %ys, %yz) \"q2\"\n  output %y\n  output %y2");
  const std::string out = run(ir, {"fuse_qdq", "dce"});
  EXPECT_NE(
      out.find("%y2 : uint8[1,2,3,3] = QLinearConv(%xq, %xs, %xz, %wq, %ws, %wz, %ys, %yz) {kernel_shape: ints = [1, "
               "1]} \"conv2\""),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("QLinearConv(%xq, %xs, %xz, %wq, %ws, %wz, %ys, %yz, %conv_bias_int32)"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("DequantizeLinear"), std::string::npos) << out;
}

TEST(QdqFusion, LeavesGemmWithAlphaOrTransAAndConvTranspose) {
  const std::string alpha =
      replaced(kMatMul, "%m = MatMul(%a, %b) \"matmul\"", "%m = Gemm(%a, %b) {alpha: float = 2} \"gemm\"");
  expect_unfused(alpha,
                 "Gemm 'gemm' has transA = 0 and alpha = 2.000000; the quantised ops compute A * B (transA 0, "
                 "alpha 1)");
  std::string transposed = replaced(kConv, "%c = Conv(%x, %w, %b) {kernel_shape: ints = [1, 1]} \"conv\"",
                                    "%c = ConvTranspose(%x, %w) {kernel_shape: ints = [1, 1]} \"deconv\"");
  expect_unfused(
      transposed,
      "ConvTranspose 'deconv': ONNX has no quantised ConvTranspose (no QLinearConvTranspose), so it stays float");
}

TEST(QdqFusion, LeavesAConvWhoseFloatOutputIsUsedElsewhere) {
  const std::string ir = replaced(kConv, "  output %y", "  output %y\n  output %c");
  EXPECT_EQ(run(ir, {"fuse_qdq"}), inferred(ir));
  EXPECT_EQ(rejection(ir), "interior value %c of Conv 'conv' is a graph output");
}

TEST(QdqFusion, LeavesAnIntegerClipBeforeOpset12) {
  // DequantizeLinear-10 quantises per tensor only.
  std::string ir = replaced(kConv, "(opset \"\"=13)", "(opset \"\"=11)");
  ir = replaced(ir, "init %ws : float32[2] = [0.25, 0.5]", "init %ws : float32[] = [0.25]");
  ir = replaced(ir, "init %wz : int8[2] = [0, 0]", "init %wz : int8[] = [0]");
  ir = replaced(ir, " {axis: int = 0} \"dq_w\"", " \"dq_w\"");
  expect_unfused(ir, "Relu 'relu' becomes a Clip of the uint8 output, which needs opset 12 (the graph has 11)");
  // Per-axis scales before opset 13 are bad input (the kernels refuse them): left alone.
  const std::string per_axis = replaced(kMatMul, "(opset \"\"=13)", "(opset \"\"=11)");
  const std::string unfused = run(replaced(per_axis, " {axis: int = 1} \"dq_b\"", " \"dq_b\""), {"fuse_qdq"});
  EXPECT_EQ(unfused.find("QLinear"), std::string::npos) << unfused;
  EXPECT_EQ(rejection(replaced(per_axis, " {axis: int = 1} \"dq_b\"", " \"dq_b\"")),
            "DequantizeLinear 'dq_b' has 2 scales: per-axis quantisation needs opset 13 (the graph has 11)");
  // Where the Relu clips nothing, opset 11 fuses.
  const std::string lowest = replaced(ir, "init %yz : uint8[] = [10]", "init %yz : uint8[] = [0]");
  const std::string out = run(lowest, {"fuse_qdq", "dce"});
  EXPECT_NE(out.find("%y : uint8[1,2,3,3] = QLinearConv("), std::string::npos) << out;
  EXPECT_NE(out.find("init %conv_bias_int32 : int32[2] = [8, -8]"), std::string::npos) << out;
  EXPECT_EQ(out.find("Clip"), std::string::npos) << out;
}

TEST(QdqFusion, LeavesAConvFollowedByAnAdd) {
  std::string ir =
      replaced(kConv, "  %r = Relu(%c) \"relu\"", "  %s = Add(%c, %x) \"residual\"\n  %r = Relu(%s) \"relu\"");
  expect_unfused(ir,
                 "Conv 'conv' is followed by Add 'residual': no standard quantised op adds it to QLinearConv's output, "
                 "so it stays float");
}

// ---- the residual add: Q([Relu](Add(DQ(a), DQ(b)))) -> ge::QLinearAdd ----

const char* const kResidual = R"(graph main (opset ""=13) {
  input %aq : uint8[1,2,3,3]
  input %bq : uint8[1,2,3,3]
  init %as : float32[] = [0.5]
  init %az : uint8[] = [128]
  init %bs : float32[] = [0.25]
  init %bz : uint8[] = [3]
  init %ys : float32[] = [0.75]
  init %yz : uint8[] = [10]
  %a = DequantizeLinear(%aq, %as, %az) "dq_a"
  %b = DequantizeLinear(%bq, %bs, %bz) "dq_b"
  %s = Add(%a, %b) "residual"
  %r = Relu(%s) "relu"
  %y = QuantizeLinear(%r, %ys, %yz) "q"
  output %y
})";

// The fused output is checked in tests/passes/qdq_fusion.ge.
TEST(QdqFusion, ResidualAddReluFusesWithoutARejection) { EXPECT_EQ(rejection(kResidual), ""); }

TEST(QdqFusion, ResidualAddWithoutReluAndOmittedZeroPoints) {
  std::string ir = replaced(kResidual, "  %r = Relu(%s) \"relu\"\n", "");
  ir = replaced(ir, "QuantizeLinear(%r, %ys, %yz)", "QuantizeLinear(%s, %ys)");
  ir = replaced(ir, "DequantizeLinear(%bq, %bs, %bz)", "DequantizeLinear(%bq, %bs)");
  ir = replaced(ir, "  init %yz : uint8[] = [10]\n", "");
  ir = replaced(ir, "  init %bz : uint8[] = [3]\n", "");
  const std::string out = run(ir, {"fuse_qdq", "dce"});
  EXPECT_NE(out.find("%y : uint8[1,2,3,3] = ge::QLinearAdd(%aq, %as, %az, %bq, %bs, %residual_b_zero_point, %ys, "
                     "%residual_y_zero_point) \"residual\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("init %residual_b_zero_point : uint8[] = [0]"), std::string::npos) << out;
  EXPECT_NE(out.find("init %residual_y_zero_point : uint8[] = [0]"), std::string::npos) << out;
  EXPECT_EQ(out.find("relu"), std::string::npos) << out;
  EXPECT_EQ(out.find("DequantizeLinear"), std::string::npos) << out;
}

TEST(QdqFusion, ResidualAddBroadcastsAndKeepsADequantizeLinearThatOthersUse) {
  std::string ir = replaced(kResidual, "input %bq : uint8[1,2,3,3]", "input %bq : uint8[2,1,1]");
  ir = replaced(ir, "  output %y\n", "  output %y\n  output %b\n");
  const std::string out = run(ir, {"fuse_qdq", "dce"});
  EXPECT_NE(out.find("= ge::QLinearAdd(%aq, %as, %az, %bq, %bs, %bz, %ys, %yz) {relu: int = 1} \"residual\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("%b : float32[2,1,1] = DequantizeLinear(%bq, %bs, %bz) \"dq_b\""), std::string::npos) << out;
  EXPECT_EQ(out.find("dq_a"), std::string::npos) << out;
}

TEST(QdqFusion, LeavesResidualAddsThatDoNotFit) {
  // The Add's float output used elsewhere.
  expect_unfused(replaced(kResidual, "  output %y\n", "  output %y\n  output %s\n"),
                 "interior value %s of Add 'residual' is a graph output");
  // Mixed types.
  std::string mixed = replaced(kResidual, "input %bq : uint8[1,2,3,3]", "input %bq : int8[1,2,3,3]");
  mixed = replaced(mixed, "init %bz : uint8[] = [3]", "init %bz : int8[] = [3]");
  expect_unfused(mixed,
                 "Add 'residual' adds uint8 and int8 dequantised and QuantizeLinear 'q' gives uint8; "
                 "ge::QLinearAdd takes one 8-bit type for A, B and C");
  // Per-axis B.
  std::string per_axis = replaced(kResidual, "init %bs : float32[] = [0.25]", "init %bs : float32[2] = [0.25, 0.5]");
  per_axis = replaced(per_axis, "init %bz : uint8[] = [3]", "init %bz : uint8[2] = [3, 4]");
  expect_unfused(per_axis,
                 "DequantizeLinear 'dq_b' quantises per axis (2 scales); ge::QLinearAdd takes A, B and C per tensor");
  // A float operand.
  std::string float_b = replaced(kResidual, "  %b = DequantizeLinear(%bq, %bs, %bz) \"dq_b\"\n", "");
  float_b = replaced(float_b, "input %bq : uint8[1,2,3,3]", "input %b : float32[1,2,3,3]");
  expect_unfused(float_b, "input 1 of Add 'residual' is not the output of a DequantizeLinear");
  // A scale that is not a constant.
  expect_unfused(replaced(kResidual, "init %as : float32[] = [0.5]", "input %as : float32[]"),
                 "the scale of DequantizeLinear 'dq_a' is not a constant");
  // A 16-bit output.
  std::string wide = replaced(kResidual, "init %yz : uint8[] = [10]", "init %yz : uint16[] = [10]");
  expect_unfused(replaced(wide, "opset \"\"=13", "opset \"\"=21"),
                 "QuantizeLinear 'q' quantises to uint16; ge::QLinearAdd gives int8 or uint8");
}

// ---- numerics: -O0 (the float QDQ graph) against -O2 (fused) on the reference kernels ----

template <typename T>
std::string literal(const std::vector<T>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string float_literal(const std::vector<float>& values) {
  std::string text = "[";
  char number[32];
  for (size_t i = 0; i < values.size(); ++i) {
    std::snprintf(number, sizeof(number), "%.9g", values[i]);
    text += (i ? ", " : "") + std::string(number);
  }
  return text + "]";
}

struct Outcome {
  Tensor output;
  std::vector<std::string> ops;  ///< op types in graph order
};

Outcome run_at(const std::string& ir, int opt_level, const std::string& input, const Tensor& data) {
  PluginEnvironment& env = PluginEnvironment::get();
  Outcome outcome;
  auto graph = parse_graph(ir);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (!graph.is_ok()) return outcome;
  EXPECT_TRUE(env.ops().infer_graph(**graph).is_ok());
  PassManagerOptions options;
  options.opt_level = opt_level;
  options.verify_each = true;
  PassManager manager(env.host().passes(), env.ops(), options);
  Status status = manager.run(**graph, env.cpu(), env.cpu());
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  for (const auto& node : (*graph)->nodes()) outcome.ops.push_back(node->op_type());
  auto executor = Executor::create(std::move(*graph), *env.cpu(), env.ops());
  EXPECT_TRUE(executor.is_ok()) << executor.status().to_string();
  if (!executor.is_ok()) return outcome;
  std::vector<Tensor> outputs;
  status = (*executor)->run({{input, data}}, outputs);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  if (status.is_ok()) outcome.output = outputs.at(0);
  return outcome;
}

/// Runs `ir` at -O0 and -O2: -O2 must contain `fused_op` and no `float_op`, and every
/// output element be within one quantisation step of -O0's, nearly all equal.
void expect_within_one_step(const std::string& ir, const std::string& input, const Tensor& data,
                            const std::string& fused_op, const std::string& float_op) {
  const Outcome unfused = run_at(ir, 0, input, data);
  const Outcome fused = run_at(ir, 2, input, data);
  ASSERT_TRUE(unfused.output.defined() && fused.output.defined());
  auto has = [](const Outcome& o, const std::string& op) {
    return std::find(o.ops.begin(), o.ops.end(), op) != o.ops.end();
  };
  EXPECT_TRUE(has(unfused, float_op));
  EXPECT_TRUE(has(fused, fused_op));
  EXPECT_FALSE(has(fused, float_op));
  ASSERT_EQ(fused.output.dtype(), unfused.output.dtype());
  ASSERT_EQ(fused.output.shape(), unfused.output.shape());
  int64_t equal = 0, far = 0;
  const int64_t count = unfused.output.element_count();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t a = fused.output.scalar_as_int64(i), b = unfused.output.scalar_as_int64(i);
    equal += a == b;
    if (std::llabs(a - b) > 1 && far++ < 5)
      ADD_FAILURE() << "element " << i << ": fused " << a << ", float graph " << b;
  }
  EXPECT_GE(equal, count * 99 / 100) << equal << " of " << count << " equal";
  std::cout << fused_op << ": " << equal << " of " << count
            << " outputs equal at -O0 and -O2, the others one step apart\n";
  // The output must not be degenerate (all one value) for the comparison to mean much.
  int64_t distinct_from_first = 0;
  for (int64_t i = 0; i < count; ++i)
    distinct_from_first += unfused.output.scalar_as_int64(i) != unfused.output.scalar_as_int64(0);
  EXPECT_GT(distinct_from_first, count / 4);
}

TEST(QdqFusionNumerics, ConvPerChannelWithinOneStep) {
  std::mt19937 rng(37);
  std::uniform_int_distribution<int> weight(-127, 127), byte(0, 255);
  std::uniform_real_distribution<float> scale(0.002f, 0.01f), bias(-1.0f, 1.0f);
  const int in = 8, out = 16;
  std::vector<int> w(static_cast<size_t>(out * in * 9));
  for (int& v : w) v = weight(rng);
  std::vector<float> ws(out), b(out);
  for (float& v : ws) v = scale(rng);
  for (float& v : b) v = bias(rng);
  const std::string ir = std::string(R"(graph main (opset ""=13) {
  input %xq : uint8[2,8,9,9]
  init %xs : float32[] = [0.02]
  init %xz : uint8[] = [128]
  init %wq : int8[16,8,3,3] = )") +
                         literal(w) + R"(
  init %ws : float32[16] = )" +
                         float_literal(ws) + R"(
  init %b : float32[16] = )" +
                         float_literal(b) + R"(
  init %ys : float32[] = [0.03]
  init %yz : uint8[] = [100]
  %x = DequantizeLinear(%xq, %xs, %xz) "dq_x"
  %w = DequantizeLinear(%wq, %ws) {axis: int = 0} "dq_w"
  %c = Conv(%x, %w, %b) {kernel_shape: ints = [3, 3], pads: ints = [1, 1, 1, 1], strides: ints = [2, 2]} "conv"
  %r = Relu(%c) "relu"
  %y = QuantizeLinear(%r, %ys, %yz) "q"
  output %y
})";
  Tensor x = Tensor::zeros(DataType::kUInt8, {2, 8, 9, 9});
  for (int64_t i = 0; i < x.element_count(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>(byte(rng));
  expect_within_one_step(ir, "xq", x, "QLinearConv", "Conv");
}

TEST(QdqFusionNumerics, GroupedConvInt8WithWeightZeroPointsWithinOneStep) {
  std::mt19937 rng(39);
  std::uniform_int_distribution<int> weight(-100, 100), byte(-128, 127), zero(-4, 4);
  std::uniform_real_distribution<float> scale(0.002f, 0.01f), bias(-1.0f, 1.0f);
  const int out = 8;  // 2 groups of 4 input and 4 output channels
  std::vector<int> w(static_cast<size_t>(out * 4 * 9)), wz(out);
  for (int& v : w) v = weight(rng);
  for (int& v : wz) v = zero(rng);
  std::vector<float> ws(out), b(out);
  for (float& v : ws) v = scale(rng);
  for (float& v : b) v = bias(rng);
  const std::string ir = std::string(R"(graph main (opset ""=13) {
  input %xq : int8[1,8,7,7]
  init %xs : float32[] = [0.02]
  init %xz : int8[] = [-5]
  init %wq : int8[8,4,3,3] = )") +
                         literal(w) + R"(
  init %ws : float32[8] = )" +
                         float_literal(ws) + R"(
  init %wz : int8[8] = )" +
                         literal(wz) + R"(
  init %b : float32[8] = )" +
                         float_literal(b) + R"(
  init %ys : float32[] = [0.02]
  init %yz : int8[] = [3]
  init %lo : float32[] = [-1]
  init %hi : float32[] = [1.5]
  %x = DequantizeLinear(%xq, %xs, %xz) "dq_x"
  %w = DequantizeLinear(%wq, %ws, %wz) {axis: int = 0} "dq_w"
  %c = Conv(%x, %w, %b) {group: int = 2, kernel_shape: ints = [3, 3], pads: ints = [1, 1, 1, 1]} "conv"
  %r = Clip(%c, %lo, %hi) "clip"
  %y = QuantizeLinear(%r, %ys, %yz) "q"
  output %y
})";
  Tensor x = Tensor::zeros(DataType::kInt8, {1, 8, 7, 7});
  for (int64_t i = 0; i < x.element_count(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(byte(rng));
  expect_within_one_step(ir, "xq", x, "QLinearConv", "Conv");
}

TEST(QdqFusionNumerics, MatMulAndGemmInt8WithinOneStep) {
  std::mt19937 rng(38);
  std::uniform_int_distribution<int> weight(-127, 127), byte(-128, 127), zero(-5, 5);
  std::uniform_real_distribution<float> scale(0.002f, 0.01f);
  const int k = 32, n = 24;
  std::vector<int> w(static_cast<size_t>(k * n)), wz(n);
  for (int& v : w) v = weight(rng);
  for (int& v : wz) v = zero(rng);
  std::vector<float> ws(n);
  for (float& v : ws) v = scale(rng);
  Tensor a = Tensor::zeros(DataType::kInt8, {5, k});
  for (int64_t i = 0; i < a.element_count(); ++i) a.data<int8_t>()[i] = static_cast<int8_t>(byte(rng));
  const std::string head = R"(graph main (opset ""=13) {
  input %aq : int8[5,32]
  init %as : float32[] = [0.03]
  init %az : int8[] = [3]
  init %ys : float32[] = [0.05]
  init %yz : int8[] = [-2]
  init %ws : float32[24] = )" +
                           float_literal(ws) + R"(
  init %wz : int8[24] = )" +
                           literal(wz) + "\n";
  const std::string tail = R"(
  %y = QuantizeLinear(%m, %ys, %yz) "q"
  output %y
})";
  const std::string matmul = head + "  init %wq : int8[32,24] = " + literal(w) + R"(
  %a = DequantizeLinear(%aq, %as, %az) "dq_a"
  %b = DequantizeLinear(%wq, %ws, %wz) {axis: int = 1} "dq_b"
  %m = MatMul(%a, %b) "matmul")" +
                             tail;
  expect_within_one_step(matmul, "aq", a, "QLinearMatMul", "MatMul");
  std::vector<int> transposed(w.size());
  for (int row = 0; row < k; ++row) {
    for (int col = 0; col < n; ++col)
      transposed[static_cast<size_t>(col * k + row)] = w[static_cast<size_t>(row * n + col)];
  }
  const std::string gemm = head + "  init %wq : int8[24,32] = " + literal(transposed) + R"(
  %a = DequantizeLinear(%aq, %as, %az) "dq_a"
  %b = DequantizeLinear(%wq, %ws, %wz) {axis: int = 0} "dq_b"
  %m = Gemm(%a, %b) {transB: int = 1} "gemm")" +
                           tail;
  expect_within_one_step(gemm, "aq", a, "QLinearMatMul", "Gemm");
  // With a bias C: a 1x1 QLinearConv.
  std::uniform_real_distribution<float> bias(-2.0f, 2.0f);
  std::vector<float> c(n);
  for (float& v : c) v = bias(rng);
  std::string biased = replaced(gemm, "%m = Gemm(%a, %b)", "%m = Gemm(%a, %b, %c)");
  biased = replaced(biased, "  init %wq", "  init %c : float32[24] = " + float_literal(c) + "\n  init %wq");
  expect_within_one_step(biased, "aq", a, "QLinearConv", "Gemm");
}

/// The residual add at -O0 and -O2: bit-equal, every element (uint8 and int8, with and
/// without the Relu, same shape and broadcast B, scales whose sums end in .5 and saturate).
TEST(QdqFusionNumerics, ResidualAddIsExact) {
  std::mt19937 rng(37);
  for (const std::string type : {"uint8", "int8"}) {
    for (bool relu : {false, true}) {
      for (bool broadcast : {false, true}) {
        for (const char* scales : {"0.5 0.25 0.5", "0.0173 0.0291 0.0127", "0.05 0.05 0.1"}) {
          float as, bs, ys;
          std::sscanf(scales, "%f %f %f", &as, &bs, &ys);
          const bool s8 = type == "int8";
          const std::vector<int64_t> b_dims =
              broadcast ? std::vector<int64_t>{8, 1, 1} : std::vector<int64_t>{1, 8, 5, 7};
          std::uniform_int_distribution<int> byte(s8 ? -128 : 0, s8 ? 127 : 255);
          std::vector<int> b(static_cast<size_t>(broadcast ? 8 : 280));
          for (int& v : b) v = byte(rng);
          Tensor a = Tensor::zeros(s8 ? DataType::kInt8 : DataType::kUInt8, {1, 8, 5, 7});
          for (int64_t i = 0; i < a.element_count(); ++i)
            static_cast<uint8_t*>(a.raw_data())[i] = static_cast<uint8_t>(byte(rng));
          std::string dims = "[" + std::to_string(b_dims[0]);
          for (size_t d = 1; d < b_dims.size(); ++d) dims += "," + std::to_string(b_dims[d]);
          dims += "]";
          char numbers[256];
          std::snprintf(
              numbers, sizeof(numbers),
              "  init %%as : float32[] = [%.9g]\n  init %%az : %s[] = [%d]\n  init %%bs : float32[] = [%.9g]\n"
              "  init %%bz : %s[] = [%d]\n  init %%ys : float32[] = [%.9g]\n  init %%yz : %s[] = [%d]\n",
              as, type.c_str(), s8 ? -3 : 128, bs, type.c_str(), s8 ? 5 : 100, ys, type.c_str(), s8 ? 7 : 120);
          const std::string ir = "graph main (opset \"\"=13) {\n  input %aq : " + type +
                                 "[1,8,5,7]\n  init %bq : " + type + dims + " = " + literal(b) + "\n" + numbers +
                                 "  %a = DequantizeLinear(%aq, %as, %az) \"dq_a\"\n"
                                 "  %b = DequantizeLinear(%bq, %bs, %bz) \"dq_b\"\n"
                                 "  %s = Add(%a, %b) \"residual\"\n" +
                                 (relu ? "  %r = Relu(%s) \"relu\"\n  %y = QuantizeLinear(%r, %ys, %yz) \"q\"\n"
                                       : "  %y = QuantizeLinear(%s, %ys, %yz) \"q\"\n") +
                                 "  output %y\n}";
          const Outcome unfused = run_at(ir, 0, "aq", a);
          const Outcome fused = run_at(ir, 2, "aq", a);
          ASSERT_TRUE(unfused.output.defined() && fused.output.defined()) << ir;
          EXPECT_NE(std::find(fused.ops.begin(), fused.ops.end(), "QLinearAdd"), fused.ops.end()) << ir;
          EXPECT_EQ(std::find(fused.ops.begin(), fused.ops.end(), "Add"), fused.ops.end()) << ir;
          ASSERT_EQ(fused.output.shape(), unfused.output.shape());
          ASSERT_EQ(fused.output.dtype(), unfused.output.dtype());
          int64_t differing = 0, saturated = 0;
          for (int64_t i = 0; i < fused.output.element_count(); ++i) {
            const int64_t x = fused.output.scalar_as_int64(i), y = unfused.output.scalar_as_int64(i);
            differing += x != y;
            saturated += y == (s8 ? 127 : 255) || y == (s8 ? -128 : 0);
          }
          EXPECT_EQ(differing, 0) << type << " relu " << relu << " broadcast " << broadcast << " scales " << scales;
          if (scales[0] == '0' && scales[2] == '5') EXPECT_GT(saturated, 0) << "the case should saturate";
        }
      }
    }
  }
}

}  // namespace
}  // namespace ge::fusion
