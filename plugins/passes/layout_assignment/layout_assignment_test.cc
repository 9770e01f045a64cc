#include "layout_assignment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <unordered_map>

#include "ge/plugin_api/backend.h"
#include "ge/graph_text.h"
#include "plugin_test_env.h"

namespace ge::passes {
namespace {

using pass_testing::PluginEnvironment;

Tensor random_tensor(std::vector<int64_t> dims, uint32_t seed, float scale) {
  Tensor t = Tensor::zeros(DataType::kFloat32, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < t.element_count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

Value* conv(Graph& g, Value* x, int64_t in, int64_t out, int64_t k, uint32_t seed, const std::string& name) {
  Value* w = g.add_initializer(name + "_w", random_tensor({out, in, k, k}, seed, 0.5f / static_cast<float>(in)));
  Value* b = g.add_initializer(name + "_b", random_tensor({out}, seed + 1, 0.1f));
  Node* node = g.add_node("Conv", {x, w, b}, 1, name, {name + "_y"});
  node->set_attribute("pads", Attribute(std::vector<int64_t>(4, k / 2)));
  return node->output(0);
}

// input -> Conv(3->16) -> Relu -> Conv(16->16) -> Add(residual) -> Relu -> MaxPool
//   -> Conv(16->16) -> Sigmoid -> Mul(by a [1,1,6,6] spatial gate: plain only)
//   -> GlobalAveragePool -> Flatten -> output; plus a Relu output of the first block.
std::unique_ptr<Graph> make_model() {
  auto g = std::make_unique<Graph>();
  g->set_opset_import("", 13);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 3, 12, 12}));
  Value* a = g->add_node("Relu", {conv(*g, x, 3, 16, 3, 1, "c1")}, 1, "r1", {"a"})->output(0);
  Value* h = conv(*g, a, 16, 16, 3, 3, "c2");
  Value* s = g->add_node("Add", {h, a}, 1, "add", {"s"})->output(0);
  Value* r = g->add_node("Relu", {s}, 1, "r2", {"r"})->output(0);
  Node* pool = g->add_node("MaxPool", {r}, 1, "pool", {"p"});
  pool->set_attribute("kernel_shape", Attribute(std::vector<int64_t>{2, 2}));
  pool->set_attribute("strides", Attribute(std::vector<int64_t>{2, 2}));
  Value* c3 = conv(*g, pool->output(0), 16, 16, 1, 5, "c3");
  Value* sig = g->add_node("Sigmoid", {c3}, 1, "sig", {"sig"})->output(0);
  Value* gate = g->add_initializer("gate", random_tensor({1, 1, 6, 6}, 7, 1.0f));
  Value* m = g->add_node("Mul", {sig, gate}, 1, "gated", {"m"})->output(0);
  Value* gap = g->add_node("GlobalAveragePool", {m}, 1, "gap", {"gap"})->output(0);
  Value* flat = g->add_node("Flatten", {gap}, 1, "flatten", {"flat"})->output(0);
  g->add_output(flat);
  Value* side = g->add_node("Relu", {r}, 1, "side", {"side"})->output(0);
  g->add_output(side);
  return g;
}

// Runs `graph` node by node on the cpu backend's kernels; returns the graph outputs.
std::vector<Tensor> execute(const Graph& graph, const Tensor& input) {
  Backend* cpu = PluginEnvironment::get().cpu();
  std::unordered_map<const Value*, Tensor> tensors;
  tensors[graph.inputs().front()] = input;
  for (const Value* init : graph.initializers()) tensors[init] = *init->constant();
  auto order = graph.topological_order();
  EXPECT_TRUE(order.is_ok());
  for (const Node* node : *order) {
    Result<PreparedKernel> kernel = cpu->prepare(*node);
    EXPECT_TRUE(kernel.is_ok()) << kernel.status().to_string();
    if (!kernel.is_ok()) return {};
    std::vector<const void*> inputs;
    for (const Value* in : node->inputs()) inputs.push_back(in != nullptr ? tensors.at(in).raw_data() : nullptr);
    std::vector<void*> outputs;
    for (const Value* out : node->outputs()) {
      tensors[out] = Tensor::zeros(out->desc().dtype, out->desc().static_dims());
      outputs.push_back(tensors[out].raw_data());
    }
    std::vector<unsigned char> workspace(kernel->workspace_bytes + 1);
    KernelArgs args{inputs.data(), outputs.data(), workspace.data(), kernel->params.get()};
    EXPECT_EQ(kernel->function(args), 0) << node->describe();
  }
  std::vector<Tensor> results;
  for (const Value* out : graph.outputs()) results.push_back(tensors.at(out));
  return results;
}

std::string format_of(const Graph& g, const std::string& value) { return g.find_value(value)->desc().format; }

/// Runs only the layout_assignment pass (verifying the graph after it) on the cpu backend.
Status assign_layouts(Graph& g) {
  PluginEnvironment& env = PluginEnvironment::get();
  PassManagerOptions options;
  options.explicit_passes = std::vector<std::string>{"layout_assignment"};
  options.verify_each = true;
  PassManager manager(env.host().passes(), env.ops(), options);
  return manager.run(g, env.cpu(), env.cpu());
}

/// Every output element within 1e-4 relative of the one before the pass.
void expect_same_outputs(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t o = 0; o < expected.size(); ++o) {
    for (int64_t i = 0; i < expected[o].element_count(); ++i) {
      const float e = expected[o].data<float>()[i], a = actual[o].data<float>()[i];
      ASSERT_NEAR(a, e, 1e-4 * (1 + std::fabs(e))) << "output " << o << " element " << i;
    }
  }
}

