#include "autofusion.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fused_op_library.h"
#include "ge/autofuse/loop_ir.h"
#include "ge/plugin_api/backend.h"
#include "ge/graph_text.h"
#include "ge/verifier.h"
#include "onnx_op_library.h"

namespace ge::passes {
namespace {

/// The standard ops and the ge_fused library, linked in: enough to infer every graph here
/// before and after the pass.
const OpRegistry& registry() {
  static const OpRegistry ops = [] {
    OpRegistry r;
    r.add_library(std::make_shared<onnx_ops::OnnxOpLibrary>());
    r.add_library(std::make_shared<fused_ops::FusedOpLibrary>());
    return r;
  }();
  return ops;
}

std::unique_ptr<Graph> inferred(std::string_view ir) {
  Result<std::unique_ptr<Graph>> graph = parse_graph(ir);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (!graph.is_ok()) return std::make_unique<Graph>();
  Status status = registry().infer_graph(**graph);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  return std::move(*graph);
}

std::vector<const Node*> fused_nodes(const Graph& graph) {
  std::vector<const Node*> nodes;
  for (const auto& node : graph.nodes()) {
    if (node->domain() == "ge_autofuse" && node->op_type() == "Fused") nodes.push_back(node.get());
  }
  return nodes;
}

std::string program_of(const Node* node) { return node->get_string("program", ""); }

/// Runs the pass, then checks what every run must leave: a valid acyclic graph whose
/// programs parse back to themselves and which re-infers to the same descs.
bool run_autofusion(Graph& graph, AutofusionOptions options = {}, Backend* backend = nullptr,
                    const OpRegistry& ops = registry()) {
  Autofusion pass(options);
  PassContext context;
  context.ops = &ops;
  context.opt_level = 3;
  context.target_backend = backend;
  bool changed = false;
  Status status = pass.run(graph, context, changed);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  Status verified = verify_graph(graph);
  EXPECT_TRUE(verified.is_ok()) << verified.to_string() << "\n" << print_graph(graph);
  EXPECT_TRUE(graph.topological_order().is_ok());
  for (const Node* node : fused_nodes(graph)) {
    Result<autofuse::Program> parsed = autofuse::parse(program_of(node));
    EXPECT_TRUE(parsed.is_ok()) << parsed.status().to_string() << "\n" << program_of(node);
    if (parsed.is_ok()) {
      EXPECT_EQ(autofuse::print(*parsed), program_of(node));
    }
  }
  if (changed) {
    EXPECT_EQ(graph.opset_version("ge_autofuse"), 1);
  }
  const std::string before = print_graph(graph);
  Status reinferred = ops.infer_graph(graph);
  EXPECT_TRUE(reinferred.is_ok()) << reinferred.to_string();
  EXPECT_EQ(print_graph(graph), before) << "re-inference changes the descs the pass wrote";
  return changed;
}

size_t count_ops(const Graph& graph, const std::string& op_type) {
  size_t n = 0;
  for (const auto& node : graph.nodes()) n += node->op_type() == op_type ? 1 : 0;
  return n;
}

std::vector<std::string> output_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const Value* out : graph.outputs()) names.push_back(out->name());
  return names;
}

TEST(Autofusion, FusesAnElementwiseChainAndInlinesOneElementConstants) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8,16]
  init %scale : float32[] = [2]
  init %bias : float32[16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  %m = Mul(%x, %scale) "mul"
  %a = Add(%m, %bias) "add"
  %y = Relu(%a) "relu"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0]->name().rfind("autofuse_", 0), 0u) << fused[0]->name();
  EXPECT_EQ(g->find_node("mul"), nullptr);
  EXPECT_EQ(g->find_node("add"), nullptr);
  EXPECT_EQ(g->find_node("relu"), nullptr);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 8 16\n"
            "reduce 0\n"
            "input 8 16\n"
            "input 16\n"
            "%0 = load 0\n"
            "%1 = const 0x1p+1\n"
            "%2 = mul %0 %1\n"
            "%3 = load 1\n"
            "%4 = add %2 %3\n"
            "%5 = relu %4\n"
            "output %5 8 16\n");
  ASSERT_EQ(fused[0]->input_count(), 2u);
  EXPECT_EQ(fused[0]->input(0)->name(), "x");
  EXPECT_EQ(fused[0]->input(1)->name(), "bias");
  EXPECT_EQ(output_names(*g), std::vector<std::string>{"y"});
  EXPECT_EQ(g->outputs()[0]->producer(), fused[0]);
  EXPECT_EQ(g->outputs()[0]->desc(), TensorDesc::of(DataType::kFloat32, {8, 16}));
  EXPECT_FALSE(run_autofusion(*g)) << "a second run finds nothing";
}

