// Times each pass on a generated graph of about 10,000 nodes.
//
//   ge-pass-bench [--nodes N] [--plugins REGISTRY] [--pass NAME]   (--pass: only that one)
//
// The graph repeats a 33-node block that gives every pass work: an Identity, a Cast to
// the same type and a cancelling Transpose pair (noop_elimination), constant arithmetic
// (constant_folding), a duplicated Add (cse), MatMul + bias (fuse_matmul_add), decomposed
// LayerNormalization, GELU and softmax, MatMul + Relu (fuse_activation) and a dead Neg
// (dce). It prints two tables: each pass alone on a fresh copy of the graph, and the -O3
// pipeline as the PassManager runs it (each pass on the graph its predecessors left).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "ge/pass_manager.h"
#include "ge/plugin_host.h"
#include "ge/verifier.h"

namespace ge {
namespace {

constexpr int64_t kWidth = 8;

Tensor random_tensor(std::vector<int64_t> dims, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(dims));
  for (int64_t i = 0; i < t.element_count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

Tensor scalar(float v) { return Tensor::from_vector<float>({}, {v}); }

std::unique_ptr<Graph> make_graph(size_t target_nodes) {
  auto g = std::make_unique<Graph>("bench");
  g->set_opset_import("", 17);
  std::mt19937 rng(7);
  Value* h = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, kWidth}));
  auto init = [&](const std::string& name, Tensor t) { return g->add_initializer(g->unique_name(name), std::move(t)); };
  auto op = [&](const std::string& type, std::vector<Value*> inputs) {
    return g->add_node(type, std::move(inputs), 1, g->unique_name(type))->output(0);
  };
  Value* two = init("two", scalar(2.f));
  Value* eps = init("eps", scalar(1e-5f));
  Value* sqrt2 = init("sqrt2", scalar(std::sqrt(2.f)));
  Value* one = init("one", scalar(1.f));
  Value* half = init("half", scalar(0.5f));
  Value* last = init("last", Tensor::from_vector<int64_t>({1}, {-1}));
  while (g->node_count() < target_nodes) {
    Value* i = op("Identity", {h});
    Value* c = op("Mul", {op("Add", {init("k", random_tensor({kWidth}, rng)), init("k", random_tensor({kWidth}, rng))}),
                          init("k", random_tensor({kWidth}, rng))});
    Value* a1 = op("Add", {i, c});
    Value* a2 = op("Add", {i, c});
    Value* s = op("Add", {a1, a2});
    Value* gemm = op("Add", {op("MatMul", {s, init("w", random_tensor({kWidth, kWidth}, rng))}),
                             init("b", random_tensor({kWidth}, rng))});
    // LayerNormalization, decomposed.
    Node* mean = g->add_node("ReduceMean", {gemm}, 1, g->unique_name("ReduceMean"));
    mean->set_attribute("axes", std::vector<int64_t>{-1});
    Value* d = op("Sub", {gemm, mean->output(0)});
    Node* var = g->add_node("ReduceMean", {op("Pow", {d, two})}, 1, g->unique_name("ReduceMean"));
    var->set_attribute("axes", std::vector<int64_t>{-1});
    Value* norm = op("Div", {d, op("Sqrt", {op("Add", {var->output(0), eps})})});
    Value* ln = op("Add", {op("Mul", {norm, init("gamma", random_tensor({kWidth}, rng))}),
                           init("beta", random_tensor({kWidth}, rng))});
    // GELU, erf form.
    Value* gelu = op("Mul", {op("Mul", {ln, op("Add", {op("Erf", {op("Div", {ln, sqrt2})}), one})}), half});
    // Softmax, max-shifted.
    Node* max = g->add_node("ReduceMax", {gelu}, 1, g->unique_name("ReduceMax"));
    max->set_attribute("axes", std::vector<int64_t>{-1});
    Value* e = op("Exp", {op("Sub", {gelu, max->output(0)})});
    Value* softmax = op("Div", {e, op("ReduceSum", {e, last})});
    Node* t1 = g->add_node("Transpose", {softmax}, 1, g->unique_name("Transpose"));
    t1->set_attribute("perm", std::vector<int64_t>{1, 0});
    Node* t2 = g->add_node("Transpose", {t1->output(0)}, 1, g->unique_name("Transpose"));
    t2->set_attribute("perm", std::vector<int64_t>{1, 0});
    Value* r = op("Relu", {op("MatMul", {t2->output(0), init("w", random_tensor({kWidth, kWidth}, rng))})});
    Node* cast = g->add_node("Cast", {r}, 1, g->unique_name("Cast"));
    cast->set_attribute("to", int64_t{1});
    op("Neg", {h});  // dead
    h = cast->output(0);
  }
  g->add_output(h);
  return g;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int run(int argc, char** argv) {
  size_t nodes = 10000;
  std::string only;
  std::filesystem::path registry = std::filesystem::path(argv[0]).parent_path() / "ge_plugins.toml";
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--nodes") == 0) nodes = static_cast<size_t>(std::stoul(argv[a + 1]));
    if (std::strcmp(argv[a], "--plugins") == 0) registry = argv[a + 1];
    if (std::strcmp(argv[a], "--pass") == 0) only = argv[a + 1];
  }
  PluginHost host;
  (void)host.load_registry(registry);
  OpRegistry ops = host.make_op_registry();
  Result<Backend*> cpu = host.backend("cpu");
  if (!cpu.is_ok()) {
    std::fprintf(stderr, "ge-pass-bench: %s\n", cpu.status().to_string().c_str());
    return 1;
  }
  const double build_start = now_ms();
  std::unique_ptr<Graph> graph = make_graph(nodes);
  if (Status s = ops.infer_graph(*graph); !s.is_ok()) {
    std::fprintf(stderr, "ge-pass-bench: %s\n", s.to_string().c_str());
    return 1;
  }
  std::printf("graph: %zu nodes, %zu initializers (built and inferred in %.1f ms)\n", graph->node_count(),
              graph->initializers().size(), now_ms() - build_start);

