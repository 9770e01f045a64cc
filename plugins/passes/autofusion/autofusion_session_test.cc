// Property test of the autofusion pass with the cpu backend: random graphs of elementwise,
// broadcasting and reduction ops (and MatMul / Transpose between them, which autofusion
// must leave alone and never put on a cycle) run through a Session at -O0 (no passes) and
// at -O3 (autofusion on). The outputs agree: bit for bit with the interpreter except where
// a reduction's order differs, within a few ulp with generated code (vector math).
// Then attention's scale, mask and Softmax as one Fused node against -O0, and a Fused
// node's kernel recorded in a stream capture and replayed.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ge/graph_text.h"
#include "ge/runtime/model_runner.h"
#include "ge/runtime/stream_capture.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge::passes {
namespace {

using pass_testing::PluginEnvironment;

struct RandomGraph {
  std::unique_ptr<Graph> graph;
  std::vector<std::pair<std::string, Tensor>> inputs;
};

Tensor random_tensor(std::mt19937& rng, const std::vector<int64_t>& dims, float low, float high) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> values(static_cast<size_t>(n));
  std::uniform_real_distribution<float> uniform(low, high);
  for (float& v : values) v = uniform(rng);
  return Tensor::from_vector<float>(dims, values);
}

/// A graph over x[rows, cols] (and a broadcast operand b[cols], a bool mask keep[cols]): a
/// random chain with reductions over the last axis, comparisons, logic, Where, Casts and
/// Softmax over either axis (masked with -inf, so some rows are NaN), a MatMul in between, 1-3 outputs.
RandomGraph random_graph(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int64_t rows = 1 + pick(6), cols = 1 + pick(40);
  RandomGraph r;
  r.graph = std::make_unique<Graph>("random");
  Graph& g = *r.graph;
  g.set_opset_import("", 17);
  std::vector<Value*> full, row;  // values of shape [rows, cols] / [rows, 1]
  full.push_back(g.add_input("x", TensorDesc::of(DataType::kFloat32, {rows, cols})));
  r.inputs.emplace_back("x", random_tensor(rng, {rows, cols}, -2, 2));
  Value* b = g.add_input("b", TensorDesc::of(DataType::kFloat32, {cols}));
  r.inputs.emplace_back("b", random_tensor(rng, {cols}, -2, 2));
  Value* w = g.add_initializer("w", random_tensor(rng, {cols, cols}, -0.3f, 0.3f));
  int counter = 0;
  auto name = [&] { return "v" + std::to_string(counter++); };
  auto set = [](Node* node, std::vector<int64_t> dims, DataType dtype = DataType::kFloat32) {
    node->output(0)->set_desc(TensorDesc::of(dtype, dims));
    return node->output(0);
  };
  Value* keep = nullptr;  // the mask input, added when first used
  auto mask_input = [&] {
    if (keep != nullptr) return keep;
    keep = g.add_input("keep", TensorDesc::of(DataType::kBool, {cols}));
    Tensor values = Tensor::zeros(DataType::kBool, {cols});
    for (int64_t j = 0; j < cols; ++j) static_cast<unsigned char*>(values.raw_data())[j] = pick(4) != 0;
    r.inputs.emplace_back("keep", values);
    return keep;
  };
  auto any_full = [&] { return full[static_cast<size_t>(pick(static_cast<int>(full.size())))]; };
  static const char* comparisons[] = {"Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Equal"};
  static const char* logic[] = {"And", "Or", "Xor"};
  // A bool [rows, cols] or [cols]: the mask, or a comparison, maybe negated or combined.
  auto condition = [&]() -> Value* {
    Value* c = mask_input();
    if (pick(3) != 0) {
      Value* other = pick(3) == 0 ? b : any_full();
      c = set(g.add_node(comparisons[pick(std::size(comparisons))], {any_full(), other}, 1, name(), {name()}),
              {rows, cols}, DataType::kBool);
    }
    if (pick(3) == 0) c = set(g.add_node("Not", {c}, 1, name(), {name()}), c->desc().static_dims(), DataType::kBool);
    if (pick(3) == 0) {
      c = set(g.add_node(logic[pick(std::size(logic))], {c, mask_input()}, 1, name(), {name()}), c->desc().static_dims(),
              DataType::kBool);
    }
    return c;
  };
  static const char* unary[] = {"Neg", "Abs", "Exp", "Tanh", "Sigmoid", "Relu", "Erf", "Floor", "Sin", "Sqrt", "Log"};
  static const char* binary[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  static const char* reductions[] = {"ReduceMean", "ReduceMax", "ReduceMin"};
  const int ops = 4 + pick(12);
  for (int n = 0; n < ops; ++n) {
    Value* a = full[static_cast<size_t>(pick(static_cast<int>(full.size())))];
    const int kind = pick(15);
    if (kind < 3) {
      const char* op = unary[pick(std::size(unary))];
      if ((std::string(op) == "Sqrt" || std::string(op) == "Log")) {  // positive arguments
        a = set(g.add_node("Abs", {a}, 1, name(), {name()}), {rows, cols});
        a = set(g.add_node("Add", {a, g.add_initializer(name(), Tensor::from_vector<float>({}, {0.5f}))}, 1, name(),
                           {name()}), {rows, cols});
      }
      full.push_back(set(g.add_node(op, {a}, 1, name(), {name()}), {rows, cols}));
    } else if (kind < 8) {
      const char* op = binary[pick(std::size(binary))];
      Value* other = pick(3) == 0 ? b : pick(3) == 0 && !row.empty() ? row[static_cast<size_t>(pick(static_cast<int>(row.size())))]
                                                         : full[static_cast<size_t>(pick(static_cast<int>(full.size())))];
      if (std::string(op) == "Div") {  // away from zero
        other = set(g.add_node("Sigmoid", {other}, 1, name(), {name()}), other->desc().static_dims());
      }
      full.push_back(set(g.add_node(op, {a, other}, 1, name(), {name()}), {rows, cols}));
    } else if (kind < 10) {
      Node* reduce = g.add_node(reductions[pick(std::size(reductions))], {a}, 1, name(), {name()});
      reduce->set_attribute("axes", Attribute(std::vector<int64_t>{-1}));
      row.push_back(set(reduce, {rows, 1}));
    } else if (kind == 10) {
      full.push_back(set(g.add_node("MatMul", {a, w}, 1, name(), {name()}), {rows, cols}));
    } else if (kind == 12) {
      Value* fill = pick(2) == 0 ? any_full() : g.add_initializer(name(), Tensor::from_vector<float>({}, {-5.0f}));
      full.push_back(set(g.add_node("Where", {condition(), a, fill}, 1, name(), {name()}), {rows, cols}));
    } else if (kind == 13) {
      Value* c = condition();
      Value* f = set(g.add_node("Cast", {c}, 1, name(), {name()}), c->desc().static_dims());
      f->producer()->set_attribute("to", Attribute(static_cast<int64_t>(DataType::kFloat32)));
      full.push_back(set(g.add_node("Mul", {a, f}, 1, name(), {name()}), {rows, cols}));
    } else if (kind == 14) {
      if (pick(2) == 0) {  // attention's masking: fully masked rows give NaN
        Value* ninf = g.add_initializer(name(), Tensor::from_vector<float>({}, {-INFINITY}));
        a = set(g.add_node("Where", {condition(), a, ninf}, 1, name(), {name()}), {rows, cols});
      }
      Node* softmax = g.add_node(pick(3) == 0 ? "LogSoftmax" : "Softmax", {a}, 1, name(), {name()});
      if (pick(3) == 0) softmax->set_attribute("axis", Attribute(int64_t{0}));  // over the rows: "reduce 1 inner 1"
      full.push_back(set(softmax, {rows, cols}));
    } else if (!row.empty()) {
      Value* r1 = row[static_cast<size_t>(pick(static_cast<int>(row.size())))];
      row.push_back(set(g.add_node(pick(2) == 0 ? "Sqrt" : "Exp", {set(g.add_node("Abs", {r1}, 1, name(), {name()}), {rows, 1})},
                                   1, name(), {name()}), {rows, 1}));
    }
  }
  g.add_output(full.back());
  if (!row.empty() && pick(2) == 0) g.add_output(row.back());
  if (full.size() > 2 && pick(2) == 0) g.add_output(full[full.size() / 2]);
  return r;
}

Result<std::vector<Tensor>> run(const RandomGraph& r, int opt_level, std::map<std::string, int>* ops = nullptr) {
  PluginEnvironment& env = PluginEnvironment::get();
  SessionOptions options;
  options.passes.opt_level = opt_level;
  options.threads = 1;
  std::unique_ptr<Graph> graph = r.graph->clone();
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::create(env.host(), std::move(graph), options));
  std::vector<Tensor> outputs;
  GE_RETURN_IF_ERROR(session->run(r.inputs, outputs));
  if (ops != nullptr) {
    for (const auto& node : session->graph().nodes()) ++(*ops)[node->domain() + "::" + node->op_type()];
  }
  return outputs;
}