// RMSNorm spelled out: y = x / sqrt(mean(x * x) + eps) * gamma over the last axis.
// A float16 chain (arithmetic, a float16 constant, a comparison and Where on float16
// branches) becomes one group computing in float32 with float16 inputs and outputs.
TEST(Autofusion, FusesFloat16ChainsWithFloat16InputsAndOutputs) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float16[4,8]
  input %z : float16[8]
  init %half : float16[] = [0x3800]
  %m = Mul(%x, %half) "mul"
  %a = Add(%m, %z) "add"
  %t = Tanh(%a) "tanh"
  %c = Greater(%t, %z) "greater"
  %y = Where(%c, %t, %m) "where"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 4 8\n"
            "reduce 0\n"
            "input float16 4 8\n"
            "input float16 8\n"
            "%0 = load 0\n"
            "%1 = const 0x1p-1\n"
            "%2 = mul %0 %1\n"
            "%3 = load 1\n"
            "%4 = add %2 %3\n"
            "%5 = tanh %4\n"
            "%6 = greater %5 %3\n"
            "%7 = where %6 %5 %2\n"
            "output %7 float16 4 8\n");
  EXPECT_EQ(g->outputs()[0]->desc(), TensorDesc::of(DataType::kFloat16, {4, 8}));
}

// BERT's integer attention mask: Cast(int64 mask) -> (1 - mask) * -10000 added to the
// scores, then Softmax: one group with the int64 mask as an input.
TEST(Autofusion, FusesAnInt64MaskThroughItsCast) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %scores : float32[2,8]
  input %mask : int64[2,8]
  init %one : float32[] = [1]
  init %big : float32[] = [-10000]
  %m = Cast(%mask) {to: int = 1} "cast"
  %inv = Sub(%one, %m) "sub"
  %bias = Mul(%inv, %big) "mul"
  %s = Add(%scores, %bias) "add"
  %y = Softmax(%s) {axis: int = -1} "softmax"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u) << print_graph(*g);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  Result<autofuse::Program> program = autofuse::parse(program_of(fused[0]));
  ASSERT_TRUE(program.is_ok());
  ASSERT_EQ(program.value().inputs.size(), 2u);
  const size_t mask = fused[0]->input(0)->name() == "mask" ? 0 : 1;
  EXPECT_EQ(fused[0]->input(mask)->name(), "mask");
  EXPECT_EQ(program.value().inputs[mask].dtype, DataType::kInt64);
  EXPECT_EQ(program.value().inputs[1 - mask].dtype, DataType::kFloat32);
}

// An int64 value enters a group only through a Cast: arithmetic on int64 stays out.
TEST(Autofusion, LeavesInt64ArithmeticAlone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : int64[4,8]
  %a = Add(%x, %x) "add"
  %m = Mul(%a, %x) "mul"
  %n = Neg(%m) "neg"
  output %n
})");
  EXPECT_FALSE(run_autofusion(*g));
  EXPECT_TRUE(fused_nodes(*g).empty());
}

// Before opset 7, Mul(broadcast = 1, axis = 1) scales row i of each [4,4] matrix by b[i];
// the program aligns b from the right and would scale column i.
TEST(Autofusion, LeavesLegacyBroadcastsFromAnAxisAlone) {
  auto g = inferred(R"(graph main (opset ""=6) {
  input %x : float32[2,4,4]
  input %b : float32[4]
  %m = Mul(%x, %b) {axis: int = 1, broadcast: int = 1} "mul"
  %n = Neg(%m) "neg"
  %e = Exp(%n) "exp"
  output %e
})");
  run_autofusion(*g);
  for (const Node* fused : fused_nodes(*g)) {
    EXPECT_EQ(program_of(fused).find("mul"), std::string::npos) << program_of(fused);
  }
  EXPECT_NE(g->find_node("mul"), nullptr);
}

// An op mixing float16 and float32 operands (no ONNX op does) stays out of groups.
TEST(Autofusion, LeavesOpsMixingFloat16AndFloat32Alone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float16[4,8]
  %c = Cast(%x) {to: int = 1} "cast"
  %e = Exp(%c) "exp"
  %n = Neg(%x) "neg"
  %y = Abs(%n) "abs"
  output %e
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  // Cast (an alias of its float16 input) + Exp, and Neg + Abs in float16: two groups of
  // one dtype each, never an op whose operands differ.
  for (const Node* node : fused_nodes(*g)) {
    Result<autofuse::Program> program = autofuse::parse(program_of(node));
    ASSERT_TRUE(program.is_ok());
    EXPECT_EQ(program.value().inputs[0].dtype, DataType::kFloat16);
  }
  EXPECT_EQ(g->outputs()[0]->desc().dtype, DataType::kFloat32);
  EXPECT_EQ(g->outputs()[1]->desc().dtype, DataType::kFloat16);
}

