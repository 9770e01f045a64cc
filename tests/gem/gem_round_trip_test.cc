// Compile -> .gem -> load -> run equals a direct run, bit for bit, on the cpu backend; and
// a model whose required plugin is missing or has another version fails naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <fstream>
#include <string>

#include <unistd.h>

#include "ge/graph_text.h"
#include "ge/model_file.h"
#include "ge/pass_manager.h"
#include "ge/plugin_host.h"
#include "ge/session.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

const PluginHost& host() {
  static PluginHost* instance = [] {
    auto* h = new PluginHost();
    const char* bin = std::getenv("GE_TEST_BIN_DIR");
    EXPECT_NE(bin, nullptr) << "GE_TEST_BIN_DIR is not set (run through ctest)";
    if (bin != nullptr) {
      EXPECT_TRUE(h->load_registry(fs::path(bin) / "ge_plugins.toml").is_ok());
    }
    return h;
  }();
  return *instance;
}

fs::path temp_file(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("ge_gem_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::vector<Tensor> run_session(Session& session) {
  Result<std::vector<std::pair<std::string, Tensor>>> inputs = make_check_inputs(session.graph(), {});
  EXPECT_TRUE(inputs.is_ok()) << inputs.status().to_string();
  std::vector<Tensor> outputs;
  Status status = session.run(*inputs, outputs);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  return outputs;
}

void expect_bitwise_equal(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].dtype(), b[k].dtype()) << "output " << k;
    ASSERT_EQ(a[k].shape(), b[k].shape()) << "output " << k;
    if (a[k].dtype() == DataType::kString) {
      for (int64_t i = 0; i < a[k].element_count(); ++i)
        EXPECT_EQ(a[k].data<std::string>()[i], b[k].data<std::string>()[i]);
    } else {
      EXPECT_EQ(std::memcmp(a[k].raw_data(), b[k].raw_data(), a[k].byte_size()), 0) << "output " << k;
    }
  }
}

/// Writes a compiled session the way ge-compile does: graph, weights and, when it runs
/// through the task sink, its plans (`edit` may tamper with them first).
fs::path write_session(const Session& compiled, const std::string& name, ModelFileInfo info = {},
                       const std::function<void(CompiledPlans&)>& edit = {}) {
  if (info.plugins.empty()) info.plugins = required_plugins(host(), info.backend);
  std::optional<CompiledPlans> plans;
  if (compiled.runner() != nullptr) plans = compiled.runner()->compiled_plans();
  if (plans && edit) edit(*plans);
  const fs::path gem = temp_file(name + ".gem");
  Status written = write_model_file(gem, compiled.graph(), info, plans ? &*plans : nullptr, compiled.memory_statistics());
  EXPECT_TRUE(written.is_ok()) << written.to_string();
  return gem;
}

/// Compiles `model` the way ge-compile does and writes it with `info`.
fs::path compile(const fs::path& model, const std::string& name, ModelFileInfo info = {}) {
  Result<std::unique_ptr<Session>> compiled = Session::create(host(), model, SessionOptions{});
  EXPECT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  if (!compiled.is_ok()) return {};
  return write_session(**compiled, name, std::move(info));
}

void expect_round_trip(const fs::path& model, const std::string& name) {
  SCOPED_TRACE(model.string());
  Result<std::unique_ptr<Session>> direct = Session::create(host(), model, SessionOptions{});
  ASSERT_TRUE(direct.is_ok()) << direct.status().to_string();
  const fs::path gem = compile(model, name);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_TRUE((*loaded)->pass_timings().empty()) << "loading must not run passes";
  EXPECT_EQ((*loaded)->uses_task_sink(), (*direct)->uses_task_sink());
  if ((*direct)->uses_task_sink()) {
    // The loader ran the stored plans, not new ones: exporting them again gives the file's.
    const CompiledPlans stored = (*direct)->runner()->compiled_plans();
    const CompiledPlans reloaded = (*loaded)->runner()->compiled_plans();
    EXPECT_EQ(reloaded.order, stored.order);
    EXPECT_EQ(reloaded.streams.stream_of, stored.streams.stream_of);
    EXPECT_EQ(reloaded.streams.events, stored.streams.events);
    EXPECT_EQ(reloaded.buffer_offsets, stored.buffer_offsets);
    EXPECT_EQ(reloaded.feature_map_bytes, stored.feature_map_bytes);
    EXPECT_EQ(reloaded.tasks, stored.tasks);
    EXPECT_EQ(reloaded.kernels, stored.kernels);
  }
  expect_bitwise_equal(run_session(**direct), run_session(**loaded));
}

fs::path source_dir() {
  const char* dir = std::getenv("GE_SOURCE_DIR");
  return dir ? fs::path(dir) : fs::path(GE_SOURCE_DIR_FALLBACK);
}

TEST(GemRoundTrip, SmallCnn) { expect_round_trip(source_dir() / "samples/models/small_cnn.onnx", "small_cnn"); }

class GemConformance : public testing::TestWithParam<const char*> {};