void compare(const std::vector<Tensor>& fused, const std::vector<Tensor>& unfused, double tolerance,
             const std::string& what) {
  ASSERT_EQ(fused.size(), unfused.size()) << what;
  for (size_t o = 0; o < fused.size(); ++o) {
    ASSERT_EQ(fused[o].shape(), unfused[o].shape()) << what;
    for (int64_t i = 0; i < fused[o].element_count(); ++i) {
      const float a = fused[o].data<float>()[i], e = unfused[o].data<float>()[i];
      if (std::isnan(e) || std::isnan(a)) {
        ASSERT_EQ(std::isnan(a), std::isnan(e)) << what << " output " << o << " element " << i;
      } else if (a != e) {
        ASSERT_NEAR(a, e, tolerance * (1.0 + std::fabs(e))) << what << " output " << o << " element " << i;
      }
    }
  }
}

void check_random_graphs(unsigned seed, int count, double tolerance) {
  ASSERT_TRUE(PluginEnvironment::get().require({"onnx_std", "ge_fused", "cpu", "autofusion"}).is_ok());
  std::mt19937 rng(seed);
  int fused_graphs = 0;
  std::set<std::string> fused_ops;  // ops of the new kinds that -O3 fused away entirely in some graph
  for (int n = 0; n < count; ++n) {
    const RandomGraph r = random_graph(rng);
    const std::string what = "graph " + std::to_string(n) + ":\n" + print_graph(*r.graph);
    Result<std::vector<Tensor>> unfused = run(r, 0);
    ASSERT_TRUE(unfused.is_ok()) << unfused.status().to_string() << "\n" << what;
    std::map<std::string, int> ops;
    Result<std::vector<Tensor>> fused = run(r, 3, &ops);
    ASSERT_TRUE(fused.is_ok()) << fused.status().to_string() << "\n" << what;
    if (ops.count("ge_autofuse::Fused")) ++fused_graphs;
    for (const auto& node : r.graph->nodes()) {
      const std::string& type = node->op_type();
      const bool mask = type == "Where" || type == "Less" || type == "Not" || type == "Cast";
      if ((type == "Softmax" || type == "LogSoftmax" || mask) && ops.count("::" + type) == 0) fused_ops.insert(type);
    }
    compare(fused.value(), unfused.value(), tolerance, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The generator's graphs are mostly fusable: a pass that silently stopped fusing fails.
  std::cout << fused_graphs << " of " << count << " graphs had fused groups\n";
  EXPECT_GT(fused_graphs, count / 2);
  EXPECT_EQ(fused_ops, (std::set<std::string>{"Cast", "Less", "LogSoftmax", "Not", "Softmax", "Where"}))
      << "each was fused in some graph";
}

TEST(AutofusionSession, InterpretedGroupsComputeWhatTheUnfusedGraphDoes) {
  ::setenv("GE_AUTOFUSE_MODE", "interpret", 1);
  // Reductions keep their order when interpreted; -O3's other passes do not reassociate.
  check_random_graphs(11, 300, 1e-6);
  ::unsetenv("GE_AUTOFUSE_MODE");
}

TEST(AutofusionSession, GeneratedGroupsComputeWhatTheUnfusedGraphDoes) {
  ::unsetenv("GE_AUTOFUSE_MODE");
  check_random_graphs(12, 25, 1e-4);
}

/// Attention over [2 batches, 4 heads, 16 positions, 32 features]: scores, scale, a bool
/// padding mask through Where (batch 1 masks every key: its rows are NaN, as the Softmax
/// kernel gives them), Softmax, the weighted sum. Outputs: the probabilities and the result.
constexpr const char* kAttention = R"(graph attention (opset ""=17) {
  input %q : float32[2,4,16,32]
  input %k : float32[2,4,32,16]
  input %v : float32[2,4,16,32]
  input %keep : bool[2,1,1,16]
  init %scale : float32[] = [0.1767767]
  init %ninf : float32[] = [-inf]
  %s = MatMul(%q, %k) "qk"
  %t = Mul(%s, %scale) "scale"
  %m = Where(%keep, %t, %ninf) "mask"
  %p = Softmax(%m) {axis: int = -1} "softmax"
  %o = MatMul(%p, %v) "pv"
  output %p
  output %o
})";