TEST(Autofusion, FusesASpelledOutRmsNormAroundItsReduction) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4,32]
  init %eps : float32[] = [0.0625]
  init %gamma : float32[32] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
  %sq = Mul(%x, %x) "square"
  %ms = ReduceMean(%sq) {axes: ints = [-1], keepdims: int = 1} "mean"
  %mse = Add(%ms, %eps) "add_eps"
  %rms = Sqrt(%mse) "sqrt"
  %n = Div(%x, %rms) "div"
  %y = Mul(%n, %gamma) "scale"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 4 32\n"
            "reduce 1\n"
            "input 4 32\n"
            "input 32\n"
            "%0 = load 0\n"
            "%1 = mul %0 %0\n"
            "%2 = reduce_mean %1\n"
            "%3 = const 0x1p-4\n"
            "%4 = add %2 %3\n"
            "%5 = sqrt %4\n"
            "%6 = div %0 %5\n"
            "%7 = load 1\n"
            "%8 = mul %6 %7\n"
            "output %8 4 32\n");
  EXPECT_EQ(output_names(*g), std::vector<std::string>{"y"});
}

TEST(Autofusion, ReadsConstantAxesInputsAndKeepdimsZero) {
  // Opset 13: ReduceSum's axes are an input. The sum (keepdims 0) is a row value of 4.
  auto g = inferred(R"(graph main (opset ""=13) {
  input %x : float32[4,32]
  init %axes : int64[1] = [-1]
  %e = Exp(%x) "exp"
  %s = ReduceSum(%e, %axes) {keepdims: int = 0} "sum"
  %r = Reciprocal(%s) "reciprocal"
  output %r
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 4 32\n"
            "reduce 1\n"
            "input 4 32\n"
            "%0 = load 0\n"
            "%1 = exp %0\n"
            "%2 = reduce_sum %1\n"
            "%3 = reciprocal %2\n"
            "output %3 4\n");
  EXPECT_EQ(fused[0]->input_count(), 1u) << "the axes are no program input";
}

TEST(Autofusion, ReducesOverEveryAxisWhenAxesAreAbsent) {
  auto g = inferred(R"(graph main (opset ""=13) {
  input %x : float32[3,5]
  %a = Abs(%x) "abs"
  %s = ReduceSum(%a) {keepdims: int = 0} "sum"
  %y = Sqrt(%s) "sqrt"
  %z = ReduceSum(%a) {noop_with_empty_axes: int = 1} "noop"
  output %y
  output %z
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_NE(g->find_node("noop"), nullptr) << "noop_with_empty_axes keeps it out";
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 3 5\n"
            "reduce 2\n"
            "input 3 5\n"
            "%0 = load 0\n"
            "%1 = abs %0\n"
            "%2 = reduce_sum %1\n"
            "%3 = sqrt %2\n"
            "output %1 3 5\n"
            "output %3\n");
}

TEST(Autofusion, FusesASpelledOutSoftmaxIntoOneGroup) {
  auto g = inferred(R"(graph main (opset ""=13) {
  input %x : float32[2,3,8]
  init %axes : int64[1] = [2]
  %m = ReduceMax(%x) {axes: ints = [-1]} "max"
  %d = Sub(%x, %m) "sub"
  %e = Exp(%d) "exp"
  %s = ReduceSum(%e, %axes) "sum"
  %y = Div(%e, %s) "div"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 2 3 8\n"
            "reduce 1\n"
            "input 2 3 8\n"
            "%0 = load 0\n"
            "%1 = reduce_max %0\n"
            "%2 = sub %0 %1\n"
            "%3 = exp %2\n"
            "%4 = reduce_sum %3\n"
            "%5 = div %3 %4\n"
            "output %5 2 3 8\n");
}