int count_op(const Graph& g, const std::string& op) {
  int count = 0;
  for (const auto& node : g.nodes()) count += node->op_type() == op;
  return count;
}

TEST(LayoutAssignment, KeepsConvChainsBlockedWithReordersAtBoundaries) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "ge_fused", "cpu", "layout_assignment"}).is_ok());
  std::unique_ptr<Graph> g = make_model();
  ASSERT_TRUE(env.ops().infer_graph(*g).is_ok());
  const Tensor input = random_tensor({1, 3, 12, 12}, 42, 1.0f);
  const std::vector<Tensor> expected = execute(*g, input);

  ASSERT_TRUE(assign_layouts(*g).is_ok());

  const std::string blocked = format_of(*g, "c1_y");
  ASSERT_FALSE(blocked.empty()) << print_graph(*g);
  // The conv chain, its residual Add and Relus, and the pool stay blocked.
  for (const char* name : {"a", "c2_y", "s", "r", "p"}) EXPECT_EQ(format_of(*g, name), blocked) << name;
  // Graph I/O stays plain; so do values whose only blocked user is matched by a plain-only
  // one (c3 -> Sigmoid -> broadcasting Mul: a reorder would buy nothing), and 1x1 maps.
  for (const char* name : {"x", "c3_y", "sig", "m", "gap", "flat", "side"}) EXPECT_EQ(format_of(*g, name), "") << name;
  // One reorder: r -> plain for the Relu that writes a graph output.
  EXPECT_EQ(count_op(*g, "TransData"), 1) << print_graph(*g);
  EXPECT_NE(print_graph(*g).find("{" + blocked + "}"), std::string::npos) << "--dump-graph shows formats";

  expect_same_outputs(execute(*g, input), expected);

  // The text IR round-trips the formats.
  auto reparsed = parse_graph(print_graph(*g));
  ASSERT_TRUE(reparsed.is_ok()) << reparsed.status().to_string();
  EXPECT_EQ((*reparsed)->find_value("c2_y")->desc().format, blocked);
  // Re-inference keeps them.
  ASSERT_TRUE(env.ops().infer_graph(**reparsed).is_ok());
  EXPECT_EQ((*reparsed)->find_value("s")->desc().format, blocked);
}

// Squeeze-excite: a per-channel gate multiplies a blocked tensor in place (oneDNN's
// binary), and Concat of blocked branches stays blocked: no reorder inside the chain.
TEST(LayoutAssignment, PerChannelMulAndConcatStayBlocked) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "ge_fused", "cpu", "layout_assignment"}).is_ok());
  auto g = std::make_unique<Graph>();
  g->set_opset_import("", 13);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 3, 10, 10}));
  Value* a = conv(*g, x, 3, 16, 3, 1, "c1");
  Value* pooled = g->add_node("GlobalAveragePool", {a}, 1, "gap", {"gap"})->output(0);
  Value* gate = g->add_node("Sigmoid", {conv(*g, pooled, 16, 16, 1, 3, "se")}, 1, "sig", {"gate"})->output(0);
  Value* scaled = g->add_node("Mul", {a, gate}, 1, "scale", {"scaled"})->output(0);
  // Channel counts that both native blocks (8 and 16) divide.
  Value* b = conv(*g, scaled, 16, 16, 3, 5, "c2");
  Node* cat = g->add_node("Concat", {scaled, b}, 1, "cat", {"cat"});
  cat->set_attribute("axis", Attribute(int64_t{1}));
  g->add_output(conv(*g, cat->output(0), 32, 4, 1, 7, "c3"));
  ASSERT_TRUE(env.ops().infer_graph(*g).is_ok());
  const Tensor input = random_tensor({1, 3, 10, 10}, 43, 1.0f);
  const std::vector<Tensor> expected = execute(*g, input);

  ASSERT_TRUE(assign_layouts(*g).is_ok());
  const std::string blocked = format_of(*g, "c1_y");
  ASSERT_FALSE(blocked.empty()) << print_graph(*g);
  for (const char* name : {"scaled", "c2_y", "cat"}) EXPECT_EQ(format_of(*g, name), blocked) << name;
  EXPECT_EQ(format_of(*g, "gate"), "");  // [1, 16, 1, 1]: alike in both
  EXPECT_EQ(count_op(*g, "TransData"), 0) << print_graph(*g);

  expect_same_outputs(execute(*g, input), expected);
}