TEST_P(GemConformance, EqualsDirectRun) {
  expect_round_trip(fs::path("/usr/share/libonnx-testdata/data/node") / GetParam() / "model.onnx", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Node, GemConformance,
                         testing::Values("test_conv_with_strides_padding", "test_batchnorm_epsilon",
                                         "test_maxpool_2d_default", "test_gemm_default_single_elem_vector_bias",
                                         "test_softmax_axis_1", "test_if", "test_loop11", "test_matmul_2d",
                                         "test_concat_2d_axis_0", "test_transpose_default",
                                         "test_averagepool_2d_pads"));

/// Every ONNX node conformance model that compiles and runs directly on generated inputs
/// round-trips through a .gem file with equal outputs, bit for bit.
TEST(GemConformanceSweep, EveryNodeModelRoundTrips) {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::is_directory(root));
  std::vector<fs::path> models;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  size_t round_tripped = 0, sunk = 0, not_runnable = 0;
  for (const fs::path& dir : models) {
    const std::string name = dir.filename().string();
    // Random ops draw differently on every run.
    if (name.find("bernoulli") != std::string::npos || name.find("random") != std::string::npos) continue;
    Result<std::unique_ptr<Session>> direct = Session::create(host(), dir / "model.onnx", SessionOptions{});
    if (!direct.is_ok()) {
      ++not_runnable;
      continue;
    }
    Result<std::vector<std::pair<std::string, Tensor>>> inputs = make_check_inputs((*direct)->graph(), {});
    std::vector<Tensor> expected;
    if (!inputs.is_ok() || !(*direct)->run(*inputs, expected).is_ok()) {
      ++not_runnable;  // generated inputs do not suit it (data-dependent shapes, indices)
      continue;
    }
    SCOPED_TRACE(name);
    const fs::path gem = write_session(**direct, "sweep");
    Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
    ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
    EXPECT_EQ((*loaded)->uses_task_sink(), (*direct)->uses_task_sink());
    std::vector<Tensor> actual;
    Status ran = (*loaded)->run(*inputs, actual);
    ASSERT_TRUE(ran.is_ok()) << ran.to_string();
    expect_bitwise_equal(expected, actual);
    ++round_tripped;
    sunk += (*loaded)->uses_task_sink();
  }
  std::printf("round-tripped %zu node models (%zu through stored task-sink plans), %zu not runnable on generated inputs\n",
              round_tripped, sunk, not_runnable);
  EXPECT_GE(round_tripped, 700u);
}

TEST(GemPlugins, MissingPluginIsNamed) {
  ModelFileInfo info;
  info.plugins = required_plugins(host(), "cpu");
  ASSERT_FALSE(info.plugins.empty());
  info.plugins.push_back({"ge_ops_imaginary", "0.3.0", "op_library"});
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "missing_plugin", info);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("needs plugin 'ge_ops_imaginary' (op_library, version 0.3.0)"),
            std::string::npos)
      << loaded.status().message();
}

TEST(GemPlugins, OtherVersionIsNamed) {
  ModelFileInfo info;
  info.plugins = required_plugins(host(), "cpu");
  ASSERT_FALSE(info.plugins.empty());
  const std::string name = info.plugins[0].name;
  const std::string loaded_version = info.plugins[0].version;
  info.plugins[0].version = "999.0.0";
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "other_version", info);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(loaded.status().message().find("compiled with plugin '" + name + "' version 999.0.0 but version " +
                                           loaded_version + " is loaded"),
            std::string::npos)
      << loaded.status().message();
}

TEST(GemPlugins, RequiredPluginsAreBackendAndOpLibraries) {
  for (const RequiredPlugin& p : required_plugins(host(), "cpu")) {
    EXPECT_TRUE(p.kind == "backend" || p.kind == "op_library") << p.name << " " << p.kind;
    EXPECT_FALSE(p.version.empty()) << p.name;
  }
}

TEST(GemLoad, OtherBackendIsRefused) {
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "backend");
  SessionOptions options;
  options.backend = "npu_sim";
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, options);
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().message().find("was compiled for backend 'cpu', not 'npu_sim'"), std::string::npos)
      << loaded.status().message();
}

/// x -> four independent Relu/Sigmoid/Neg/Abs chains -> Add tree -> y: branches for streams.
std::unique_ptr<Graph> branching_graph() {
  auto graph = std::make_unique<Graph>("branches");
  graph->set_opset_import("", 17);
  Value* x = graph->add_input("x", TensorDesc::of(DataType::kFloat32, {4, 8}));
  std::vector<Value*> ends;
  for (const char* op : {"Relu", "Sigmoid", "Neg", "Abs"}) {
    Value* v = graph->add_node(op, {x}, 1, std::string(op) + "_0")->output(0);
    v = graph->add_node(op, {v}, 1, std::string(op) + "_1")->output(0);
    ends.push_back(v);
  }
  Value* left = graph->add_node("Add", {ends[0], ends[1]}, 1, "add_l")->output(0);
  Value* right = graph->add_node("Add", {ends[2], ends[3]}, 1, "add_r")->output(0);
  graph->add_output(graph->add_node("Add", {left, right}, 1, "add")->output(0));
  return graph;
}