// Attention's tail: scale, a bool padding mask through Where, Softmax. The MatMuls stay;
// everything between them is one kernel, the mask loaded as bool.
TEST(Autofusion, FusesScaleMaskAndSoftmaxOfAttentionIntoOneNode) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %q : float32[2,4,8,16]
  input %k : float32[2,4,16,8]
  input %v : float32[2,4,8,16]
  input %keep : bool[2,1,1,8]
  init %scale : float32[] = [0.25]
  init %ninf : float32[] = [-inf]
  %s = MatMul(%q, %k) "qk"
  %t = Mul(%s, %scale) "scale"
  %m = Where(%keep, %t, %ninf) "mask"
  %p = Softmax(%m) {axis: int = -1} "softmax"
  %o = MatMul(%p, %v) "pv"
  output %o
})");
  EXPECT_TRUE(run_autofusion(*g));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(g->node_count(), 3u) << print_graph(*g);
  EXPECT_EQ(count_ops(*g, "MatMul"), 2u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 2 4 8 8\n"
            "reduce 1\n"
            "input 2 4 8 8\n"
            "input bool 2 1 1 8\n"
            "%0 = load 0\n"
            "%1 = const 0x1p-2\n"
            "%2 = mul %0 %1\n"
            "%3 = load 1\n"
            "%4 = const -inf\n"
            "%5 = where %3 %2 %4\n"
            "%6 = reduce_max %5\n"
            "%7 = sub %5 %6\n"
            "%8 = exp %7\n"
            "%9 = reduce_sum %8\n"
            "%10 = div %8 %9\n"
            "output %10 2 4 8 8\n");
  ASSERT_EQ(fused[0]->input_count(), 2u);
  EXPECT_EQ(fused[0]->input(1)->name(), "keep");
  EXPECT_EQ(g->find_node("pv")->input(0), fused[0]->output(0));
}

// The other spelling: a float mask of 0 and -inf added to the scores, a causal [8, 8]
// one broadcast over batch and heads; and the scale as a division.
TEST(Autofusion, FusesAnAdditiveMaskAndSoftmax) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %s : float32[2,4,8,8]
  input %causal : float32[8,8]
  init %root : float32[1] = [4]
  %t = Div(%s, %root) "scale"
  %m = Add(%t, %causal) "mask"
  %p = Softmax(%m) "softmax"
  output %p
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_NE(program_of(fused[0]).find("input 8 8\n"), std::string::npos) << program_of(fused[0]);
  EXPECT_NE(program_of(fused[0]).find("reduce 1\n"), std::string::npos);
}

// A mask computed from an attention mask of another shape: the comparison stays on its
// own (a group of one), its bool result is loaded by the scores' group.
TEST(Autofusion, AComparisonOfAnotherShapeFeedsTheGroupAsABoolInput) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %s : float32[2,4,8,8]
  input %attention : float32[2,1,1,8]
  init %zero : float32[] = [0]
  init %ninf : float32[] = [-inf]
  %pad = Equal(%attention, %zero) "is_pad"
  %m = Where(%pad, %ninf, %s) "mask"
  %p = Softmax(%m) "softmax"
  output %p
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_NE(g->find_node("is_pad"), nullptr);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(g->node_count(), 2u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 2 4 8 8\n"
            "reduce 1\n"
            "input bool 2 1 1 8\n"
            "input 2 4 8 8\n"
            "%0 = load 0\n"
            "%1 = const -inf\n"
            "%2 = load 1\n"
            "%3 = where %0 %1 %2\n"
            "%4 = reduce_max %3\n"
            "%5 = sub %3 %4\n"
            "%6 = exp %5\n"
            "%7 = reduce_sum %6\n"
            "%8 = div %6 %7\n"
            "output %8 2 4 8 8\n");
}

TEST(Autofusion, LowersLogSoftmaxAndTheCoercedAxisOfOldOpsets) {
  // Opset 11: Softmax normalises the flattened axes from `axis` on, here the last two.
  auto g = inferred(R"(graph main (opset ""=11) {
  input %x : float32[3,4,5]
  %e = Neg(%x) "neg"
  %y = LogSoftmax(%e) {axis: int = 1} "log_softmax"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 3 4 5\n"
            "reduce 2\n"
            "input 3 4 5\n"
            "%0 = load 0\n"
            "%1 = neg %0\n"
            "%2 = reduce_max %1\n"
            "%3 = sub %1 %2\n"
            "%4 = exp %3\n"
            "%5 = reduce_sum %4\n"
            "%6 = log %5\n"
            "%7 = sub %3 %6\n"
            "output %7 3 4 5\n");
}

/// Runs the pass on a graph that must become one Fused node and nothing else.
std::vector<const Node*> fuse_into_one_node(Graph& graph) {
  EXPECT_TRUE(run_autofusion(graph));
  EXPECT_EQ(graph.node_count(), 1u) << print_graph(graph);
  return fused_nodes(graph);
}

