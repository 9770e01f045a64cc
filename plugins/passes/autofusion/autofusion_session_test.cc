// Property test of the autofusion pass with the cpu backend: random graphs of elementwise,
// broadcasting and reduction ops (and MatMul / Transpose between them, which autofusion
// must leave alone and never put on a cycle) run through a Session at -O0 (no passes) and
// at -O3 (autofusion on). The outputs agree: bit for bit with the interpreter except where
// a reduction's order differs, within a few ulp with generated code (vector math).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ge/graph_text.h"
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

/// A graph over x[rows, cols] (and a broadcast operand b[cols]): a random chain with
/// reductions over the last axis, a MatMul and a Transpose in between, 1-3 outputs.
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
  auto set = [](Node* node, std::vector<int64_t> dims) {
    node->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, dims));
    return node->output(0);
  };
  static const char* unary[] = {"Neg", "Abs", "Exp", "Tanh", "Sigmoid", "Relu", "Erf", "Floor", "Sin", "Sqrt", "Log"};
  static const char* binary[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  static const char* reductions[] = {"ReduceMean", "ReduceMax", "ReduceMin"};
  const int ops = 4 + pick(12);
  for (int n = 0; n < ops; ++n) {
    Value* a = full[static_cast<size_t>(pick(static_cast<int>(full.size())))];
    const int kind = pick(12);
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
  for (int n = 0; n < count; ++n) {
    const RandomGraph r = random_graph(rng);
    const std::string what = "graph " + std::to_string(n) + ":\n" + print_graph(*r.graph);
    Result<std::vector<Tensor>> unfused = run(r, 0);
    ASSERT_TRUE(unfused.is_ok()) << unfused.status().to_string() << "\n" << what;
    std::map<std::string, int> ops;
    Result<std::vector<Tensor>> fused = run(r, 3, &ops);
    ASSERT_TRUE(fused.is_ok()) << fused.status().to_string() << "\n" << what;
    if (ops.count("ge_autofuse::Fused")) ++fused_graphs;
    compare(fused.value(), unfused.value(), tolerance, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The generator's graphs are mostly fusable: a pass that silently stopped fusing fails.
  std::cout << fused_graphs << " of " << count << " graphs had fused groups\n";
  EXPECT_GT(fused_graphs, count / 2);
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

}  // namespace
}  // namespace ge::passes