/// x [64,64] -> four branches p = x*x, q = p+x, r = q @ w [64,1] -> Add tree -> y: the
/// branches' 16 KiB temporaries side by side cost more than a 1.1x memory limit allows.
std::unique_ptr<Graph> wide_branching_graph() {
  auto graph = std::make_unique<Graph>("wide_branches");
  graph->set_opset_import("", 17);
  Value* x = graph->add_input("x", TensorDesc::of(DataType::kFloat32, {64, 64}));
  std::vector<Value*> ends;
  for (int b = 0; b < 4; ++b) {
    const std::string n = std::to_string(b);
    Value* w = graph->add_initializer("w" + n, Tensor::from_vector<float>({64, 1}, std::vector<float>(64, 0.5f + b)));
    Value* p = graph->add_node("Mul", {x, x}, 1, "p" + n)->output(0);
    Value* q = graph->add_node("Add", {p, x}, 1, "q" + n)->output(0);
    ends.push_back(graph->add_node("MatMul", {q, w}, 1, "r" + n)->output(0));
  }
  Value* left = graph->add_node("Add", {ends[0], ends[1]}, 1, "add_l")->output(0);
  Value* right = graph->add_node("Add", {ends[2], ends[3]}, 1, "add_r")->output(0);
  graph->add_output(graph->add_node("Add", {left, right}, 1, "add")->output(0));
  return graph;
}

/// `stream_memory_ratio` 0 (no memory limit): every branch on its own stream.
std::unique_ptr<Session> compile_graph(std::unique_ptr<Graph> graph, int max_streams, const std::string& backend = "cpu",
                                       double stream_memory_ratio = 0, int opt_level = 2) {
  SessionOptions options;
  options.passes.opt_level = opt_level;
  options.max_streams = max_streams;
  options.stream_memory_ratio = stream_memory_ratio;
  options.backend = backend;
  Result<std::unique_ptr<Session>> compiled = Session::create(host(), std::move(graph), options);
  EXPECT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  return compiled.is_ok() ? std::move(compiled).value() : nullptr;
}

TEST(GemPlans, MultiStreamPlanRoundTrips) {
  std::unique_ptr<Session> direct = compile_graph(branching_graph(), 4);
  ASSERT_NE(direct, nullptr);
  ASSERT_NE(direct->runner(), nullptr);
  const CompiledPlans stored = direct->runner()->compiled_plans();
  ASSERT_EQ(stored.streams.stream_count, 4);
  EXPECT_TRUE(stored.has_memory_plan);  // stream-aware: the plan follows the streams
  EXPECT_FALSE(stored.streams.events.empty());
  const fs::path gem = write_session(*direct, "branches");
  Result<LoadedModelFile> file = read_model_file(gem);
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  EXPECT_EQ(file->info.stream_count, 4u);
  EXPECT_EQ(file->info.event_count, stored.streams.events.size());
  EXPECT_NE(describe_model_file(file->info).find("task sink, 4 streams"), std::string::npos)
      << describe_model_file(file->info);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->runner()->stream_plan().stream_count, 4);
  EXPECT_EQ((*loaded)->runner()->compiled_plans().tasks, stored.tasks);
  expect_bitwise_equal(run_session(*direct), run_session(**loaded));
}

TEST(GemPlans, MemoryLimitedStreamPlanRoundTrips) {
  // -O0: every branch keeps its two [64, 64] intermediates, which side by side need more
  // than 1.1x one stream on any CPU (at -O2 the fusions a CPU gets decide it).
  std::unique_ptr<Session> one = compile_graph(wide_branching_graph(), 1, "cpu", 0, 0);
  std::unique_ptr<Session> limited = compile_graph(wide_branching_graph(), 2, "cpu", 1.1, 0);
  ASSERT_TRUE(one && limited && one->runner() && limited->runner());
  const GraphMemoryPlan& plan = *limited->runner()->memory_plan();
  EXPECT_GT(plan.statistics.unordered_streams_bytes, plan.statistics.one_stream_bytes * 11 / 10)
      << format_memory_statistics(plan.statistics);
  EXPECT_LE(plan.feature_map_bytes * 10, one->runner()->memory_plan()->feature_map_bytes * 11);
  const CompiledPlans stored = limited->runner()->compiled_plans();
  ASSERT_EQ(stored.streams.stream_count, 2);
  // The events that order buffers for reuse are stored and validated like any other.
  const fs::path gem = write_session(*limited, "limited_streams");
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->runner()->stream_plan().events, stored.streams.events);
  EXPECT_EQ((*loaded)->runner()->feature_map_bytes(), plan.feature_map_bytes);
  EXPECT_EQ((*loaded)->runner()->compiled_plans().tasks, stored.tasks);
  expect_bitwise_equal(run_session(*one), run_session(**loaded));
}

TEST(GemPlans, NpuSimModelRoundTrips) {
  SessionOptions options;
  options.backend = "npu_sim";
  Result<std::unique_ptr<Session>> direct =
      Session::create(host(), source_dir() / "samples/models/small_cnn.onnx", options);
  ASSERT_TRUE(direct.is_ok()) << direct.status().to_string();
  ASSERT_TRUE((*direct)->uses_task_sink());
  ModelFileInfo info;
  info.backend = "npu_sim";
  const fs::path gem = write_session(**direct, "npu_sim", info);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, options);
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->runner()->compiled_plans().tasks, (*direct)->runner()->compiled_plans().tasks);
  expect_bitwise_equal(run_session(**direct), run_session(**loaded));
}