// Softmax over axis 1 (segmentation heads, channel attention): the reduced axis is not
// innermost; the two after it are the program's inner axes.
TEST(Autofusion, FusesASoftmaxOverAnOuterAxis) {
  auto g = inferred(R"(graph main (opset ""=13) {
  input %x : float32[3,4,5]
  %e = Neg(%x) "neg"
  %y = Softmax(%e) {axis: int = 1} "softmax"
  %z = Abs(%y) "abs"
  output %z
})");
  const std::vector<const Node*> fused = fuse_into_one_node(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 3 4 5\n"
            "reduce 1 inner 1\n"
            "input 3 4 5\n"
            "%0 = load 0\n"
            "%1 = neg %0\n"
            "%2 = reduce_max %1\n"
            "%3 = sub %1 %2\n"
            "%4 = exp %3\n"
            "%5 = reduce_sum %4\n"
            "%6 = div %4 %5\n"
            "%7 = abs %6\n"
            "output %7 3 4 5\n");
}

// LogSoftmax over axis -2 of [B, S, D], then a per-position bias [S, D].
TEST(Autofusion, FusesALogSoftmaxOverAxisMinusTwo) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,6,8]
  input %b : float32[6,8]
  %y = LogSoftmax(%x) {axis: int = -2} "log_softmax"
  %z = Add(%y, %b) "add"
  output %z
})");
  const std::vector<const Node*> fused = fuse_into_one_node(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_NE(program_of(fused[0]).find("reduce 1 inner 1\n"), std::string::npos) << program_of(fused[0]);
}

// A LayerNorm over the channels of NCHW spelled out in primitives: mean and variance over
// axis 1, a per-channel scale and shift [C, 1, 1]; one Fused node, its only output z.
TEST(Autofusion, FusesAChannelLayerNormSpelledOut) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,8,4,5]
  input %gamma : float32[8,1,1]
  input %beta : float32[8,1,1]
  init %eps : float32[] = [1e-5]
  %mean = ReduceMean(%x) {axes: ints = [1]} "mean"
  %d = Sub(%x, %mean) "sub"
  %sq = Mul(%d, %d) "square"
  %var = ReduceMean(%sq) {axes: ints = [1]} "var"
  %ve = Add(%var, %eps) "add_eps"
  %sd = Sqrt(%ve) "sqrt"
  %n = Div(%d, %sd) "div"
  %s = Mul(%n, %gamma) "scale"
  %z = Add(%s, %beta) "shift"
  output %z
})");
  const std::vector<const Node*> fused = fuse_into_one_node(*g);
  ASSERT_EQ(fused.size(), 1u);
  const std::string program = program_of(fused[0]);
  EXPECT_NE(program.find("shape 2 8 4 5\nreduce 1 inner 2\n"), std::string::npos) << program;
  EXPECT_NE(program.find("input 8 1 1\n"), std::string::npos) << program;
  EXPECT_EQ(fused[0]->output_count(), 1u);
}

// Reductions over axes that are not contiguous, and an operand partly broadcast along the
// inner axes (neither whole nor constant there), stay out of the group.
TEST(Autofusion, LeavesReductionsOverScatteredAxesAndPartlyBroadcastLanesOut) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,4,3,5]
  input %w : float32[5]
  %e = Exp(%x) "exp"
  %s = ReduceMax(%e) {axes: ints = [1, 3]} "max"
  %n = Neg(%x) "neg"
  %y = Softmax(%n) {axis: int = 1} "softmax"
  %z = Add(%y, %w) "add"
  output %s
  output %z
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_NE(g->find_node("max"), nullptr);
  EXPECT_NE(g->find_node("add"), nullptr);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u) << print_graph(*g);
  EXPECT_NE(program_of(fused[0]).find("reduce 1 inner 2\n"), std::string::npos) << program_of(fused[0]);
}

