// Throughput of one Session run from 1, 2, 4 client threads at once (serving): the same
// compiled model, every client running it back to back on its own input for a fixed
// time. Prints runs per second per client count and the speedup over one client; no
// asserts. Finds the plugins through ge_plugins.toml beside the binary.
//   ge_concurrent_bench MODEL.onnx [--seconds S] [--clients 1,2,4] [--threads T]
// --threads: intra-op threads per kernel (default 1, so that the clients are the
// parallelism measured).

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ge/plugin_host.h"
#include "ge/session.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "concurrent_bench: %s\n", what.c_str());
  std::exit(1);
}

ge::Tensor random_input(const ge::Value& input, uint32_t seed) {
  if (!input.desc().is_static() || input.desc().dtype != ge::DataType::kFloat32) {
    fail("input '" + input.name() + "' is not a static float32 tensor");
  }
  ge::Tensor t = ge::Tensor::zeros(ge::DataType::kFloat32, input.desc().static_dims());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.element_count(); ++i) t.data<float>()[i] = value(rng);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) fail("usage: ge_concurrent_bench MODEL.onnx [--seconds S] [--clients 1,2,4] [--threads T]");
  const std::filesystem::path model = argv[1];
  double seconds = 3;
  std::vector<int> clients = {1, 2, 4};
  int threads = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i], value = argv[i + 1];
    if (option == "--seconds") {
      seconds = std::atof(value.c_str());
    } else if (option == "--threads") {
      threads = std::atoi(value.c_str());
    } else if (option == "--clients") {
      clients.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) clients.push_back(std::atoi(item.c_str()));
    } else {
      fail("unknown option " + option);
    }
  }
  ge::PluginHost host;
  const auto registry = std::filesystem::canonical("/proc/self/exe").parent_path() / "ge_plugins.toml";
  if (ge::Status loaded = host.load_registry(registry); !loaded.is_ok()) fail(loaded.to_string());
  ge::SessionOptions options;
  options.passes.opt_level = 3;
  options.threads = threads;
  ge::Result<std::unique_ptr<ge::Session>> session = ge::Session::create(host, model, options);
  if (!session.is_ok()) fail(session.status().to_string());
  const std::vector<ge::Value*> inputs = (*session)->graph().runtime_inputs();
  double single = 0;
  for (int count : clients) {
    std::atomic<bool> stop{false};
    std::atomic<long> runs{0}, errors{0};
    std::vector<std::thread> workers;
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < count; ++c) {
      workers.emplace_back([&, c] {
        ge::NamedTensors bound;
        for (size_t k = 0; k < inputs.size(); ++k) {
          bound.emplace_back(inputs[k]->name(), random_input(*inputs[k], static_cast<uint32_t>(c * 31 + k)));
        }
        std::vector<ge::Tensor> outputs;
        while (!stop.load(std::memory_order_relaxed)) {
          if ((*session)->run(bound, outputs).is_ok()) ++runs;
          else ++errors;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (std::thread& worker : workers) worker.join();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double per_second = static_cast<double>(runs.load()) / elapsed;
    if (count == clients.front()) single = per_second / count;
    std::printf("result: clients %d  runs/s %.1f  speedup %.2fx  runners %zu  errors %ld\n", count, per_second,
                single > 0 ? per_second / (single * clients.front()) : 0.0, (*session)->runner_count(),
                errors.load());
  }
  return 0;
}