TEST(GemPlans, LoadRecordsItsStages) {
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "stages");
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  std::vector<std::string> names;
  for (const StageTiming& stage : (*loaded)->stage_timings()) {
    names.push_back(stage.name);
    EXPECT_GE(stage.duration.count(), 0) << stage.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"read model file", "verify", "infer shapes", "load (task sink, stored plans)"}));
}

TEST(GemPlans, MemoryFiguresAreStored) {
  Result<std::unique_ptr<Session>> direct =
      Session::create(host(), source_dir() / "samples/models/small_cnn.onnx", SessionOptions{});
  ASSERT_TRUE(direct.is_ok()) << direct.status().to_string();
  ASSERT_NE((*direct)->memory_statistics(), nullptr);
  const MemoryStatistics& statistics = *(*direct)->memory_statistics();
  Result<LoadedModelFile> file = read_model_file(write_session(**direct, "figures"));
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  EXPECT_TRUE(file->info.memory_planned);
  EXPECT_EQ(file->info.feature_map_bytes, statistics.feature_map_bytes);
  EXPECT_EQ(file->info.lower_bound_bytes, statistics.lower_bound_bytes);
  EXPECT_EQ(file->info.memory_assigner, statistics.assigner);
  EXPECT_EQ(file->info.stream_count, 1u);
  const std::string info = describe_model_file(file->info);
  EXPECT_NE(info.find("feature map " + std::to_string(statistics.feature_map_bytes) + " bytes (assigner " + statistics.assigner),
            std::string::npos) << info;
}

/// The bundled sample compiled for cpu: one stream, a memory plan.
std::unique_ptr<Session> compile_sample() {
  Result<std::unique_ptr<Session>> created =
      Session::create(host(), source_dir() / "samples/models/small_cnn.onnx", SessionOptions{});
  EXPECT_TRUE(created.is_ok()) << created.status().to_string();
  return created.is_ok() ? std::move(created).value() : nullptr;
}

/// Loads a small_cnn (one stream, memory plan) or branching (four streams) file whose
/// plans `edit` tampered with; expects a refusal containing `needle`.
void expect_tampered_refused(bool branches, const std::function<void(CompiledPlans&)>& edit, const std::string& needle) {
  std::unique_ptr<Session> compiled = branches ? compile_graph(branching_graph(), 4) : compile_sample();
  ASSERT_NE(compiled, nullptr);
  ASSERT_NE(compiled->runner(), nullptr);
  const fs::path gem = write_session(*compiled, "tampered", {}, edit);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok()) << "a file with tampered plans (" << needle << ") loaded";
  // Structural damage is a parse error, plans that do not hold for the graph invalid.
  EXPECT_TRUE(loaded.status().code() == StatusCode::kInvalidArgument || loaded.status().code() == StatusCode::kParseError)
      << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find(needle), std::string::npos) << loaded.status().message();
}

TEST(GemPlans, TamperedPlansAreRefused) {
  expect_tampered_refused(false, [](CompiledPlans& p) { std::swap(p.order[0], p.order[1]); }, "before its producer");
  expect_tampered_refused(false, [](CompiledPlans& p) { p.order[1] = p.order[0]; }, "twice");
  expect_tampered_refused(false, [](CompiledPlans& p) { p.order.push_back(99999); }, "steps");
  expect_tampered_refused(false, [](CompiledPlans& p) { p.kernels[0].name = "other_kernel"; },
                          "was compiled for kernel 'other_kernel'");
  // Less workspace planned than a kernel needs (more is harmless: a kernel that sizes its
  // scratch by thread count may load with fewer threads than it was compiled for).
  expect_tampered_refused(
      false,
      [](CompiledPlans& p) {
        for (auto& kernel : p.kernels) {
          if (kernel.workspace_bytes > 0) {
            kernel.workspace_bytes -= 1;
            return;
          }
        }
        p.kernels[0].name += "_without_workspace";  // no kernel has workspace: refuse anyway
      },
      "recompile the model");
  // Every buffer at offset 0: buffers that live together overlap.
  expect_tampered_refused(false, [](CompiledPlans& p) { std::fill(p.buffer_offsets.begin(), p.buffer_offsets.end(), 0); },
                          "memory plan does not hold");
  expect_tampered_refused(false, [](CompiledPlans& p) { p.buffer_offsets.pop_back(); }, "memory plan does not hold");
  // An absurd arena is refused before anything is allocated.
  expect_tampered_refused(false, [](CompiledPlans& p) { p.feature_map_bytes = uint64_t{1} << 50; }, "side by side");
  expect_tampered_refused(false, [](CompiledPlans& p) { p.buffer_offsets[0] = uint64_t{1} << 62; }, "memory plan does not hold");
  expect_tampered_refused(false, [](CompiledPlans& p) {
    for (auto& list : p.tasks) {
      for (TaskDef& def : list) {
        if (def.kind == TaskDef::Kind::kKernel && !def.addresses.empty()) {
          def.addresses.back().offset += 512;
          return;
        }
      }
    }
  }, "does not match its plans");
  expect_tampered_refused(false, [](CompiledPlans& p) { p.tasks[0].pop_back(); }, "does not match its plans");
  // Streams: a missing event leaves a dependency unordered; a node moved to another stream.
  expect_tampered_refused(true, [](CompiledPlans& p) { p.streams.events.pop_back(); }, "no stream order or event orders them");
  expect_tampered_refused(true, [](CompiledPlans& p) { p.streams.stream_of.back() = 77; }, "is on stream 77 of 4");
  expect_tampered_refused(true, [](CompiledPlans& p) { p.tasks.pop_back(); }, "task lists for 3 streams");
}