TEST(Autofusion, ASoftmaxAfterAReductionOfOtherAxesStartsAnotherGroup) {
  // The group already reduces two axes; the Softmax reduces one.
  auto g = inferred(R"(graph main (opset ""=13) {
  input %x : float32[3,4,5]
  init %axes : int64[2] = [1, 2]
  %e = Exp(%x) "exp"
  %s = ReduceSum(%e, %axes) "sum"
  %d = Div(%e, %s) "div"
  %y = Softmax(%d) "softmax"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_NE(g->find_node("softmax"), nullptr) << print_graph(*g);
}

// Bool values in a group: comparisons and logic, a bool output, Casts that keep the value
// (bool to float32, float16 to float32) and float32 to bool.
TEST(Autofusion, FusesMasksCastsAndBoolOutputs) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float16[4,8]
  input %y : float32[4,8]
  input %valid : bool[8]
  init %half : float32[] = [0.5]
  %xf = Cast(%x) {to: int = 1} "widen"
  %big = Greater(%xf, %half) "greater"
  %small = LessOrEqual(%y, %xf) "less_equal"
  %either = Or(%big, %small) "or"
  %keep = And(%either, %valid) "and"
  %drop = Not(%keep) "not"
  %f = Cast(%drop) {to: int = 1} "to_float"
  %z = Mul(%f, %y) "mul"
  %nz = Cast(%z) {to: int = 9} "to_bool"
  %same = Equal(%nz, %keep) "equal"
  output %z
  output %same
})");
  EXPECT_TRUE(run_autofusion(*g));
  ASSERT_EQ(g->node_count(), 1u) << print_graph(*g);
  const std::vector<const Node*> fused = fused_nodes(*g);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 4 8\n"
            "reduce 0\n"
            "input float16 4 8\n"
            "input 4 8\n"
            "input bool 8\n"
            "%0 = load 0\n"
            "%1 = const 0x1p-1\n"
            "%2 = greater %0 %1\n"
            "%3 = load 1\n"
            "%4 = less_equal %3 %0\n"
            "%5 = or %2 %4\n"
            "%6 = load 2\n"
            "%7 = and %5 %6\n"
            "%8 = not %7\n"
            "%9 = mul %8 %3\n"
            "%10 = cast_bool %9\n"
            "%11 = equal %10 %7\n"
            "output %9 4 8\n"
            "output %11 bool 4 8\n");
  EXPECT_EQ(g->outputs()[1]->desc(), TensorDesc::of(DataType::kBool, {4, 8}));
}

TEST(Autofusion, LeavesWhereOverOtherDtypesAlone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %c : bool[4]
  input %a : int64[4]
  input %b : int64[4]
  %w = Where(%c, %a, %b) "where"
  %n = Neg(%w) "neg"
  output %n
})");
  EXPECT_FALSE(run_autofusion(*g));
  EXPECT_EQ(g->node_count(), 2u);
}

TEST(Autofusion, ValuesUsedOutsideTheGroupBecomeOutputs) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4,8]
  init %w : float32[8,2] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
  %a = Exp(%x) "exp"
  %b = Neg(%a) "neg"
  %c = Sigmoid(%b) "sigmoid"
  %t = MatMul(%a, %w) "outside"
  output %t
  output %c
  output %b
})");
  EXPECT_TRUE(run_autofusion(*g));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  ASSERT_EQ(g->node_count(), 2u);
  // In the order the group computes them: a (used by the MatMul), b and c (graph outputs).
  ASSERT_EQ(fused[0]->output_count(), 3u);
  EXPECT_EQ(fused[0]->output(0)->name(), "a");
  EXPECT_EQ(fused[0]->output(1)->name(), "b");
  EXPECT_EQ(fused[0]->output(2)->name(), "c");
  EXPECT_EQ(output_names(*g), (std::vector<std::string>{"t", "c", "b"}));
  const Node* matmul = g->find_node("outside");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->input(0), fused[0]->output(0));
  EXPECT_NE(program_of(fused[0]).find("output %1 4 8\noutput %2 4 8\noutput %3 4 8\n"), std::string::npos)
      << program_of(fused[0]);
}

TEST(Autofusion, ValuesCapturedBySubgraphsBecomeOutputs) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4]
  input %flag : bool[]
  %a = Exp(%x) "exp"
  %b = Neg(%a) "neg"
  %y = If(%flag) {then_branch: graph = graph then_g {
    capture %a
    %t = Relu(%a) "inner"
    output %t
  }, else_branch: graph = graph else_g {
    capture %x
    %e = Abs(%x) "inner_else"
    output %e
  }} "choose"
  output %y
  output %b
})");
  EXPECT_TRUE(run_autofusion(*g));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  ASSERT_EQ(fused[0]->output_count(), 2u);
  EXPECT_EQ(fused[0]->output(0)->name(), "a") << "the capture still names it";
  EXPECT_EQ(g->find_value("a"), fused[0]->output(0));
  EXPECT_EQ(fused[0]->output(1)->name(), "b");
  EXPECT_NE(g->find_node("choose"), nullptr);
}

TEST(Autofusion, ANodeDoesNotJoinAGroupItsOtherOperandDependsOn) {
  // c = a + MatMul(a, w): with c in a's group, the group would feed the MatMul and
  // depend on it.
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4,4]
  init %w : float32[4,4] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %a = Exp(%x) "exp"
  %b = MatMul(%a, %w) "matmul"
  %c = Add(%a, %b) "add"
  output %c
})");
  EXPECT_FALSE(run_autofusion(*g)) << "each group is one node";
  EXPECT_EQ(g->node_count(), 3u);
  EXPECT_EQ(count_ops(*g, "MatMul"), 1u);
}