RandomGraph attention(unsigned seed) {
  std::mt19937 rng(seed);
  RandomGraph r;
  Result<std::unique_ptr<Graph>> graph = parse_graph(kAttention);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (!graph.is_ok()) return r;
  r.graph = std::move(graph).value();
  EXPECT_TRUE(PluginEnvironment::get().ops().infer_graph(*r.graph).is_ok());
  r.inputs.emplace_back("q", random_tensor(rng, {2, 4, 16, 32}, -3, 3));
  r.inputs.emplace_back("k", random_tensor(rng, {2, 4, 32, 16}, -3, 3));
  r.inputs.emplace_back("v", random_tensor(rng, {2, 4, 16, 32}, -1, 1));
  Tensor keep = Tensor::zeros(DataType::kBool, {2, 1, 1, 16});
  for (int64_t j = 0; j < 16; ++j) static_cast<unsigned char*>(keep.raw_data())[j] = j % 5 != 3;  // batch 0: some padding
  r.inputs.emplace_back("keep", keep);
  return r;
}

TEST(AutofusionSession, AttentionScaleMaskAndSoftmaxRunAsOneKernel) {
  ASSERT_TRUE(PluginEnvironment::get().require({"onnx_std", "ge_fused", "cpu", "autofusion"}).is_ok());
  const RandomGraph r = attention(21);
  ASSERT_NE(r.graph, nullptr);
  Result<std::vector<Tensor>> unfused = run(r, 0);
  ASSERT_TRUE(unfused.is_ok()) << unfused.status().to_string();
  for (const char* mode : {"interpret", "codegen"}) {
    ::setenv("GE_AUTOFUSE_MODE", mode, 1);
    std::map<std::string, int> ops;
    Result<std::vector<Tensor>> fused = run(r, 3, &ops);
    ::unsetenv("GE_AUTOFUSE_MODE");
    ASSERT_TRUE(fused.is_ok()) << fused.status().to_string();
    EXPECT_EQ(ops, (std::map<std::string, int>{{"::MatMul", 2}, {"ge_autofuse::Fused", 1}})) << mode;
    // The Softmax at -O0 is oneDNN's (or the reference kernel's): within 1e-6 relative of
    // the fused one where a probability is at least 1e-6, the whole row NaN where masked.
    for (size_t o = 0; o < 2; ++o) {
      const Tensor& a = fused.value()[o];
      const Tensor& e = unfused.value()[o];
      ASSERT_EQ(a.shape(), e.shape());
      double worst = 0;
      for (int64_t i = 0; i < a.element_count(); ++i) {
        const float x = a.data<float>()[i], y = e.data<float>()[i];
        const bool masked_row = i >= a.element_count() / 2;  // batch 1
        ASSERT_EQ(std::isnan(x), masked_row) << mode << " output " << o << " element " << i << ": " << x;
        ASSERT_EQ(std::isnan(y), masked_row) << mode << " output " << o << " element " << i << ": " << y;
        if (masked_row || x == y) continue;
        // The weighted sums (output 1) add up to 16 such errors, times |v| <= 1.
        const double allowed = o == 0 ? (std::fabs(y) >= 1e-6 ? 1e-6 * std::fabs(y) : 1e-12) : 2e-6;
        worst = std::max(worst, std::fabs(static_cast<double>(x) - y) / allowed);
        ASSERT_LE(std::fabs(static_cast<double>(x) - y), allowed) << mode << " output " << o << " element " << i;
      }
      std::cout << mode << " output " << o << ": worst error " << worst << " of the allowed\n";
    }
  }
}