/// One random change to a field of `plans`.
void mutate(CompiledPlans& p, std::mt19937& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  auto any_value = [&]() -> uint64_t {
    switch (rng() % 4) {
      case 0: return rng() % 8;
      case 1: return (rng() % 64) * 512;
      case 2: return uint64_t{1} << (rng() % 64);
      default: return rng();
    }
  };
  switch (rng() % 11) {
    case 0:
      if (p.order.size() > 1) std::swap(p.order[pick(p.order.size())], p.order[pick(p.order.size())]);
      break;
    case 1:
      if (!p.order.empty()) p.order[pick(p.order.size())] = any_value();
      break;
    case 2:
      if (!p.streams.stream_of.empty()) p.streams.stream_of[pick(p.streams.stream_of.size())] = static_cast<int>(rng() % 5);
      break;
    case 3:
      if (!p.streams.events.empty()) p.streams.events.erase(p.streams.events.begin() + static_cast<std::ptrdiff_t>(pick(p.streams.events.size())));
      break;
    case 4:
      p.streams.events.push_back({pick(p.order.size() + 1), pick(p.order.size() + 1)});
      break;
    case 5:
      if (!p.buffer_offsets.empty()) p.buffer_offsets[pick(p.buffer_offsets.size())] = any_value();
      break;
    case 6:
      p.feature_map_bytes = rng() % 2 ? any_value() : p.feature_map_bytes + 512;
      break;
    case 7:
      p.has_memory_plan = !p.has_memory_plan;
      break;
    case 8:
      if (!p.kernels.empty()) p.kernels[pick(p.kernels.size())].workspace_bytes = any_value();
      break;
    case 9: {
      std::vector<TaskDef>& list = p.tasks[pick(p.tasks.size())];
      if (list.empty()) break;
      TaskDef& def = list[pick(list.size())];
      if (!def.addresses.empty()) {
        TaskAddress& a = def.addresses[pick(def.addresses.size())];
        (rng() % 2 ? a.offset : a.index) = any_value();
      } else {
        def.event = any_value();
      }
      break;
    }
    default: {
      std::vector<TaskDef>& list = p.tasks[pick(p.tasks.size())];
      if (!list.empty()) list.erase(list.begin() + static_cast<std::ptrdiff_t>(pick(list.size())));
      break;
    }
  }
  // Keep the stream lists consistent with stream_of, as the file decoder does.
  int streams = std::max(p.streams.stream_count, 1);
  for (int s : p.streams.stream_of) streams = std::max(streams, s + 1);
  p.streams.stream_count = streams;
  p.streams.streams.assign(static_cast<size_t>(streams), {});
  for (size_t step = 0; step < p.streams.stream_of.size(); ++step) {
    p.streams.streams[static_cast<size_t>(p.streams.stream_of[step])].push_back(step);
  }
  p.tasks.resize(static_cast<size_t>(streams));
}

/// Random damage to the plans of a one-stream memory-planned model and a four-stream
/// model: each mutant is refused with an error, or loads and computes exactly what the
/// original computes (a validator that let a bad plan through would show up as a wrong
/// output, or as a crash under the sanitizers).
TEST(GemPlans, RandomlyDamagedPlansAreRefusedOrHarmless) {
  std::mt19937 rng(20261130);
  for (bool branches : {false, true}) {
    std::unique_ptr<Session> original = branches ? compile_graph(branching_graph(), 4) : compile_sample();
    ASSERT_NE(original, nullptr);
    ASSERT_NE(original->runner(), nullptr);
    const CompiledPlans plans = original->runner()->compiled_plans();
    Result<std::vector<std::pair<std::string, Tensor>>> inputs = make_check_inputs(original->graph(), {});
    ASSERT_TRUE(inputs.is_ok());
    std::vector<Tensor> expected;
    ASSERT_TRUE(original->run(*inputs, expected).is_ok());
    size_t refused = 0, harmless = 0;
    for (int trial = 0; trial < 1500; ++trial) {
      CompiledPlans mutant = plans;
      const int changes = 1 + static_cast<int>(rng() % 3);
      for (int c = 0; c < changes; ++c) mutate(mutant, rng);
      Result<std::unique_ptr<Session>> loaded =
          Session::create_compiled(host(), original->graph().clone(), &mutant, SessionOptions{});
      if (!loaded.is_ok()) {
        EXPECT_NE(loaded.status().code(), StatusCode::kInternal) << loaded.status().to_string();
        ++refused;
        continue;
      }
      std::vector<Tensor> actual;
      Status ran = (*loaded)->run(*inputs, actual);
      ASSERT_TRUE(ran.is_ok()) << "trial " << trial << ": " << ran.to_string();
      SCOPED_TRACE("trial " + std::to_string(trial) + (branches ? " (branches)" : " (small_cnn)"));
      expect_bitwise_equal(expected, actual);
      ++harmless;
    }
    std::printf("%s: %zu damaged plans refused, %zu loaded and computed the same outputs\n",
                branches ? "branches" : "small_cnn", refused, harmless);
    EXPECT_GT(refused, 1100u);
  }
}