TEST(LayoutAssignment, DoesNothingWithoutPreferringOps) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu", "layout_assignment"}).is_ok());
  auto g = std::make_unique<Graph>();
  g->set_opset_import("", 13);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 16, 4, 4}));
  g->add_output(g->add_node("Relu", {x}, 1, "r", {"y"})->output(0));
  ASSERT_TRUE(env.ops().infer_graph(*g).is_ok());
  LayoutAssignment pass;
  PassContext context;
  context.ops = &env.ops();
  context.target_backend = env.cpu();
  bool changed = false;
  ASSERT_TRUE(pass.run(*g, context, changed).is_ok());
  EXPECT_FALSE(changed);
  context.target_backend = nullptr;
  ASSERT_TRUE(pass.run(*g, context, changed).is_ok());
  EXPECT_FALSE(changed);
}

TEST(LayoutAssignment, ValuesSubgraphsCaptureStayPlain) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu", "layout_assignment"}).is_ok());
  std::unique_ptr<Graph> g = make_model();
  // An If whose branches read "r" (a blocked candidate) by name.
  Value* condition = g->add_initializer("condition", Tensor::from_vector<uint8_t>({}, {1}));
  condition->mutable_desc().dtype = DataType::kBool;
  auto branch = [&](const char* name) {
    auto body = std::make_shared<Graph>(name);
    body->set_parent(g.get());
    Value* captured = body->add_capture("r", g->find_value("r")->desc());
    body->add_output(body->add_node("Relu", {captured}, 1, std::string(name) + "_relu", {std::string(name) + "_y"})->output(0));
    return body;
  };
  Node* node = g->add_node("If", {condition}, 1, "if", {"if_y"});
  node->set_attribute("then_branch", Attribute(branch("then")));
  node->set_attribute("else_branch", Attribute(branch("else")));
  g->add_output(node->output(0));
  ASSERT_TRUE(env.ops().infer_graph(*g).is_ok());
  LayoutAssignment pass;
  PassContext context;
  context.ops = &env.ops();
  context.target_backend = env.cpu();
  bool changed = false;
  ASSERT_TRUE(pass.run(*g, context, changed).is_ok());
  EXPECT_EQ(format_of(*g, "r"), "");
  EXPECT_EQ(format_of(*g, "s"), "");  // r's group: s -> Relu -> r
}

// x -> QuantizeLinear -> QLinearConv(16->32, 3x3) -> QLinearConv(32->32, 1x1)
//   -> QLinearConv(32->16, 3x3) -> DequantizeLinear -> output: int8 weights with zero point 0
// (no compensation) and constant scales, which oneDNN's int8 convolutions requantise
// themselves, reading and writing channels-last.
std::unique_ptr<Graph> make_int8_chain() {
  auto g = std::make_unique<Graph>();
  g->set_opset_import("", 13);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> weight(-60, 60);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 16, 8, 8}));
  Value* scale = g->add_initializer("scale", Tensor::from_vector<float>({}, {0.05f}));
  Value* zero = g->add_initializer("zero", Tensor::from_vector<uint8_t>({}, {128}));
  Value* q = g->add_node("QuantizeLinear", {x, scale, zero}, 1, "q", {"xq"})->output(0);
  auto conv = [&](Value* in, int64_t c, int64_t m, int64_t k, const std::string& name) {
    std::vector<int8_t> w(static_cast<size_t>(m * c * k * k));
    for (int8_t& v : w) v = static_cast<int8_t>(weight(rng));
    Value* wq = g->add_initializer(name + "_w", Tensor::from_vector<int8_t>({m, c, k, k}, w));
    Value* ws = g->add_initializer(name + "_ws", Tensor::from_vector<float>({}, {0.004f}));
    Value* wz = g->add_initializer(name + "_wz", Tensor::from_vector<int8_t>({}, {0}));
    Value* ys = g->add_initializer(name + "_ys", Tensor::from_vector<float>({}, {0.2f}));
    Node* node = g->add_node("QLinearConv", {in, scale, zero, wq, ws, wz, ys, zero}, 1, name, {name + "_y"});
    node->set_attribute("pads", Attribute(std::vector<int64_t>(4, k / 2)));
    return node->output(0);
  };
  Value* c1 = conv(q, 16, 32, 3, "c1");
  Value* c2 = conv(c1, 32, 32, 1, "c2");
  Value* c3 = conv(c2, 32, 16, 3, "c3");
  g->add_output(g->add_node("DequantizeLinear", {c3, scale, zero}, 1, "dq", {"y"})->output(0));
  return g;
}

