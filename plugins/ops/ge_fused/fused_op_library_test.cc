#include "fused_op_library.h"

#include <gtest/gtest.h>

#include "ge/graph_text.h"
#include "plugin_test_env.h"

namespace ge::fused_ops {
namespace {

using pass_testing::PluginEnvironment;

/// Parses `ir` and infers it with the build's op libraries; the inferred text or the error.
std::string infer(const std::string& ir) {
  Status required = PluginEnvironment::get().require({"onnx_std", "ge_fused"});
  if (!required.is_ok()) return required.to_string();
  auto graph = parse_graph(ir);
  if (!graph.is_ok()) return graph.status().to_string();
  Status status = PluginEnvironment::get().ops().infer_graph(**graph);
  return status.is_ok() ? print_graph(**graph) : status.message();
}

TEST(FusedOpLibrary, FusedConvInfersLikeConv) {
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %x : float32[N,3,8,8]
  init %w : float32[4,3,3,3] = float32[4,3,3,3] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  %y = ge::FusedConv(%x, %w) {activation: string = "Clip", activation_params: floats = [0, 6], pads: ints = [1, 1, 1, 1], strides: ints = [2, 2]} "c"
  output %y
})"),
            R"(graph g (opset ""=17, "ge"=1) {
  input %x : float32[N,3,8,8]
  init %w : float32[4,3,3,3] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  %y : float32[N,4,4,4] = ge::FusedConv(%x, %w) {activation: string = "Clip", activation_params: floats = [0, 6], pads: ints = [1, 1, 1, 1], strides: ints = [2, 2]} "c"
  output %y
}
)");
}

TEST(FusedOpLibrary, FusedGemmAndMatMulInferLikeTheStandardOps) {
  const std::string out = infer(R"(graph g (opset ""=17, "ge"=1) {
  input %a : float32[2,3]
  input %b : float32[5,3]
  input %c : float32[5]
  input %x : float32[B,7,3]
  input %w : float32[3,5]
  %g = ge::FusedGemm(%a, %b, %c) {activation: string = "LeakyRelu", activation_params: floats = [0.1], transB: int = 1} "gemm"
  %m = ge::FusedMatMul(%x, %w, %c) {activation: string = "Relu"} "mm"
  output %g
  output %m
})");
  EXPECT_NE(out.find("%g : float32[2,5] = ge::FusedGemm"), std::string::npos) << out;
  EXPECT_NE(out.find("%m : float32[B,7,5] = ge::FusedMatMul"), std::string::npos) << out;
}

// ge_autofuse::Fused takes its outputs' dtypes and dims from its program and checks its
// inputs against it: here a float16 and a bool input, a float32 and a bool output.
TEST(FusedOpLibrary, AutofusedInfersDtypesFromItsProgram) {
  const std::string program =
      "autofuse 1\\nshape 2 4\\nreduce 0\\ninput float16 2 4\\ninput bool 4\\n%0 = load 0\\n%1 = load 1\\n"
      "%2 = const 0\\n%3 = where %1 %0 %2\\n%4 = greater %3 %2\\noutput %3 2 4\\noutput %4 bool 2 4\\n";
  auto graph_with = [&](const std::string& mask_type) {
    return R"(graph g (opset ""=17, "ge_autofuse"=1) {
  input %x : float16[2,4]
  input %keep : )" +
           mask_type + R"([4]
  %y, %z = ge_autofuse::Fused(%x, %keep) {program: string = ")" +
           program + R"("} "fused"
  output %y
  output %z
})";
  };
  const std::string out = infer(graph_with("bool"));
  EXPECT_NE(out.find("%y : float32[2,4], %z : bool[2,4] = ge_autofuse::Fused"), std::string::npos) << out;
  EXPECT_EQ(infer(graph_with("float32")),
            "shape inference in graph 'g': ge_autofuse::Fused 'fused': input 1 %keep is float32[4], its program "
            "expects bool[4]");
}

TEST(FusedOpLibrary, RejectsBadActivationsAndBiases) {
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %a : float32[2,3]
  input %b : float32[3,4]
  %y = ge::FusedMatMul(%a, %b) {activation: string = "Mish"} "mm"
  output %y
})"),
            "shape inference in graph 'g': ge::FusedMatMul 'mm': attribute 'activation' is 'Mish', expected one of "
            "Relu, Sigmoid, Tanh, HardSwish, LeakyRelu, HardSigmoid, Clip, Gelu, Swish");
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %a : float32[2,3]
  input %b : float32[3,4]
  %y = ge::FusedMatMul(%a, %b) {activation: string = "Clip", activation_params: floats = [0]} "mm"
  output %y
})"),
            "shape inference in graph 'g': ge::FusedMatMul 'mm': activation Clip takes 2 activation_params, got 1");
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %a : float32[2,3]
  input %b : float32[3,4]
  input %bias : float32[3]
  %y = ge::FusedMatMul(%a, %b, %bias) "mm"
  output %y
})"),
            "shape inference in graph 'g': ge::FusedMatMul 'mm': bias %bias float32[3] does not broadcast to the "
            "product float32[2,4]");
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %x : float32[2]
  %y = ge::Gelu(%x) {approximate: string = "fast"} "gelu"
  output %y
})"),
            "shape inference in graph 'g': ge::Gelu 'gelu': attribute 'approximate' is 'fast', expected 'none' or "
            "'tanh'");
  // Of another type, get_string read it as the default: the erf form, no activation.
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %x : float32[2]
  %y = ge::Gelu(%x) {approximate: int = 1} "gelu"
  output %y
})"),
            "shape inference in graph 'g': ge::Gelu 'gelu': attribute 'approximate' is int, expected string");
  EXPECT_EQ(infer(R"(graph g (opset ""=17, "ge"=1) {
  input %a : float32[2,3]
  input %b : float32[3,4]
  %y = ge::FusedMatMul(%a, %b) {activation: ints = [1]} "mm"
  output %y
})"),
            "shape inference in graph 'g': ge::FusedMatMul 'mm': attribute 'activation' is ints, expected string");
}

