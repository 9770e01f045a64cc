// Multi-stream speedup: four independent branches, each a chain of large MatMuls with
// their own weights, loaded through ModelRunner with max_streams 1, 2 and 4.
//   cpu (default): wall time. With asynchronous cpu streams the branches of different
//     streams run on different pool workers at once.
//   npu_sim: the simulated makespan of one execute (latest end minus earliest start over
//     the device's task trace); the simulator runs streams concurrently in its timeline,
//     so four branches on four streams approach 4x whatever the host's cores.
// Prints one result line per configuration; no asserts. Finds the plugins through
// ge_plugins.toml beside the binary.
//   ge_multi_stream_bench [--backend cpu|npu_sim] [--size N] [--depth D] [--repeat R]

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

#include "ge/plugin_api/backend.h"
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

/// The simulated makespan of one execute on a device that traces in simulated time.
double simulated_makespan_ns(ge::ModelRunner& runner, ge::Device& device, const ge::Tensor& input) {
  std::vector<ge::Tensor> outputs;
  if (ge::Status s = device.set_task_tracing(true); !s.is_ok()) fail(s.to_string());
  if (ge::Status s = runner.execute({{"x", input}}, outputs); !s.is_ok()) fail(s.to_string());
  const std::vector<ge::TaskTraceRecord> trace = device.take_task_trace();
  (void)device.set_task_tracing(false);
  if (trace.empty()) fail("the device traced no task");
  double first = trace.front().start_ns, last = trace.front().end_ns;
  for (const ge::TaskTraceRecord& record : trace) {
    first = std::min(first, record.start_ns);
    last = std::max(last, record.end_ns);
  }
  return last - first;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend_name = "cpu";
  int64_t size = 256;
  int depth = 4, repeat = 10;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) fail(std::string("option ") + argv[i] + " expects a value");
    if (std::strcmp(argv[i], "--backend") == 0) backend_name = argv[i + 1];
    else if (std::strcmp(argv[i], "--size") == 0) size = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--depth") == 0) depth = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }
  if (size < 1 || depth < 1 || repeat < 1) fail("--size, --depth and --repeat must be at least 1");

  ge::PluginHost host;
  const auto registry = std::filesystem::canonical("/proc/self/exe").parent_path() / "ge_plugins.toml";
  ge::Status loaded = host.load_registry(registry);
  ge::OpRegistry ops = host.make_op_registry();
  auto backend = host.backend(backend_name);
  if (!backend.is_ok()) {
    fail(backend.status().to_string() + " (registry " + registry.string() + ": " + loaded.to_string() + ")");
  }
  ge::Device& device = (*backend)->device();
  const bool simulated = device.simulated_time();
  std::unique_ptr<ge::Graph> graph = build_graph(ops, size, depth);

  std::printf("multi_stream_bench: %s, %d branches x %d MatMul [%lld x %lld] fp32, %s, %u hardware threads\n",
              backend_name.c_str(), kBranches, depth, static_cast<long long>(size), static_cast<long long>(size),
              simulated ? "simulated makespan of one run" : (std::to_string(repeat) + " timed runs each").c_str(),
              std::thread::hardware_concurrency());
  std::vector<float> input(static_cast<size_t>(size * size), 1.0f);
  const ge::Tensor input_tensor = ge::Tensor::from_vector<float>({size, size}, input);
  std::vector<std::vector<float>> outputs(kBranches, std::vector<float>(static_cast<size_t>(size * size)));
  const void* ins[] = {input.data()};
  void* outs[kBranches];
  for (int b = 0; b < kBranches; ++b) outs[b] = outputs[b].data();

  double baseline = 0.0;
  for (int max_streams : {1, 2, 4}) {
    ge::ModelRunnerOptions options;
    options.max_streams = max_streams;
    options.stream_memory_ratio = 0;  // the branches side by side, whatever memory that takes
    auto runner = ge::ModelRunner::load(*graph, **backend, options);
    if (!runner.is_ok()) fail(runner.status().to_string());
    const int streams_used = (*runner)->stream_plan().stream_count;
    if (simulated) {
      // Simulated time is deterministic: one run gives the makespan.
      const double makespan_ns = simulated_makespan_ns(**runner, device, input_tensor);
      if (max_streams == 1) baseline = makespan_ns;
      std::printf("result: backend=%s max_streams=%d streams_used=%d simulated_makespan_us=%.2f speedup_vs_1=%.2fx\n",
                  backend_name.c_str(), max_streams, streams_used, makespan_ns / 1000.0, baseline / makespan_ns);
      continue;
    }
    if (ge::Status s = (*runner)->execute_bound(ins, outs); !s.is_ok()) fail(s.to_string());  // warm-up
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      if (ge::Status s = (*runner)->execute_bound(ins, outs); !s.is_ok()) fail(s.to_string());
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    if (max_streams == 1) baseline = median;
    std::printf("result: backend=%s max_streams=%d streams_used=%d wall_ms median=%.2f min=%.2f speedup_vs_1=%.2fx "
                "(check %.4f)\n",
                backend_name.c_str(), max_streams, streams_used, median, times.front(), baseline / median,
                outputs[kBranches - 1][0]);
  }
  return 0;
}
