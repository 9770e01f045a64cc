// ge_memory_plan_scaling_bench (Google Benchmark): how memory planning scales with the
// number of values on the two shapes that stress it (issue 36 item 13):
//   fan_out: x -> n values all live until one op reads them all (every pair conflicts);
//   chain:   n values each read by the next only (every value dies one step later).
// Each assigner the default pipeline runs (greedy_by_size, hill_climb; naive is trivial),
// the core's first-fit assigner, validate_assignment, and plan_memory on the whole graph
// with all three plugins' assigners, for n = 10^3 .. 10^6. Run a Release build:
//   <build>/bin/ge_memory_plan_scaling_bench [--benchmark_filter=fan_out]
// Timing belongs here, not in unit tests; these print times and check nothing.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/memory_plan.h"
#include "greedy_by_size_assigner.h"
#include "hill_climb_assigner.h"
#include "naive_assigner.h"

namespace {

constexpr size_t kAlignment = 512;

std::vector<ge::MemoryRequest> requests_of(const std::string& shape, int64_t n) {
  std::vector<ge::MemoryRequest> requests;
  requests.reserve(static_cast<size_t>(n) + 1);
  if (shape == "fan_out") {
    for (int64_t i = 0; i < n; ++i) requests.emplace_back(kAlignment, i + 1, n + 1);
    requests.emplace_back(kAlignment, n + 1, n + 2);
  } else {
    // Sizes of one to three units, so that best fit has gaps to choose between.
    for (int64_t i = 0; i < n; ++i) requests.emplace_back(kAlignment * (1 + i % 3), i + 1, i + 2);
  }
  return requests;
}

void assign(benchmark::State& state, const std::string& shape, const ge::MemoryAssigner& assigner) {
  const std::vector<ge::MemoryRequest> requests = requests_of(shape, state.range(0));
  size_t total = 0;
  for (auto _ : state) {
    ge::Result<ge::MemoryPlan> plan = assigner.assign(requests, kAlignment);
    if (!plan.is_ok()) {
      state.SkipWithError(plan.status().to_string().c_str());
      return;
    }
    total = plan->total_bytes;
    benchmark::DoNotOptimize(total);
  }
  state.counters["arena_over_bound"] = static_cast<double>(total) / static_cast<double>(ge::peak_live_bytes(requests));
  state.SetComplexityN(state.range(0));
}

void validate(benchmark::State& state, const std::string& shape) {
  const std::vector<ge::MemoryRequest> requests = requests_of(shape, state.range(0));
  ge::Result<ge::MemoryPlan> plan = ge::first_fit_assigner()->assign(requests, kAlignment);
  for (auto _ : state) {
    ge::Status status = ge::validate_assignment(requests, *plan, kAlignment);
    if (!status.is_ok()) state.SkipWithError(status.to_string().c_str());
  }
  state.SetComplexityN(state.range(0));
}

// The same shapes as graphs: Neg nodes reading x (fan-out, then one Sum of them all) or
// each other (chain), float32[128] values (one alignment unit each).
std::unique_ptr<ge::Graph> graph_of(const std::string& shape, int64_t n) {
  auto graph = std::make_unique<ge::Graph>(shape);
  graph->set_opset_import("", 17);
  const ge::TensorDesc desc = ge::TensorDesc::of(ge::DataType::kFloat32, {128});
  ge::Value* x = graph->add_input("x", desc);
  std::vector<ge::Value*> made;
  ge::Value* y = x;
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = "t" + std::to_string(i);
    ge::Node* node = graph->add_node("Neg", {shape == "fan_out" ? x : y}, 1, "n_" + name, {name});
    node->output(0)->set_desc(desc);
    y = node->output(0);
    made.push_back(y);
  }
  if (shape == "fan_out") {
    ge::Node* sum = graph->add_node("Sum", made, 1, "sum", {"y"});
    sum->output(0)->set_desc(desc);
    y = sum->output(0);
  }
  graph->add_output(y);
  return graph;
}

void plan(benchmark::State& state, const std::string& shape) {
  const std::unique_ptr<ge::Graph> graph = graph_of(shape, state.range(0));
  const std::vector<std::shared_ptr<ge::MemoryAssigner>> assigners{std::make_shared<ge::memory::NaiveAssigner>(),
                                                                   std::make_shared<ge::memory::GreedyBySizeAssigner>(),
                                                                   std::make_shared<ge::memory::HillClimbAssigner>()};
  for (auto _ : state) {
    ge::Result<ge::GraphMemoryPlan> planned = ge::plan_memory(*graph, assigners);
    if (!planned.is_ok()) {
      state.SkipWithError(planned.status().to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(planned->feature_map_bytes);
  }
  state.SetComplexityN(state.range(0));
}

const ge::memory::GreedyBySizeAssigner greedy_by_size;
const ge::memory::HillClimbAssigner hill_climb;

void register_all() {
  for (const std::string shape : {"fan_out", "chain"}) {
    auto sizes = [](benchmark::internal::Benchmark* b) {
      b->RangeMultiplier(10)->Range(1'000, 1'000'000)->Unit(benchmark::kMillisecond)->Complexity();
    };
    sizes(benchmark::RegisterBenchmark(("greedy_by_size/" + shape).c_str(),
                                       [shape](benchmark::State& s) { assign(s, shape, greedy_by_size); }));
    sizes(benchmark::RegisterBenchmark(("hill_climb/" + shape).c_str(),
                                       [shape](benchmark::State& s) { assign(s, shape, hill_climb); }));
    const std::shared_ptr<ge::MemoryAssigner> first_fit = ge::first_fit_assigner();
    sizes(benchmark::RegisterBenchmark(("builtin_first_fit/" + shape).c_str(),
                                       [shape, first_fit](benchmark::State& s) { assign(s, shape, *first_fit); }));
    sizes(benchmark::RegisterBenchmark(("validate_assignment/" + shape).c_str(),
                                       [shape](benchmark::State& s) { validate(s, shape); }));
    sizes(benchmark::RegisterBenchmark(("plan_memory/" + shape).c_str(),
                                       [shape](benchmark::State& s) { plan(s, shape); }));
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
