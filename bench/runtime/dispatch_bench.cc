// Dispatch overhead: a chain of 1,000 tiny elementwise ops (Relu on 64 floats), in sink
// mode (ModelRunner, one execute per chain) and per-op mode (Executor, the host
// dispatches each node), against a bare loop over the same kernel function pointers.
// Reported per op in the "per_op" counter (the per-iteration time over kOps).
// Finds the plugins through ge_plugins.toml beside the binary.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/executor.h"
#include "ge/plugin_host.h"
#include "ge/runtime/model_runner.h"

namespace {

constexpr int kOps = 1000;
constexpr int64_t kElements = 64;

struct Setup {
  ge::PluginHost host;
  ge::OpRegistry ops;
  ge::Backend* backend = nullptr;
  std::unique_ptr<ge::Graph> graph;
};

Setup& setup() {
  static Setup* s = [] {
    auto* s = new Setup();
    const auto registry = std::filesystem::canonical("/proc/self/exe").parent_path() / "ge_plugins.toml";
    ge::Status loaded = s->host.load_registry(registry);
    s->ops = s->host.make_op_registry();
    auto backend = s->host.backend("cpu");
    if (!backend.is_ok()) {
      std::fprintf(stderr, "no cpu backend (%s): %s\n", registry.c_str(), loaded.to_string().c_str());
      std::exit(1);
    }
    s->backend = *backend;
    s->graph = std::make_unique<ge::Graph>("relu_chain");
    s->graph->set_opset_import("", 17);
    ge::Value* v = s->graph->add_input("x", ge::TensorDesc::of(ge::DataType::kFloat32, {kElements}));
    for (int i = 0; i < kOps; ++i) v = s->graph->add_node("Relu", {v}, 1, "relu" + std::to_string(i))->output(0);
    s->graph->add_output(v);
    ge::Status inferred = s->ops.infer_graph(*s->graph);
    if (!inferred.is_ok()) {
      std::fprintf(stderr, "%s\n", inferred.to_string().c_str());
      std::exit(1);
    }
    return s;
  }();
  return *s;
}

void report(benchmark::State& state) {
  // Seconds per op (printed with an SI prefix: "15n" is 15 ns).
  state.counters["per_op"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kOps, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Sink(benchmark::State& state) {
  auto runner = ge::ModelRunner::load(*setup().graph, *setup().backend);
  if (!runner.is_ok()) {
    state.SkipWithError(runner.status().to_string().c_str());
    return;
  }
  std::vector<float> in(kElements, 1.0f), out(kElements);
  const void* ins[] = {in.data()};
  void* outs[] = {out.data()};
  for (auto _ : state) {
    ge::Status s = (*runner)->execute_bound(ins, outs);
    if (!s.is_ok()) state.SkipWithError(s.to_string().c_str());
  }
  report(state);
}

void BM_BareFunctionPointerLoop(benchmark::State& state) {
  auto runner = ge::ModelRunner::load(*setup().graph, *setup().backend);
  if (!runner.is_ok()) {
    state.SkipWithError(runner.status().to_string().c_str());
    return;
  }
  std::vector<float> in(kElements, 1.0f), out(kElements);
  const void* ins[] = {in.data()};
  void* outs[] = {out.data()};
  (void)(*runner)->execute_bound(ins, outs);  // binds the I/O slots
  std::vector<ge::KernelTask> kernels;
  for (const ge::Task& t : (*runner)->stream_tasks()[0]) kernels.push_back(std::get<ge::KernelTask>(t));
  for (auto _ : state) {
    int failed = 0;
    for (const ge::KernelTask& k : kernels) failed |= k.function(k.args);
    benchmark::DoNotOptimize(failed);
  }
  report(state);
}

void BM_PerOp(benchmark::State& state) {
  auto executor = ge::Executor::create(setup().graph->clone(), *setup().backend, setup().ops);
  if (!executor.is_ok()) {
    state.SkipWithError(executor.status().to_string().c_str());
    return;
  }
  ge::NamedTensors feeds = {{"x", ge::Tensor::from_vector<float>({kElements}, std::vector<float>(kElements, 1.0f))}};
  std::vector<ge::Tensor> outputs;
  for (auto _ : state) {
    ge::Status s = (*executor)->run(feeds, outputs);
    if (!s.is_ok()) state.SkipWithError(s.to_string().c_str());
  }
  report(state);
}

BENCHMARK(BM_BareFunctionPointerLoop);
BENCHMARK(BM_Sink);
BENCHMARK(BM_PerOp);

}  // namespace

BENCHMARK_MAIN();