// A Fused node's kernel has the ordinary kernel ABI: the task lists of a runner loaded
// from the -O3 graph, recorded in a stream capture, replay it with new inputs and give
// what the session gives.
TEST(AutofusionSession, AFusedKernelReplaysFromAStreamCapture) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "ge_fused", "cpu", "autofusion"}).is_ok());
  Backend* cpu = env.cpu();
  ASSERT_NE(cpu, nullptr);
  for (const char* mode : {"interpret", "codegen"}) {
    ::setenv("GE_AUTOFUSE_MODE", mode, 1);
    const RandomGraph first = attention(31), second = attention(32);
    SessionOptions options;
    options.passes.opt_level = 3;
    options.threads = 1;
    Result<std::unique_ptr<Session>> session = Session::create(env.host(), first.graph->clone(), options);
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    const Graph& optimised = (*session)->graph();
    size_t fused_nodes = 0;
    for (const auto& node : optimised.nodes()) fused_nodes += node->op_type() == "Fused" ? 1 : 0;
    ASSERT_EQ(fused_nodes, 1u) << print_graph(optimised);

    Result<std::unique_ptr<ModelRunner>> runner = ModelRunner::load(optimised, *cpu);
    ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
    // Caller buffers (Tensors are 64-byte aligned, so bound zero-copy), bound once.
    std::vector<Tensor> inputs, outputs;
    for (const auto& [name, tensor] : first.inputs) inputs.push_back(tensor.clone());
    for (const Value* out : optimised.outputs()) outputs.push_back(Tensor::zeros(out->desc().dtype, out->desc().static_dims()));
    std::vector<const void*> input_addresses;
    std::vector<void*> output_addresses;
    for (const Tensor& t : inputs) input_addresses.push_back(t.raw_data());
    for (Tensor& t : outputs) output_addresses.push_back(t.raw_data());
    ASSERT_TRUE((*runner)->execute_bound(input_addresses, output_addresses));
    ASSERT_TRUE((*runner)->copied_io().empty());

    Result<std::unique_ptr<CaptureStream>> stream = CaptureStream::create(cpu->device());
    ASSERT_TRUE(stream.is_ok()) << stream.status().to_string();
    ASSERT_TRUE(begin_capture(**stream, CaptureMode::kGlobal));
    for (const auto& tasks : (*runner)->stream_tasks()) ASSERT_TRUE((*stream)->submit(tasks));
    Result<std::unique_ptr<CapturedModel>> model = end_capture(**stream);
    ASSERT_TRUE(model.is_ok()) << model.status().to_string();
    EXPECT_GE((*model)->task_count(), 3u) << "two MatMuls and the Fused kernel";

    for (const RandomGraph* run_inputs : {&first, &second}) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::memcpy(inputs[i].raw_data(), run_inputs->inputs[i].second.raw_data(), inputs[i].byte_size());
      }
      for (Tensor& t : outputs) std::memset(t.raw_data(), 0, t.byte_size());
      ASSERT_TRUE((*model)->execute(**stream));
      ASSERT_TRUE((*stream)->synchronize());
      std::vector<Tensor> expected;
      ASSERT_TRUE((*session)->run(run_inputs->inputs, expected));
      ASSERT_EQ(expected.size(), outputs.size());
      for (size_t o = 0; o < outputs.size(); ++o) {
        ASSERT_EQ(std::memcmp(outputs[o].raw_data(), expected[o].raw_data(), outputs[o].byte_size()), 0)
            << mode << " output " << o << ": the replay differs from the session's run";
      }
    }
    ::unsetenv("GE_AUTOFUSE_MODE");
  }
}

}  // namespace
}  // namespace ge::passes