TEST(FusedOpLibrary, ConvErrorsNameTheFusedNode) {
  const std::string error = infer(R"(graph g (opset ""=17, "ge"=1) {
  input %x : float32[1,3,8,8]
  input %w : float32[4,3,3]
  %y = ge::FusedConv(%x, %w) "c"
  output %y
})");
  EXPECT_NE(error.find("ge::FusedConv 'c' (inferred as Conv)"), std::string::npos) << error;
}

TEST(FusedOpLibrary, StandardOpsInferInModelsWhoseOpsetPredatesThem) {
  // ai.onnx has LayerNormalization from opset 17 and HardSwish from 14: the "ge" copies
  // infer as those ops in an opset 13 model.
  const std::string out = infer(R"(graph g (opset ""=13, "ge"=1) {
  input %x : float32[B,7,4]
  init %scale : float32[4] = [1, 1, 1, 1]
  init %bias : float32[4] = [0, 0, 0, 0]
  %n = ge::LayerNormalization(%x, %scale, %bias) {axis: int = -1, epsilon: float = 0.00001} "norm"
  %h = ge::HardSwish(%n) "hard_swish"
  output %h
})");
  EXPECT_NE(out.find("%n : float32[B,7,4] = ge::LayerNormalization"), std::string::npos) << out;
  EXPECT_NE(out.find("%h : float32[B,7,4] = ge::HardSwish"), std::string::npos) << out;
  EXPECT_EQ(infer(R"(graph g (opset ""=13, "ge"=1) {
  input %x : float32[2,4]
  %n = ge::LayerNormalization(%x) "norm"
  output %n
})"),
            "shape inference in graph 'g': ge::LayerNormalization 'norm': has 1 inputs and 1 outputs, expected 2..3 "
            "inputs and 1 output");
  EXPECT_EQ(infer(R"(graph g (opset ""=13, "ge"=1) {
  input %x : float32[2,4]
  %h = ge::HardSwish() "hard_swish"
  output %h
})"),
            "shape inference in graph 'g': ge::HardSwish 'hard_swish': has 0 inputs and 1 outputs, expected 1..1 "
            "inputs and 1 output");
}

TEST(FusedOpLibrary, QLinearAddBroadcastsAsAddAndChecksItsInputs) {
  const std::string head = R"(graph g (opset ""=13, "ge"=1) {
  input %a : uint8[N,8,1,7]
  input %b : uint8[8,5,1]
  init %s : float32[] = [0.5]
  init %z : uint8[] = [3]
)";
  const std::string out = infer(head + R"(  %y = ge::QLinearAdd(%a, %s, %z, %b, %s, _, %s) {relu: int = 1} "add"
  output %y
})");
  EXPECT_NE(out.find("%y : uint8[N,8,5,7] = ge::QLinearAdd(%a, %s, %z, %b, %s, _, %s)"), std::string::npos) << out;
  // B of another type, a per-channel scale, shapes that do not broadcast, no B.
  EXPECT_EQ(infer(R"(graph g (opset ""=13, "ge"=1) {
  input %a : uint8[2]
  input %b : int8[2]
  init %s : float32[] = [0.5]
  %y = ge::QLinearAdd(%a, %s, _, %b, %s, _, %s) "add"
  output %y
})"),
            "shape inference in graph 'g': ge::QLinearAdd 'add': input B %b is int8[2], expected uint8");
  EXPECT_EQ(infer(R"(graph g (opset ""=13, "ge"=1) {
  input %a : uint8[2]
  init %s : float32[] = [0.5]
  init %c : float32[2] = [0.5, 1]
  %y = ge::QLinearAdd(%a, %c, _, %a, %s, _, %s) "add"
  output %y
})"),
            "shape inference in graph 'g': ge::QLinearAdd 'add': input A_scale %c is float32[2], expected a scalar "
            "(per-tensor "
            "quantisation)");
  EXPECT_EQ(infer(R"(graph g (opset ""=13, "ge"=1) {
  input %a : uint8[2]
  input %b : uint8[3]
  init %s : float32[] = [0.5]
  %y = ge::QLinearAdd(%a, %s, _, %b, %s, _, %s) "add"
  output %y
})"),
            "shape inference in graph 'g': ge::QLinearAdd 'add': A uint8[2] and B uint8[3] do not broadcast");
}

}  // namespace
}  // namespace ge::fused_ops