// Quantised activations stay channels-last between int8 convolutions (no transposes in
// or out of each), with the same bytes out.
TEST(LayoutAssignment, KeepsInt8ConvChainsChannelsLast) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu", "layout_assignment"}).is_ok());
  std::unique_ptr<Graph> g = make_int8_chain();
  ASSERT_TRUE(env.ops().infer_graph(*g).is_ok());
  if (env.cpu()->format_capability(*g->find_node("c2")).outputs.empty()) {
    GTEST_SKIP() << "no VNNI: the int8 convolutions run plain on this CPU";
  }
  const Tensor input = random_tensor({1, 16, 8, 8}, 5, 4.0f);
  const std::vector<Tensor> expected = execute(*g, input);
  ASSERT_TRUE(assign_layouts(*g).is_ok());
  EXPECT_EQ(format_of(*g, "c1_y"), "nhwc") << print_graph(*g);
  EXPECT_EQ(format_of(*g, "c2_y"), "nhwc") << print_graph(*g);
  // The quantised input comes from the plain graph input; the last output goes plain to
  // the graph output: both stay plain, read and written by the convolutions themselves.
  EXPECT_EQ(format_of(*g, "xq"), "");
  EXPECT_EQ(format_of(*g, "c3_y"), "");
  EXPECT_EQ(count_op(*g, "TransData"), 0) << print_graph(*g);
  const std::vector<Tensor> actual = execute(*g, input);
  ASSERT_EQ(actual.size(), 1u);
  EXPECT_EQ(std::memcmp(actual[0].raw_data(), expected[0].raw_data(), expected[0].byte_size()), 0);
}

// A Dequantize/Quantize pair with one scale is elementwise: it carries the channels-last
// format between two int8 convolutions rather than ending it.
TEST(LayoutAssignment, QuantizePairsCarryTheChannelsLastFormat) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu", "layout_assignment"}).is_ok());
  std::unique_ptr<Graph> g = make_int8_chain();
  // c1 -> DequantizeLinear -> Relu -> QuantizeLinear -> c2
  Node* c2 = g->find_node("c2");
  Value* scale = g->find_value("scale");
  Value* zero = g->find_value("zero");
  Value* d = g->add_node("DequantizeLinear", {g->find_value("c1_y"), scale, zero}, 1, "dq1", {"d1"})->output(0);
  Value* r = g->add_node("Relu", {d}, 1, "relu", {"r1"})->output(0);
  c2->set_input(0, g->add_node("QuantizeLinear", {r, scale, zero}, 1, "q1", {"q1"})->output(0));
  ASSERT_TRUE(env.ops().infer_graph(*g).is_ok());
  if (env.cpu()->format_capability(*c2).outputs.empty()) {
    GTEST_SKIP() << "no VNNI: the int8 convolutions run plain on this CPU";
  }
  const Tensor input = random_tensor({1, 16, 8, 8}, 6, 4.0f);
  const std::vector<Tensor> expected = execute(*g, input);
  ASSERT_TRUE(assign_layouts(*g).is_ok());
  for (const char* name : {"c1_y", "d1", "r1", "q1", "c2_y"}) EXPECT_EQ(format_of(*g, name), "nhwc") << name;
  EXPECT_EQ(count_op(*g, "TransData"), 0) << print_graph(*g);
  const std::vector<Tensor> actual = execute(*g, input);
  ASSERT_EQ(actual.size(), 1u);
  EXPECT_EQ(std::memcmp(actual[0].raw_data(), expected[0].raw_data(), expected[0].byte_size()), 0);
}

TEST(LayoutAssignment, ReferenceKernelsRefuseBlockedTensorsTheyCannotRead) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu"}).is_ok());
  auto g = std::make_unique<Graph>();
  g->set_opset_import("", 13);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 16, 4, 4}));
  x->mutable_desc().format = "nChw16c";
  Node* softmax = g->add_node("Softmax", {x}, 1, "sm", {"y"});
  softmax->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 16, 4, 4}));
  Result<PreparedKernel> kernel = env.cpu()->prepare(*softmax);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("runs plain (row-major) tensors only"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ge::passes
