// Multi-stream wall time on the cpu backend: four independent branches, each a chain of
// large MatMuls with their own weights, loaded through ModelRunner with max_streams 1 and
// 2 (and 4). With asynchronous cpu streams the branches of different streams run on
// different pool workers at once. Prints one result line per configuration; no asserts.
// Finds the plugins through ge_plugins.toml beside the binary.
//   ge_multi_stream_bench [--size N] [--depth D] [--repeat R]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ge/plugin_host.h"
#include "ge/runtime/model_runner.h"

namespace {

constexpr int kBranches = 4;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "multi_stream_bench: %s\n", what.c_str());
  std::exit(1);
}

std::unique_ptr<ge::Graph> build_graph(const ge::OpRegistry& ops, int64_t size, int depth) {
  auto graph = std::make_unique<ge::Graph>("four_matmul_branches");
  graph->set_opset_import("", 17);
  ge::Value* x = graph->add_input("x", ge::TensorDesc::of(ge::DataType::kFloat32, {size, size}));
  // 1/size keeps every product near 1: no overflow however deep the chain.
  const std::vector<float> weights(static_cast<size_t>(size * size), 1.0f / static_cast<float>(size));
  for (int b = 0; b < kBranches; ++b) {
    ge::Value* v = x;
    for (int d = 0; d < depth; ++d) {
      const std::string name = "b" + std::to_string(b) + "_mm" + std::to_string(d);
      ge::Value* w = graph->add_initializer(name + "_w", ge::Tensor::from_vector<float>({size, size}, weights));
      v = graph->add_node("MatMul", {v, w}, 1, name)->output(0);
    }
    graph->add_output(v);
  }
  if (ge::Status inferred = ops.infer_graph(*graph); !inferred.is_ok()) fail(inferred.to_string());
  return graph;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t size = 256;
  int depth = 4, repeat = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--size") == 0) size = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--depth") == 0) depth = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }

  ge::PluginHost host;
  const auto registry = std::filesystem::canonical("/proc/self/exe").parent_path() / "ge_plugins.toml";
  ge::Status loaded = host.load_registry(registry);
  ge::OpRegistry ops = host.make_op_registry();
  auto backend = host.backend("cpu");
  if (!backend.is_ok()) fail("no cpu backend (" + registry.string() + "): " + loaded.to_string());
  std::unique_ptr<ge::Graph> graph = build_graph(ops, size, depth);

  std::printf("multi_stream_bench: %d branches x %d MatMul [%lld x %lld] fp32, %d timed runs each, %u hardware threads\n",
              kBranches, depth, static_cast<long long>(size), static_cast<long long>(size), repeat,
              std::thread::hardware_concurrency());
  std::vector<float> input(static_cast<size_t>(size * size), 1.0f);
  std::vector<std::vector<float>> outputs(kBranches, std::vector<float>(static_cast<size_t>(size * size)));
  const void* ins[] = {input.data()};
  void* outs[kBranches];
  for (int b = 0; b < kBranches; ++b) outs[b] = outputs[b].data();

  double baseline_ms = 0.0;
  for (int max_streams : {1, 2, 4}) {
    ge::ModelRunnerOptions options;
    options.max_streams = max_streams;
    auto runner = ge::ModelRunner::load(*graph, **backend, options);
    if (!runner.is_ok()) fail(runner.status().to_string());
    if (ge::Status s = (*runner)->execute_bound(ins, outs); !s.is_ok()) fail(s.to_string());  // warm-up
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      if (ge::Status s = (*runner)->execute_bound(ins, outs); !s.is_ok()) fail(s.to_string());
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    if (max_streams == 1) baseline_ms = median;
    std::printf("result: max_streams=%d streams_used=%d wall_ms median=%.2f min=%.2f speedup_vs_1=%.2fx (check %.4f)\n",
                max_streams, (*runner)->stream_plan().stream_count, median, times.front(), baseline_ms / median,
                outputs[kBranches - 1][0]);
  }
  return 0;
}