  PassManagerOptions o3;
  o3.opt_level = 3;
  PassManager pipeline_manager(host.passes(), ops, o3);
  Result<std::vector<std::string>> pipeline = pipeline_manager.pipeline();
  if (!pipeline.is_ok()) {
    std::fprintf(stderr, "ge-pass-bench: %s\n", pipeline.status().to_string().c_str());
    return 1;
  }
  std::printf("\neach pass alone on a fresh copy (pass time; re-inference and verification excluded)\n");
  std::printf("%-20s %10s %12s\n", "pass", "ms", "nodes after");
  for (const std::string& name : *pipeline) {
    if (!only.empty() && name != only) continue;
    std::unique_ptr<Graph> copy = graph->clone();
    PassManagerOptions one;
    one.explicit_passes = std::vector<std::string>{name};
    PassManager manager(host.passes(), ops, one);
    if (Status s = manager.run(*copy, *cpu, *cpu); !s.is_ok()) {
      std::fprintf(stderr, "ge-pass-bench: %s\n", s.to_string().c_str());
      return 1;
    }
    std::printf("%-20s %10.1f %12zu\n", name.c_str(), manager.timings().at(0).milliseconds, copy->node_count());
  }
  if (!only.empty()) return 0;
  std::printf("\nthe -O3 pipeline\n");
  std::printf("%-20s %10s %8s\n", "pass", "ms", "changed");
  std::unique_ptr<Graph> copy = graph->clone();
  const double start = now_ms();
  if (Status s = pipeline_manager.run(*copy, *cpu, *cpu); !s.is_ok()) {
    std::fprintf(stderr, "ge-pass-bench: %s\n", s.to_string().c_str());
    return 1;
  }
  const double total = now_ms() - start;
  double passes = 0;
  for (const PassTiming& t : pipeline_manager.timings()) {
    std::printf("%-20s %10.1f %8s\n", t.name.c_str(), t.milliseconds, t.changed ? "yes" : "no");
    passes += t.milliseconds;
  }
  std::printf("%-20s %10.1f\n", "passes total", passes);
  std::printf("%-20s %10.1f   (with re-inference and verification)\n", "pipeline total", total);
  std::printf("nodes: %zu -> %zu\n", graph->node_count(), copy->node_count());
  return 0;
}

}  // namespace
}  // namespace ge

int main(int argc, char** argv) { return ge::run(argc, argv); }