// ---- atomic clean (seed 002) ----

/// y = MaxUnpool(x, i) and z = Neg(MaxUnpool(Relu(x), i)) on runtime indices: both
/// unpool outputs need zeroing before every run.
std::unique_ptr<Graph> unpool_graph() {
  auto g = std::make_unique<Graph>("unpool");
  g->set_opset_import("", 17);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 2, 2, 2}));
  Value* i = g->add_input("i", TensorDesc::of(DataType::kInt64, {1, 2, 2, 2}));
  auto unpool = [&](Value* in, const std::string& name, const std::string& output) {
    Node* node = g->add_node("MaxUnpool", {in, i}, 1, name, {output});
    node->set_attribute("kernel_shape", Attribute(std::vector<int64_t>{2, 2}));
    node->set_attribute("strides", Attribute(std::vector<int64_t>{2, 2}));
    return node->output(0);
  };
  g->add_output(unpool(x, "unpool_x", "y"));
  Value* relu = g->add_node("Relu", {x}, 1, "relu")->output(0);
  g->add_output(g->add_node("Neg", {unpool(relu, "unpool_relu", "u")}, 1, "neg", {"z"})->output(0));
  return g;
}

/// Runs `session` on indices A, then B, then A: each run's outputs are zeros with x (y)
/// and -relu(x) (z) at that run's indices, whatever the earlier runs left.
void expect_unpool_runs(Session& session) {
  const std::vector<float> x = {1.5f, -2.0f, 3.0f, -4.0f, 5.0f, 6.0f, -7.0f, 8.0f};
  const std::vector<int64_t> a = {0, 5, 10, 15, 16, 21, 26, 31}, b = {3, 6, 9, 12, 19, 20, 25, 30};
  for (const std::vector<int64_t>* indices : {&a, &b, &a}) {
    std::vector<Tensor> outputs;
    Status status = session.run({{"x", Tensor::from_vector<float>({1, 2, 2, 2}, x)},
                                 {"i", Tensor::from_vector<int64_t>({1, 2, 2, 2}, *indices)}},
                                outputs);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    std::vector<float> y(32, 0.0f), z(32, 0.0f);
    for (size_t k = 0; k < indices->size(); ++k) {
      y[static_cast<size_t>((*indices)[k])] = x[k];
      z[static_cast<size_t>((*indices)[k])] = -std::max(x[k], 0.0f);
    }
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(std::vector<float>(outputs[0].values<float>().begin(), outputs[0].values<float>().end()), y);
    EXPECT_EQ(std::vector<float>(outputs[1].values<float>().begin(), outputs[1].values<float>().end()), z);
  }
}

TEST(GemPlans, AtomicCleanRoundTrips) {
  for (const char* backend : {"cpu", "npu_sim"}) {
    for (int streams : {1, 2}) {
      SCOPED_TRACE(std::string(backend) + ", " + std::to_string(streams) + " stream(s)");
      std::unique_ptr<Session> direct = compile_graph(unpool_graph(), streams, backend);
      ASSERT_NE(direct, nullptr);
      ASSERT_NE(direct->runner(), nullptr);
      const CompiledPlans stored = direct->runner()->compiled_plans();
      ASSERT_EQ(stored.clean_groups.size(), static_cast<size_t>(streams));
      size_t memsets = 0;
      for (const auto& list : stored.tasks) {
        for (const TaskDef& def : list) memsets += def.kind == TaskDef::Kind::kMemset ? 1 : 0;
      }
      EXPECT_EQ(memsets, stored.clean_groups.size());
      ModelFileInfo info;
      info.backend = backend;
      const fs::path gem = write_session(*direct, std::string("unpool_") + backend, info);
      Result<LoadedModelFile> file = read_model_file(gem);
      ASSERT_TRUE(file.is_ok()) << file.status().to_string();
      EXPECT_EQ(file->info.format_version, kModelFileFormatVersion);
      EXPECT_EQ(file->info.clean_groups, stored.clean_groups);
      EXPECT_NE(describe_model_file(file->info).find("atomic clean: " + format_clean_groups(stored.clean_groups)),
                std::string::npos)
          << describe_model_file(file->info);
      ASSERT_TRUE(file->plans.has_value());
      EXPECT_EQ(file->plans->kernels, stored.kernels);
      SessionOptions options;
      options.backend = backend;
      Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, options);
      ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
      const CompiledPlans reloaded = (*loaded)->runner()->compiled_plans();
      EXPECT_EQ(reloaded.clean_groups, stored.clean_groups);
      EXPECT_EQ(reloaded.tasks, stored.tasks);
      EXPECT_EQ(reloaded.kernels, stored.kernels);
      expect_unpool_runs(**loaded);
    }
  }
}

