// One Session run from several threads at once (serving): every run's outputs equal the
// serial run's on the same inputs, on the cpu task sink (a pool of runners), and on
// npu_sim, the per-op executor and shape specialisations (runs take turns).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "ge/graph_text.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

Result<std::unique_ptr<Session>> session_for(const std::string& text, const std::string& backend = "cpu") {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx_std", "ge_fused", "cpu", "npu_sim", "greedy_by_size"}));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
  SessionOptions options;
  options.backend = backend;
  options.passes.opt_level = 3;
  return Session::create(env.host(), std::move(graph), options);
}

/// Conv, fused activation, pooling and a dense head: several kernels and arena values.
constexpr const char* kStatic = R"(graph main (opset ""=17) {
  input %x : float32[1,8,12,12]
  init %w : float32[16,8,3,3] = elided
  init %b : float32[16] = elided
  init %wd : float32[16,4] = elided
  %c = Conv(%x, %w, %b) {pads: ints = [1, 1, 1, 1]} "conv"
  %r = Relu(%c) "relu"
  %p = GlobalAveragePool(%r) "gap"
  %f = Flatten(%p) "flatten"
  %y = MatMul(%f, %wd) "dense"
  output %y
})";

/// Rows of a symbolic count: specialised per row count.
constexpr const char* kDynamic = R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  init %w : float32[4,3] = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 1, 0.75, 0.5, -1]
  %h = MatMul(%x, %w) "dense"
  %y = Softmax(%h) {axis: int = -1} "softmax"
  output %y
})";

Tensor random_tensor(std::vector<int64_t> dims, uint32_t seed) {
  Tensor t = Tensor::zeros(DataType::kFloat32, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& v : std::span<float>(t.data<float>(), static_cast<size_t>(t.element_count()))) v = value(rng);
  return t;
}

std::string with_weights(std::string text) {
  // The text IR elides large constants; give the static model concrete random weights.
  auto fill = [&](const std::string& name, std::vector<int64_t> dims, uint32_t seed) {
    const Tensor t = random_tensor(dims, seed);
    std::string values = "[";
    for (int64_t i = 0; i < t.element_count(); ++i) values += (i ? ", " : "") + std::to_string(t.data<float>()[i]);
    const std::string key = "%" + name + " : float32[";
    const size_t at = text.find(key);
    const size_t elided = text.find("elided", at);
    text.replace(elided, 6, values + "]");
  };
  fill("w", {16, 8, 3, 3}, 1);
  fill("b", {16}, 2);
  fill("wd", {16, 4}, 3);
  return text;
}

/// Runs `inputs[i]` on `threads` threads, each `rounds` times over its share, and checks
/// every result against `expected[i]`.
void run_concurrently(Session& session, const std::string& input, const std::vector<Tensor>& inputs,
                      const std::vector<Tensor>& expected, int threads, int rounds) {
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
        for (size_t i = static_cast<size_t>(t); i < inputs.size(); i += static_cast<size_t>(threads)) {
          std::vector<Tensor> outputs;
          if (!session.run({{input, inputs[i]}}, outputs).is_ok() || outputs.size() != 1) {
            ++failures;
            continue;
          }
          const auto got = outputs[0].values<float>(), want = expected[i].values<float>();
          if (got.size() != want.size()) {
            ++mismatches;
            continue;
          }
          for (size_t k = 0; k < got.size(); ++k) {
            if (std::abs(got[k] - want[k]) > 1e-5f * (1.0f + std::abs(want[k]))) {
              ++mismatches;
              break;
            }
          }
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ConcurrentRuns, TaskSinkRunsInParallelOnPooledRunners) {
  for (const char* backend : {"cpu", "npu_sim"}) {
    SCOPED_TRACE(backend);
    Result<std::unique_ptr<Session>> session = session_for(with_weights(kStatic), backend);
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    ASSERT_TRUE((*session)->uses_task_sink());
    std::vector<Tensor> inputs, expected;
    for (uint32_t i = 0; i < 16; ++i) {
      inputs.push_back(random_tensor({1, 8, 12, 12}, 100 + i));
      std::vector<Tensor> outputs;
      ASSERT_TRUE((*session)->run({{"x", inputs.back()}}, outputs).is_ok());
      expected.push_back(outputs.at(0).clone());
    }
    EXPECT_EQ((*session)->runner_count(), 1u) << "serial runs share one runner";
    run_concurrently(**session, "x", inputs, expected, 4, 5);
    std::printf("%s: %zu runner(s) after the concurrent runs\n", backend, (*session)->runner_count());
    if (std::string(backend) == "cpu") {
      EXPECT_LE((*session)->runner_count(), 4u) << "at most one runner per run in flight";
    } else {
      EXPECT_EQ((*session)->runner_count(), 1u) << "a device with its own memory: runs take turns";
    }
  }
}

TEST(ConcurrentRuns, SpecialisedAndPerOpRunsTakeTurns) {
  Result<std::unique_ptr<Session>> session = session_for(kDynamic);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> inputs, expected;
  for (uint32_t i = 0; i < 12; ++i) {
    inputs.push_back(random_tensor({1 + i % 5, 4}, 200 + i));  // five signatures
    std::vector<Tensor> outputs;
    ASSERT_TRUE((*session)->run({{"x", inputs.back()}}, outputs).is_ok());
    expected.push_back(outputs.at(0).clone());
  }
  run_concurrently(**session, "x", inputs, expected, 3, 4);
}

}  // namespace
}  // namespace ge
