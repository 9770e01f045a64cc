// Soak (label "soak", off the default test run: ctest --preset soak): 10,000 runs of the
// sample model on one Session, and 1,000 create/run/destroy cycles of a Session with the
// plugins loaded, keep the resident set flat after warm-up (within 1 MiB; glibc's arenas
// are trimmed before each reading). Prints the figures.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

const std::filesystem::path kModel = std::filesystem::path(GE_SAMPLE_MODELS_DIR) / "small_cnn.onnx";
constexpr long kMiB = 1 << 20;

long resident_bytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

NamedTensors sample_input() {
  Tensor x = Tensor::zeros(DataType::kFloat32, {1, 3, 16, 16});
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int64_t i = 0; i < x.element_count(); ++i) x.data<float>()[i] = value(rng);
  return {{"input", x}};
}

TEST(Soak, TenThousandRunsKeepTheResidentSetFlat) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx", "onnx_std", "cpu", "greedy_by_size"}).is_ok());
  Result<std::unique_ptr<Session>> session = Session::create(env.host(), kModel, SessionOptions{});
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  const NamedTensors inputs = sample_input();
  std::vector<Tensor> outputs;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE((*session)->run(inputs, outputs).is_ok());
  const long before = resident_bytes();
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE((*session)->run(inputs, outputs).is_ok());
  const long after = resident_bytes();
  std::printf("soak: 10000 runs: resident %.2f MiB -> %.2f MiB (%+ld KiB)\n", static_cast<double>(before) / kMiB,
              static_cast<double>(after) / kMiB, (after - before) / 1024);
  EXPECT_LE(after - before, kMiB);
}

TEST(Soak, AThousandSessionCyclesKeepTheResidentSetFlat) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx", "onnx_std", "cpu", "greedy_by_size"}).is_ok());
  const NamedTensors inputs = sample_input();
  auto cycle = [&] {
    Result<std::unique_ptr<Session>> session = Session::create(env.host(), kModel, SessionOptions{});
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    std::vector<Tensor> outputs;
    ASSERT_TRUE((*session)->run(inputs, outputs).is_ok());
  };
  for (int i = 0; i < 50; ++i) cycle();
  const long before = resident_bytes();
  for (int i = 0; i < 1000; ++i) cycle();
  const long after = resident_bytes();
  std::printf("soak: 1000 session cycles: resident %.2f MiB -> %.2f MiB (%+ld KiB)\n",
              static_cast<double>(before) / kMiB, static_cast<double>(after) / kMiB, (after - before) / 1024);
  EXPECT_LE(after - before, kMiB);
}

}  // namespace
}  // namespace ge