TEST(GemPlans, AtomicCleanPlansAreChecked) {
  std::unique_ptr<Session> compiled = compile_graph(unpool_graph(), 1);
  ASSERT_NE(compiled, nullptr);
  ASSERT_NE(compiled->runner(), nullptr);
  auto expect_refused = [&](const std::function<void(CompiledPlans&)>& edit, const std::string& needle) {
    const fs::path gem = write_session(*compiled, "unpool_tampered", {}, edit);
    Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
    ASSERT_FALSE(loaded.is_ok()) << "loaded although: " << needle;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << loaded.status().to_string();
    EXPECT_NE(loaded.status().message().find(needle), std::string::npos) << loaded.status().message();
  };
  // What an older build wrote (format 3): kernels that zeroed their own outputs, no memset.
  expect_refused(
      [](CompiledPlans& p) {
        for (KernelMeta& kernel : p.kernels) kernel.zeroed = {};
        for (auto& list : p.tasks) {
          std::erase_if(list, [](const TaskDef& def) { return def.kind == TaskDef::Kind::kMemset; });
        }
        p.clean_groups.clear();
      },
      "was compiled for kernel 'cpu.MaxUnpool' needing nothing zeroed before it runs, but backend 'cpu' now needs "
      "outputs {0} (atomic clean); recompile the model");
  expect_refused([](CompiledPlans& p) { p.clean_groups.at(0).offset += 512; }, "atomic-clean groups");
  expect_refused([](CompiledPlans& p) { p.clean_groups.push_back(p.clean_groups.at(0)); }, "atomic-clean groups");
  expect_refused(
      [](CompiledPlans& p) {
        std::erase_if(p.tasks.at(0), [](const TaskDef& def) { return def.kind == TaskDef::Kind::kMemset; });
      },
      "does not match its plans");
  expect_refused(
      [](CompiledPlans& p) {
        for (TaskDef& def : p.tasks.at(0)) {
          if (def.kind == TaskDef::Kind::kMemset) def.bytes /= 2;  // zeroes half the group
        }
      },
      "does not match its plans");
}

TEST(GemLoad, FormatThreeFilesStillLoad) {
  // A format-3 file (before atomic clean) of a model without zeroing kernels: its bytes
  // are a format-4 file's with the version field changed (the checksum covers only the
  // payload).
  std::unique_ptr<Session> compiled = compile_sample();
  ASSERT_NE(compiled, nullptr);
  const fs::path gem = write_session(*compiled, "format3");
  {
    std::fstream f(gem, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.put('\x03');
  }
  Result<LoadedModelFile> file = read_model_file(gem);
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  EXPECT_EQ(file->info.format_version, 3u);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  expect_bitwise_equal(run_session(*compiled), run_session(**loaded));
}

TEST(GemLoad, CorruptFileOnDiskIsRefused) {
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "corrupt");
  {
    std::fstream f(gem, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x5a');
  }
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().message().find("checksum mismatch"), std::string::npos) << loaded.status().message();
}

}  // namespace
}  // namespace ge

namespace ge {
namespace {

constexpr const char* kRowsModel = R"(graph rows (opset ""=17) {
  input %x : float32[N,4]
  init %w : float32[4,2] = [1, -1, 0.5, 2, -0.25, 1, 3, -2]
  %h = MatMul(%x, %w) "dense"
  %y = Relu(%h) "relu"
  output %y
})";

std::unique_ptr<Session> compile_rows(int64_t rows) {
  Result<std::unique_ptr<Graph>> graph = parse_graph(kRowsModel);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (rows > 0) (*graph)->runtime_inputs()[0]->set_desc(TensorDesc(DataType::kFloat32, {Dim::of(rows), Dim::of(4)}));
  Result<std::unique_ptr<Session>> session = Session::create(host(), std::move(graph).value(), SessionOptions{});
  EXPECT_TRUE(session.is_ok()) << session.status().to_string();
  return session.is_ok() ? std::move(session).value() : nullptr;
}

/// A static compilation of the rows model as a gear's bytes.
std::string gear_bytes(int64_t rows, const std::vector<std::string>& nested = {}) {
  std::unique_ptr<Session> gear = compile_rows(rows);
  EXPECT_NE(gear->runner(), nullptr);
  const CompiledPlans plans = gear->runner()->compiled_plans();
  ModelFileInfo info;
  info.plugins = required_plugins(host(), info.backend);
  Result<std::string> bytes = serialize_model_file(gear->graph(), info, &plans, gear->memory_statistics(), nested);
  EXPECT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  return bytes.is_ok() ? *bytes : std::string();
}

Tensor rows_input(int64_t rows) {
  std::vector<float> values(static_cast<size_t>(rows * 4));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
  return Tensor::from_vector<float>({rows, 4}, values);
}

TEST(GemGears, ARunWhoseShapesMatchAGearUsesItsPlans) {
  std::unique_ptr<Session> dynamic = compile_rows(0);
  ASSERT_NE(dynamic, nullptr);
  ASSERT_FALSE(dynamic->uses_task_sink());
  ModelFileInfo info;
  info.plugins = required_plugins(host(), info.backend);
  const fs::path gem = temp_file("rows_gears.gem");
  ASSERT_TRUE(write_model_file(gem, dynamic->graph(), info, nullptr, nullptr, {gear_bytes(2), gear_bytes(5)}).is_ok());

  Result<LoadedModelFile> file = read_model_file(gem);
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  ASSERT_EQ(file->gears.size(), 2u);
  EXPECT_NE(describe_model_file(file->info).find("dynamic gears: 2"), std::string::npos);

  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->gear_count(), 2u);
  for (int64_t rows : {2, 5, 3, 2}) {
    std::vector<Tensor> got, want;
    ASSERT_TRUE((*loaded)->run({{"x", rows_input(rows)}}, got).is_ok());
    ASSERT_TRUE(dynamic->run({{"x", rows_input(rows)}}, want).is_ok());
    expect_bitwise_equal(got, want);
  }
  EXPECT_EQ((*loaded)->gear_hits(), 3u) << "rows 2, 5 and 2 again";
  EXPECT_EQ((*loaded)->describe_execution().rfind("2 dynamic gear(s) in front of specialised per input shape: ", 0), 0u)
      << (*loaded)->describe_execution();
  ASSERT_NE((*loaded)->specialisations(), nullptr);
  EXPECT_EQ((*loaded)->specialisations()->statistics().unseen, 1u) << "rows 3 runs per op until it comes back";
  std::vector<Tensor> got, want;
  ASSERT_TRUE((*loaded)->run({{"x", rows_input(3)}}, got).is_ok());
  ASSERT_TRUE(dynamic->run({{"x", rows_input(3)}}, want).is_ok());
  expect_bitwise_equal(got, want);
  EXPECT_EQ((*loaded)->specialisations()->statistics().misses, 1u) << "rows 3 is specialised on its second run";
}

