// Launch cost on the cpu backend: 1,000 tiny kernels (Relu on 64 floats, the sunk tasks
// of a ModelRunner) launched one by one on a stream, versus captured once with the
// stream capture API and replayed. Prints ns per launch; no asserts. With --trace 1 the
// device records every task (Device::set_task_tracing), which shows what tracing costs.
// Finds the plugins through ge_plugins.toml beside the binary.
//   ge_capture_bench [--repeat R] [--trace 0|1]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_host.h"
#include "ge/runtime/model_runner.h"
#include "ge/runtime/stream_capture.h"

namespace {

constexpr int kLaunches = 1000;
constexpr int64_t kElements = 64;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "capture_bench: %s\n", what.c_str());
  std::exit(1);
}

void check(const ge::Status& status) {
  if (!status.is_ok()) fail(status.to_string());
}

/// Median ns per launch of `round` (which launches kLaunches kernels) over `repeat` rounds.
double ns_per_launch(int repeat, const std::function<void()>& round) {
  round();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    round();
    times.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] / kLaunches;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 200;
  bool trace = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--trace") == 0) trace = std::atoi(argv[i + 1]) != 0;
    else fail(std::string("unknown option ") + argv[i]);
  }
  ge::PluginHost host;
  const auto registry = std::filesystem::canonical("/proc/self/exe").parent_path() / "ge_plugins.toml";
  ge::Status loaded = host.load_registry(registry);
  ge::OpRegistry ops = host.make_op_registry();
  auto found = host.backend("cpu");
  if (!found.is_ok()) fail("no cpu backend (" + registry.string() + "): " + loaded.to_string());
  ge::Backend& backend = **found;

  // The kernels: a ModelRunner's sunk Relu chain, its argument tables bound once.
  ge::Graph graph("relu_chain");
  graph.set_opset_import("", 17);
  ge::Value* v = graph.add_input("x", ge::TensorDesc::of(ge::DataType::kFloat32, {kElements}));
  for (int i = 0; i < kLaunches; ++i) v = graph.add_node("Relu", {v}, 1, "relu" + std::to_string(i))->output(0);
  graph.add_output(v);
  check(ops.infer_graph(graph));
  auto runner = ge::ModelRunner::load(graph, backend);
  if (!runner.is_ok()) fail(runner.status().to_string());
  std::vector<float> in(kElements, 1.0f), out(kElements);
  const void* ins[] = {in.data()};
  void* outs[] = {out.data()};
  check((*runner)->execute_bound(ins, outs));
  std::vector<ge::Task> tasks;
  for (const ge::Task& task : (*runner)->stream_tasks()[0]) {
    if (std::holds_alternative<ge::KernelTask>(task)) tasks.push_back(task);
  }
  if (tasks.size() != static_cast<size_t>(kLaunches)) fail("expected 1000 kernel tasks, got " + std::to_string(tasks.size()));

  auto created = ge::CaptureStream::create(backend.device());
  if (!created.is_ok()) fail(created.status().to_string());
  ge::CaptureStream& stream = **created;

  if (trace) check(backend.device().set_task_tracing(true));
  std::printf("capture_bench: %d launches of Relu[%lld] on the cpu backend, median of %d rounds, tracing %s\n",
              kLaunches, static_cast<long long>(kElements), repeat, trace ? "on" : "off");
  const double bare = ns_per_launch(repeat, [&] {
    int failed = 0;
    for (const ge::Task& task : tasks) {
      const auto& kernel = std::get<ge::KernelTask>(task);
      failed |= kernel.function(kernel.args);
    }
    if (failed != 0) fail("a kernel failed");
  });
  const double one_by_one = ns_per_launch(repeat, [&] {
    for (const ge::Task& task : tasks) check(stream.submit({&task, 1}));
    check(stream.synchronize());
  });
  const double one_by_one_synced = ns_per_launch(repeat, [&] {
    for (const ge::Task& task : tasks) {
      check(stream.submit({&task, 1}));
      check(stream.synchronize());
    }
  });

  check(ge::begin_capture(stream, ge::CaptureMode::kGlobal));
  for (const ge::Task& task : tasks) check(stream.submit({&task, 1}));
  auto model = ge::end_capture(stream);
  if (!model.is_ok()) fail(model.status().to_string());
  const double replay = ns_per_launch(repeat, [&] {
    check((*model)->execute(stream));
    check(stream.synchronize());
  });
  ge::Stream* streams[] = {&stream.backend_stream()};
  const double replay_run = ns_per_launch(repeat, [&] { check((*model)->run(streams)); });

  if (trace) {
    const size_t traced = backend.device().take_task_trace().size();
    std::printf("traced %zu tasks\n", traced);
  }
  std::printf("result: bare_function_pointer_loop ns_per_launch=%.1f\n", bare);
  std::printf("result: one_by_one_submit_then_one_synchronize ns_per_launch=%.1f\n", one_by_one);
  std::printf("result: one_by_one_submit_and_synchronize_each ns_per_launch=%.1f\n", one_by_one_synced);
  std::printf("result: captured_replay (%zu tasks, %zu list(s)) ns_per_launch=%.1f speedup_vs_one_by_one=%.2fx\n",
              (*model)->task_count(), (*model)->list_count(), replay, one_by_one / replay);
  std::printf("result: captured_run_on_calling_thread ns_per_launch=%.1f speedup_vs_one_by_one=%.2fx\n", replay_run,
              one_by_one / replay_run);
  return 0;
}