TEST(Autofusion, GroupsOnBothSidesOfANonCandidateStaySeparate) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4,4]
  init %w : float32[4,4] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %a1 = Exp(%x) "exp"
  %a2 = Neg(%a1) "neg"
  %b = MatMul(%a2, %w) "matmul"
  %c = Add(%a2, %b) "add"
  %d = Relu(%c) "relu"
  output %d
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_EQ(fused_nodes(*g).size(), 2u);
  EXPECT_EQ(count_ops(*g, "MatMul"), 1u);
  EXPECT_EQ(g->node_count(), 3u);
}

TEST(Autofusion, CyclesThroughOtherGroupsAreAvoided) {
  // Group A = {p0, p1, p2} comes to depend on group B = {q0, q1} through p2; z consumes
  // a MatMul of A's p1, so z joining B would close the cycle B -> A -> MatMul -> B, which
  // no single node's own dependencies show.
  auto g = inferred(R"(graph main (opset ""=17) {
  input %p : float32[4,4]
  input %q : float32[4,4]
  init %w : float32[4,4] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %q0 = Exp(%q) "q0"
  %q1 = Neg(%q0) "q1"
  %p0 = Sigmoid(%p) "p0"
  %p1 = Tanh(%p0) "p1"
  %mm = MatMul(%p1, %w) "matmul"
  %p2 = Add(%p1, %q1) "p2"
  %z = Add(%q1, %mm) "z"
  %z1 = Relu(%z) "z1"
  output %p2
  output %z1
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_EQ(fused_nodes(*g).size(), 3u);
  EXPECT_EQ(count_ops(*g, "MatMul"), 1u);
  EXPECT_EQ(g->node_count(), 4u);
}

TEST(Autofusion, TakesMaxAndMinOfTwoInputsOnly) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  input %u : float32[3]
  init %two : float32[1] = [2]
  %p = Pow(%x, %two) "pow"
  %m = Min(%p, %u) "min"
  %n = Max(%m, %u, %x) "max3"
  output %n
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_NE(g->find_node("max3"), nullptr);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 2 3\n"
            "reduce 0\n"
            "input 2 3\n"
            "input 3\n"
            "%0 = load 0\n"
            "%1 = const 0x1p+1\n"
            "%2 = pow %0 %1\n"
            "%3 = load 1\n"
            "%4 = min %2 %3\n"
            "output %4 2 3\n");
}

TEST(Autofusion, LeavesASingleOpAlone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8]
  %y = Relu(%x) "relu"
  output %y
})");
  EXPECT_FALSE(run_autofusion(*g));
  EXPECT_NE(g->find_node("relu"), nullptr);
}

TEST(Autofusion, LeavesFloat64Alone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float64[8]
  %a = Exp(%x) "exp"
  %y = Relu(%a) "relu"
  output %y
})");
  EXPECT_FALSE(run_autofusion(*g));
  EXPECT_EQ(g->node_count(), 2u);
}

TEST(Autofusion, LeavesDynamicShapesAlone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[N,8]
  %a = Exp(%x) "exp"
  %y = Relu(%a) "relu"
  output %y
})");
  EXPECT_FALSE(run_autofusion(*g));
  EXPECT_EQ(g->node_count(), 2u);
}

TEST(Autofusion, GroupsAReductionOverAnOuterAxis) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4,8]
  %e = Exp(%x) "exp"
  %s = ReduceMax(%e) {axes: ints = [0]} "max"
  %r = Relu(%s) "relu"
  %y = Neg(%r) "neg"
  output %y
})");
  const std::vector<const Node*> fused = fuse_into_one_node(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(program_of(fused[0]),
            "autofuse 1\n"
            "shape 4 8\n"
            "reduce 1 inner 1\n"
            "input 4 8\n"
            "%0 = load 0\n"
            "%1 = exp %0\n"
            "%2 = reduce_max %1\n"
            "%3 = relu %2\n"
            "%4 = neg %3\n"
            "output %4 1 8\n");
}

TEST(Autofusion, AnInputNotCompleteAlongTheReducedAxesStartsANewGroup) {
  // %h [16] broadcasts to [2,4,16] but covers only one of the two reduced axes: the
  // reduction cannot join its producers' group, and the group after it cannot load %h.
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[2,4,16]
  input %h : float32[16]
  init %axes : int64[2] = [1, 2]
  %a = Add(%x, %h) "add"
  %e = Exp(%a) "exp"
  %s = ReduceSum(%e, %axes) "sum"
  %y = Sqrt(%s) "sqrt"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_NE(program_of(fused[0]).find("reduce 0\n"), std::string::npos) << program_of(fused[0]);
  EXPECT_EQ(program_of(fused[1]),
            "autofuse 1\n"
            "shape 2 4 16\n"
            "reduce 2\n"
            "input 2 4 16\n"
            "%0 = load 0\n"
            "%1 = reduce_sum %0\n"
            "%2 = sqrt %1\n"
            "output %2 2 1 1\n");
}

