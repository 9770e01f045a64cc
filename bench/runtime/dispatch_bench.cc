// Dispatch overhead: a chain of 1,000 tiny elementwise ops (Relu on 64 floats), in sink
// mode (ModelRunner, one execute per chain; also with super kernels, seed 001) and per-op
// mode (Executor, the host dispatches each node), against a bare loop over the same kernel
// function pointers. Reported per op in the "per_op" counter (the per-iteration time over
// kOps). BM_NpuSimSimulated reports npu_sim's simulated device time per op ("sim_ns_per_op"),
// without and with super kernels: its launch-cost model charges every launch.
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

#include <array>

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

// Caller buffers at the zero-copy alignment (misaligned ones would be copied).
struct Buffers {
  alignas(64) std::array<float, kElements> in{}, out{};
  Buffers() { in.fill(1.0f); }
};

void BM_Sink(benchmark::State& state) {
  ge::ModelRunnerOptions options;
  options.super_kernel_max_bytes = static_cast<size_t>(state.range(0));
  auto runner = ge::ModelRunner::load(*setup().graph, *setup().backend, options);
  if (!runner.is_ok()) {
    state.SkipWithError(runner.status().to_string().c_str());
    return;
  }
  Buffers buffers;
  auto& in = buffers.in;
  auto& out = buffers.out;
  const void* ins[] = {in.data()};
  void* outs[] = {out.data()};
  for (auto _ : state) {
    ge::Status s = (*runner)->execute_bound(ins, outs);
    if (!s.is_ok()) state.SkipWithError(s.to_string().c_str());
  }
  report(state);
  state.counters["super_kernels"] = static_cast<double>((*runner)->super_kernel_count());
}

// npu_sim's simulated time of one execute, per op, without (0) and with super kernels.
void BM_NpuSimSimulated(benchmark::State& state) {
  auto backend = setup().host.backend("npu_sim");
  if (!backend.is_ok()) {
    state.SkipWithError(backend.status().to_string().c_str());
    return;
  }
  ge::ModelRunnerOptions options;
  options.super_kernel_max_bytes = static_cast<size_t>(state.range(0));
  auto runner = ge::ModelRunner::load(*setup().graph, **backend, options);
  if (!runner.is_ok()) {
    state.SkipWithError(runner.status().to_string().c_str());
    return;
  }
  ge::Device& device = (*backend)->device();
  ge::NamedTensors feeds = {{"x", ge::Tensor::from_vector<float>({kElements}, std::vector<float>(kElements, 1.0f))}};
  std::vector<ge::Tensor> outputs;
  double simulated_ns = 0;
  for (auto _ : state) {
    (void)device.set_task_tracing(true);
    ge::Status s = (*runner)->execute(feeds, outputs);
    if (!s.is_ok()) state.SkipWithError(s.to_string().c_str());
    const std::vector<ge::TaskTraceRecord> trace = device.take_task_trace();
    if (!trace.empty()) simulated_ns = trace.back().end_ns - trace.front().start_ns;
  }
  (void)device.set_task_tracing(false);
  state.counters["sim_ns_per_op"] = simulated_ns / kOps;
  state.counters["super_kernels"] = static_cast<double>((*runner)->super_kernel_count());
}

void BM_BareFunctionPointerLoop(benchmark::State& state) {
  auto runner = ge::ModelRunner::load(*setup().graph, *setup().backend);
  if (!runner.is_ok()) {
    state.SkipWithError(runner.status().to_string().c_str());
    return;
  }
  Buffers buffers;
  const void* ins[] = {buffers.in.data()};
  void* outs[] = {buffers.out.data()};
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
BENCHMARK(BM_Sink)->Arg(0)->Arg(256);  // super kernels off, and for nodes writing <= 256 bytes
BENCHMARK(BM_PerOp);
BENCHMARK(BM_NpuSimSimulated)->Arg(0)->Arg(256)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