TEST(GemGears, MalformedGearsAreRefused) {
  std::unique_ptr<Session> dynamic = compile_rows(0);
  ASSERT_NE(dynamic, nullptr);
  ModelFileInfo info;
  info.plugins = required_plugins(host(), info.backend);
  auto decode_with = [&](const std::vector<std::string>& gears) {
    Result<std::string> bytes = serialize_model_file(dynamic->graph(), info, nullptr, nullptr, gears);
    EXPECT_TRUE(bytes.is_ok());
    return deserialize_model_file(*bytes, "rows.gem").status();
  };
  Status nested = decode_with({gear_bytes(2, {gear_bytes(3)})});
  EXPECT_NE(nested.message().find("a gear holds gears of its own"), std::string::npos) << nested.to_string();
  Status planless = decode_with({[&] {
    std::unique_ptr<Session> gear = compile_rows(2);
    return *serialize_model_file(gear->graph(), info);
  }()});
  EXPECT_NE(planless.message().find("has no execution plans"), std::string::npos) << planless.to_string();
  Status garbage = decode_with({std::string(100, 'x')});
  EXPECT_FALSE(garbage.is_ok());
  EXPECT_NE(garbage.to_string().find("gear 0"), std::string::npos) << garbage.to_string();
}

TEST(GemGears, AGearWithOtherInputsIsRefusedAtLoad) {
  std::unique_ptr<Session> dynamic = compile_rows(0);
  ASSERT_NE(dynamic, nullptr);
  ModelFileInfo info;
  info.plugins = required_plugins(host(), info.backend);
  // A gear of another model: its input is named differently.
  Result<std::unique_ptr<Graph>> other = parse_graph(R"(graph other (opset ""=17) {
  input %z : float32[2,4]
  %y = Relu(%z) "relu"
  output %y
})");
  ASSERT_TRUE(other.is_ok());
  Result<std::unique_ptr<Session>> gear = Session::create(host(), std::move(other).value(), SessionOptions{});
  ASSERT_TRUE(gear.is_ok());
  const CompiledPlans plans = (*gear)->runner()->compiled_plans();
  Result<std::string> gear_file = serialize_model_file((*gear)->graph(), info, &plans);
  ASSERT_TRUE(gear_file.is_ok());
  const fs::path gem = temp_file("rows_bad_gear.gem");
  ASSERT_TRUE(write_model_file(gem, dynamic->graph(), info, nullptr, nullptr, {*gear_file}).is_ok());
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().to_string().find("gear 0"), std::string::npos) << loaded.status().to_string();
  EXPECT_NE(loaded.status().to_string().find("'z'"), std::string::npos) << loaded.status().to_string();
}

// A forged .gem (a valid file whose graph no compiler produced) with a stride of 0: the
// loader re-infers the graph through the same attribute rules as a parsed model, so it
// is refused naming the rule; it was SIGFPE in libonnx's shape inference.
TEST(GemLoad, ABrokenAttributeInALoadedGraphIsRefusedNamingTheRule) {
  for (const char* node :
       {R"(%y : float32[1,4,4,4] = Conv(%x, %w) {strides: ints = [0, 0]} "conv")",
        R"(%y : float32[1,4,4,4] = MaxPool(%x) {kernel_shape: ints = [2, 2], strides: ints = [0, 0]} "pool")",
        R"(%y : float32[1,4,4,4] = AveragePool(%x) {kernel_shape: ints = [0, 2]} "pool")"}) {
    const std::string text = std::string(R"(graph forged (opset ""=17) {
  input %x : float32[1,4,8,8]
  init %w : float32[4,4,1,1] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  )") + node + R"(
  output %y
})";
    Result<std::unique_ptr<Graph>> graph = parse_graph(text);
    ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
    ModelFileInfo info;
    info.plugins = required_plugins(host(), info.backend);
    const fs::path gem = temp_file("forged_attribute.gem");
    ASSERT_TRUE(write_model_file(gem, **graph, info).is_ok());
    Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
    ASSERT_FALSE(loaded.is_ok()) << node;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
    const std::string message = loaded.status().to_string();
    EXPECT_TRUE(message.find("strides must be >= 1") != std::string::npos ||
                message.find("kernel_shape must be >= 1") != std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace ge