TEST(Autofusion, RowValuesWithDroppedAxesDoNotMeetFullValues) {
  // s (keepdims 0) is [4]; Add(e, s) broadcasts s along the last axis of [4,4], which is
  // not the row the program would give it.
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[4,4]
  init %axes : int64[1] = [1]
  %e = Exp(%x) "exp"
  %s = ReduceSum(%e, %axes) {keepdims: int = 0} "sum"
  %y = Add(%e, %s) "add"
  output %y
})");
  EXPECT_TRUE(run_autofusion(*g));
  EXPECT_NE(g->find_node("add"), nullptr) << print_graph(*g);
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  ASSERT_EQ(fused[0]->output_count(), 2u) << "e and s both feed the Add";
}

TEST(Autofusion, RespectsMaxOps) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8]
  %a = Exp(%x) "a"
  %b = Neg(%a) "b"
  %c = Abs(%b) "c"
  %d = Sqrt(%c) "d"
  %e = Relu(%d) "e"
  output %e
})");
  AutofusionOptions options;
  options.max_ops = 2;
  EXPECT_TRUE(run_autofusion(*g, options));
  EXPECT_EQ(fused_nodes(*g).size(), 2u);
  EXPECT_NE(g->find_node("e"), nullptr) << "the fifth op starts a group of one";
  EXPECT_EQ(g->node_count(), 3u);
}

TEST(Autofusion, RespectsMaxInputs) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8]
  input %u : float32[8]
  input %v : float32[8]
  %a = Add(%x, %u) "a"
  %b = Add(%a, %v) "b"
  %c = Relu(%b) "c"
  output %c
})");
  AutofusionOptions options;
  options.max_inputs = 2;
  EXPECT_TRUE(run_autofusion(*g, options));
  const std::vector<const Node*> fused = fused_nodes(*g);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_NE(g->find_node("a"), nullptr);
  EXPECT_EQ(fused[0]->input_count(), 2u);
}

/// Runs no Fused node whose program loads more than one input.
class OneInputBackend final : public Backend {
 public:
  std::string name() const override { return "one_input"; }
  bool supports(const Node& node, std::string* reason) const override {
    if (node.op_type() != "Fused" || node.input_count() <= 1) return true;
    *reason = "one input at most";
    return false;
  }
  Result<PreparedKernel> prepare(const Node&) const override { return unsupported("runs nothing"); }
  Device& device() override { std::abort(); }
};

TEST(Autofusion, LeavesGroupsTheTargetBackendCannotRun) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8]
  input %u : float32[8]
  %a = Exp(%x) "a"
  %b = Neg(%a) "b"
  %c = Add(%x, %u) "c"
  %d = Relu(%c) "d"
  output %b
  output %d
})");
  OneInputBackend backend;
  EXPECT_TRUE(run_autofusion(*g, {}, &backend));
  EXPECT_EQ(fused_nodes(*g).size(), 1u);
  EXPECT_EQ(g->find_node("a"), nullptr);
  EXPECT_NE(g->find_node("c"), nullptr);
  EXPECT_NE(g->find_node("d"), nullptr);
  EXPECT_EQ(g->node_count(), 3u);
  EXPECT_EQ(output_names(*g), (std::vector<std::string>{"b", "d"}));
}

TEST(Autofusion, FusesNothingWhenTheOpRegistryLacksTheFusedSchema) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8]
  %a = Exp(%x) "a"
  %b = Neg(%a) "b"
  output %b
})");
  OpRegistry onnx_only;
  onnx_only.add_library(std::make_shared<onnx_ops::OnnxOpLibrary>());
  EXPECT_FALSE(run_autofusion(*g, {}, nullptr, onnx_only));
  EXPECT_EQ(g->node_count(), 2u);
}

TEST(Autofusion, LeavesNodesWithControlEdgesAlone) {
  auto g = inferred(R"(graph main (opset ""=17) {
  input %x : float32[8]
  %a = Exp(%x) "a"
  %b = Neg(%a) "b" after ["a"]
  output %b
})");
  EXPECT_FALSE(run_autofusion(*g));
  EXPECT_EQ(g->node_count(), 2u);
}

}  // namespace
}  // namespace ge::passes
