// Gradient expansion: structure of the rewritten graph, and numbers from the real cpu
// backend against hand-derived derivatives.
#include "gradient_expansion.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ge/graph_text.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge::onnx_parser {
namespace {

using pass_testing::PluginEnvironment;

// q = (Relu(a * w) - b) / b with a [2,3], b [3] and w [3] broadcast along a's rows.
constexpr const char* kModel = R"(graph main (opset ""=17, "ai.onnx.preview.training"=1) {
  input %a : float32[2,3]
  input %b : float32[3]
  init %w : float32[3] = [2, -1, 0.5]
  %m = Mul(%a, %w) "scale"
  %r = Relu(%m) "relu"
  %s = Sub(%r, %b) "shift"
  %q = Div(%s, %b) "ratio"
  %ga, %gb, %gw = ai.onnx.preview.training::Gradient(%a, %b, %w) {xs: strings = ["a", "b", "w"], y: string = "q"} "grad"
  output %q
  output %ga
  output %gb
  output %gw
})";

std::unique_ptr<Graph> expanded(const char* text) {
  auto graph = parse_graph(text);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (!graph.is_ok()) return nullptr;
  Status s = expand_gradients(**graph);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return std::move(graph).value();
}

TEST(GradientExpansion, ReplacesTheNodeKeepingOutputNames) {
  auto graph = expanded(kModel);
  ASSERT_NE(graph, nullptr);
  for (const auto& node : graph->nodes()) EXPECT_NE(node->op_type(), "Gradient");
  ASSERT_EQ(graph->outputs().size(), 4u);
  EXPECT_EQ(graph->outputs()[1]->name(), "ga");
  EXPECT_EQ(graph->outputs()[2]->name(), "gb");
  EXPECT_EQ(graph->outputs()[3]->name(), "gw");
  EXPECT_EQ(graph->outputs()[1]->producer()->op_type(), "Identity");
}

TEST(GradientExpansion, MatchesHandDerivedDerivativesOnTheCpuBackend) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu"}).is_ok()) << env.require({"onnx_std", "cpu"}).to_string();
  auto graph = expanded(kModel);
  ASSERT_NE(graph, nullptr);
  auto session = Session::create(env.host(), std::move(graph), SessionOptions{});
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  const std::vector<float> a = {1, 2, -3, -1, 4, 2};
  const std::vector<float> b = {0.5f, 2, -4};
  const std::vector<float> w = {2, -1, 0.5f};
  std::vector<Tensor> out;
  Status s = (*session)->run({{"a", Tensor::from_vector<float>({2, 3}, a)}, {"b", Tensor::from_vector<float>({3}, b)}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_EQ(out.size(), 4u);
  ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(out[2].shape(), (std::vector<int64_t>{3}));
  ASSERT_EQ(out[3].shape(), (std::vector<int64_t>{3}));
  std::vector<double> gb(3, 0.0), gw(3, 0.0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const double m = a[i * 3 + j] * w[j];
      const double active = m > 0 ? 1.0 : 0.0;
      const double r = m > 0 ? m : 0.0;
      // dq/da = [m > 0] w / b; dq/db = -r / b^2 (summed over rows); dq/dw = [m > 0] a / b.
      EXPECT_NEAR(out[1].data<float>()[i * 3 + j], active * w[j] / b[j], 1e-6) << i << "," << j;
      gb[j] += -r / (b[j] * b[j]);
      gw[j] += active * a[i * 3 + j] / b[j];
    }
  }
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(out[2].data<float>()[j], gb[j], 1e-5) << j;
    EXPECT_NEAR(out[3].data<float>()[j], gw[j], 1e-5) << j;
  }
}

TEST(GradientExpansion, ValueOffThePathGetsZeros) {
  auto graph = expanded(R"(graph main (opset ""=12, "ai.onnx.preview.training"=1) {
  input %a : float32[2]
  input %c : float32[2]
  %y = Neg(%a) "neg"
  %ga, %gc = ai.onnx.preview.training::Gradient(%a, %c) {xs: strings = ["a", "c"], y: string = "y"} "grad"
  output %ga
  output %gc
})");
  ASSERT_NE(graph, nullptr);
  const Value* gc = graph->outputs()[1];
  ASSERT_NE(gc->producer(), nullptr);
  const Value* zeros = gc->producer()->input(0);
  ASSERT_NE(zeros->constant(), nullptr);
  EXPECT_EQ(zeros->constant()->shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(zeros->constant()->data<float>()[1], 0.0f);
}

TEST(GradientExpansion, UnsupportedOpsAndBadNamesAreClearErrors) {
  auto exp = parse_graph(R"(graph main (opset ""=17, "ai.onnx.preview.training"=1) {
  input %a : float32[2]
  %y = Exp(%a) "exp"
  %ga = ai.onnx.preview.training::Gradient(%a) {xs: strings = ["a"], y: string = "y"} "grad"
  output %ga
})");
  ASSERT_TRUE(exp.is_ok());
  Status s = expand_gradients(**exp);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("cannot differentiate Exp 'exp'"), std::string::npos) << s.message();

  // Opset 6: b is added to a's rows (axis 0), not to its columns as numpy would.
  auto legacy = parse_graph(R"(graph main (opset ""=6, "ai.onnx.preview.training"=1) {
  input %a : float32[2,2]
  input %b : float32[2]
  %y = Add(%a, %b) {axis: int = 0, broadcast: int = 1} "add"
  %gb = ai.onnx.preview.training::Gradient(%b) {xs: strings = ["b"], y: string = "y"} "grad"
  output %gb
})");
  ASSERT_TRUE(legacy.is_ok());
  s = expand_gradients(**legacy);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.to_string();
  EXPECT_NE(s.message().find("cannot differentiate Add 'add': it broadcasts B from axis 0 (opset 6)"),
            std::string::npos)
      << s.message();

  auto missing = parse_graph(R"(graph main (opset ""=17, "ai.onnx.preview.training"=1) {
  input %a : float32[2]
  %ga = ai.onnx.preview.training::Gradient(%a) {xs: strings = ["a"], y: string = "nowhere"} "grad"
  output %ga
})");
  ASSERT_TRUE(missing.is_ok());
  s = expand_gradients(**missing);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("names 'nowhere', which is not a value of graph 'main'"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace ge::onnx_parser
