// Tests of weight merging (core/src/passes/weight_merging.h).
#include "weight_merging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "ge/memory_plan.h"
#include "ge/model_file.h"
#include "ge/plugin_host.h"
#include "ge/runtime/model_runner.h"
#include "ge/session.h"
#include "ge/testing/memory_plan.h"

namespace ge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path env_path(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? fs::path(value) : fs::path();
}

/// The build's registry (cpu, npu_sim, the ONNX ops, the memory assigners), loaded once.
struct Plugins {
  Plugins() {
    status = host.load_registry(env_path("GE_TEST_BIN_DIR") / "ge_plugins.toml");
    ops = host.make_op_registry();
  }
  PluginHost host;
  Status status;
  OpRegistry ops;
};

Plugins& plugins() {
  static Plugins* p = new Plugins();
  return *p;
}

Tensor filled(std::vector<int64_t> shape, float seed) {
  std::vector<float> values(static_cast<size_t>(element_count(shape)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(seed + 0.01f * static_cast<float>(i));
  return Tensor::from_vector<float>(std::move(shape), values);
}

/// y = (x + w0 + ... + w{copies-1}) * d: every w holds the same bytes (each its own
/// storage), d others. `elements` per tensor.
std::unique_ptr<Graph> identical_weights_graph(int copies, int64_t elements) {
  auto g = std::make_unique<Graph>("identical");
  g->set_opset_import("", 17);
  Value* y = g->add_input("x", TensorDesc::of(DataType::kFloat32, {elements}));
  for (int i = 0; i < copies; ++i) {
    Value* w = g->add_initializer("w" + std::to_string(i), filled({elements}, 1.0f));
    y = g->add_node("Add", {y, w}, 1, "add" + std::to_string(i))->output(0);
  }
  Value* d = g->add_initializer("d", filled({elements}, 2.0f));
  g->add_output(g->add_node("Mul", {y, d}, 1, "mul", {"y"})->output(0));
  return g;
}

NamedTensors input_of(int64_t elements) { return {{"x", filled({elements}, 3.0f)}}; }

std::vector<float> values_of(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }

// ---- finding identical bytes ----

TEST(FindIdenticalBytes, SameBytesWhateverTheDtypeOrShape) {
  const Tensor a = Tensor::from_vector<float>({4}, {1, 2, 3, 4});
  const Tensor b = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});  // same bytes, other shape
  const Tensor c = Tensor::from_vector<float>({4}, {1, 2, 3, 5});     // same size, other bytes
  const Tensor d = Tensor::from_vector<float>({4}, {1, 2, 3, 4});
  const Tensor e = Tensor::from_vector<int32_t>({2}, {7, 8});          // a size of its own
  const Tensor empty = Tensor::zeros(DataType::kFloat32, {0});
  const Tensor strings = Tensor::from_strings({1}, {"abcdefghijklmnop"});
  const Tensor no_data = Tensor::borrow(DataType::kFloat32, {4}, nullptr);
  std::vector<const Tensor*> tensors = {&a, &b, &c, &d, &e, &empty, &empty, nullptr, &strings, &no_data, &c};
  EXPECT_EQ(find_identical_bytes(tensors), (std::vector<size_t>{0, 0, 2, 0, 4, 5, 6, 7, 8, 9, 2}));
}

TEST(ShareIdenticalConstants, SameDtypeAndShapeShareOneStorage) {
  auto g = identical_weights_graph(3, 8);
  Value* other_shape = g->add_initializer("r", filled({2, 4}, 1.0f));  // same bytes as w*, another shape
  g->find_value("w2")->mutable_desc().format = "blocked";               // the desc is the value's: kept
  EXPECT_EQ(share_identical_constants(*g), 2u);
  const void* w0 = g->find_value("w0")->constant()->raw_data();
  EXPECT_EQ(g->find_value("w1")->constant()->raw_data(), w0);
  EXPECT_EQ(g->find_value("w2")->constant()->raw_data(), w0);
  EXPECT_EQ(g->find_value("w2")->desc().format, "blocked");
  EXPECT_NE(other_shape->constant()->raw_data(), w0);
  EXPECT_NE(g->find_value("d")->constant()->raw_data(), w0);
}

// ---- the memory plan: one weights slot ----

TEST(WeightMergingPlan, IdenticalInitializersShareOneSlot) {
  auto g = identical_weights_graph(5, 1024);  // 4 KiB each
  ASSERT_TRUE(plugins().ops.infer_graph(*g).is_ok());
  const std::vector<std::shared_ptr<MemoryAssigner>> assigners = {std::make_shared<testing::FirstFitAssigner>()};
  MemoryPlanOptions options;
  options.ops = &plugins().ops;
  Result<GraphMemoryPlan> plan = plan_memory(*g, assigners, options);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  // w0 and d: two slots, not six.
  EXPECT_EQ(plan->weights_bytes, 2u * 4096u);
  EXPECT_EQ(plan->statistics.merged_weights, 4u);
  EXPECT_EQ(plan->statistics.merged_weight_bytes, 4u * 4096u);
  const ValuePlacement* w0 = plan->find(g->find_value("w0"));
  for (int i = 1; i < 5; ++i) {
    const ValuePlacement* w = plan->find(g->find_value("w" + std::to_string(i)));
    EXPECT_EQ(w->alias, MemoryAlias::kIdentical);
    EXPECT_EQ(w->offset, w0->offset);
    EXPECT_EQ(plan->values[w->alias_source].value, g->find_value("w0"));
  }
  EXPECT_EQ(plan->statistics.views, 0u);
  EXPECT_THAT(format_memory_statistics(plan->statistics), HasSubstr("(4 identical stored once, 16.0 KiB saved)"));

  MemoryPlanOptions off;
  off.ops = &plugins().ops;
  off.merge_identical_weights = false;
  Result<GraphMemoryPlan> unmerged = plan_memory(*g, assigners, off);
  ASSERT_TRUE(unmerged.is_ok()) << unmerged.status().to_string();
  EXPECT_EQ(unmerged->weights_bytes, 6u * 4096u);
  EXPECT_EQ(unmerged->statistics.merged_weights, 0u);
}

TEST(WeightMergingPlan, ValidationHoldsIdenticalWeightsToTheirSource) {
  auto g = identical_weights_graph(2, 256);
  ASSERT_TRUE(plugins().ops.infer_graph(*g).is_ok());
  MemoryPlanOptions options;
  options.ops = &plugins().ops;
  Result<GraphMemoryPlan> plan = plan_memory(*g, {std::make_shared<testing::FirstFitAssigner>()}, options);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_TRUE(validate_memory_plan(*plan).is_ok());
  GraphMemoryPlan moved = *plan;
  const size_t w1 = moved.index.at(g->find_value("w1"));
  moved.values[w1].offset = moved.find(g->find_value("d"))->offset;  // "identical" to d's bytes
  Status status = validate_memory_plan(moved);
  EXPECT_FALSE(status.is_ok());
  EXPECT_THAT(status.message(), HasSubstr("an identical weight must be a weight of the same size at its source's offset"));
}

// ---- the task sink: one slot, one copy, outputs unchanged ----

/// Counts host-to-device copies of another backend's device.
class CountingDevice final : public Device {
 public:
  explicit CountingDevice(Device& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  bool host_accessible() const override { return inner_.host_accessible(); }
  Result<void*> allocate(size_t bytes, size_t alignment = 64) override { return inner_.allocate(bytes, alignment); }
  void deallocate(void* pointer) override { inner_.deallocate(pointer); }
  Status copy_to_device(void* destination, const void* source, size_t bytes) override {
    ++copies_to_device;
    return inner_.copy_to_device(destination, source, bytes);
  }
  Status copy_to_host(void* destination, const void* source, size_t bytes) override {
    return inner_.copy_to_host(destination, source, bytes);
  }
  Result<std::unique_ptr<Stream>> create_stream() override { return inner_.create_stream(); }
  Result<std::unique_ptr<Event>> create_event() override { return inner_.create_event(); }
  int copies_to_device = 0;

 private:
  Device& inner_;
};

class CountingBackend final : public Backend {
 public:
  explicit CountingBackend(Backend& inner) : inner_(inner), device_(inner.device()) {}
  std::string name() const override { return inner_.name(); }
  bool supports(const Node& node, std::string* reason) const override { return inner_.supports(node, reason); }
  Result<PreparedKernel> prepare(const Node& node) const override { return inner_.prepare(node); }
  Device& device() override { return device_; }
  CountingDevice& counting_device() { return device_; }

 private:
  Backend& inner_;
  CountingDevice device_;
};

class WeightMergingRunner : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(plugins().status.is_ok()) << plugins().status.to_string();
    Result<Backend*> found = plugins().host.backend(GetParam());
    ASSERT_TRUE(found.is_ok()) << found.status().to_string();
    backend_ = *found;
  }
  Backend* backend_ = nullptr;
};

TEST_P(WeightMergingRunner, IdenticalWeightsTakeOneSlotAndGiveTheSameOutputs) {
  auto g = identical_weights_graph(6, 256);  // 1 KiB each
  ASSERT_TRUE(plugins().ops.infer_graph(*g).is_ok());
  const bool copies = !backend_->device().host_accessible();
  std::vector<Tensor> reference;
  for (int mode = 0; mode < 3; ++mode) {
    ModelRunnerOptions options;
    if (mode < 2) options.memory_assigners = plugins().host.memory_assigners();  // mode 2: first fit
    options.memory_plan_options.ops = &plugins().ops;
    options.memory_plan_options.merge_identical_weights = mode != 1;
    Result<std::unique_ptr<ModelRunner>> runner = ModelRunner::load(*g, *backend_, options);
    ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
    const size_t slots = mode == 1 ? 7 : 2;
    EXPECT_EQ((*runner)->weight_bytes(), slots * 1024u) << "mode " << mode;
    EXPECT_EQ((*runner)->weight_copy_bytes(), copies ? slots * 1024u : 0u) << "mode " << mode;
    std::vector<Tensor> outputs;
    Status status = (*runner)->execute(input_of(256), outputs);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    ASSERT_EQ(outputs.size(), 1u);
    if (mode == 0) {
      reference = outputs;
      const std::vector<float> y = values_of(outputs[0]);
      for (int64_t i = 0; i < 256; i += 51) {
        const float x = std::sin(3.0f + 0.01f * static_cast<float>(i));
        const float w = std::sin(1.0f + 0.01f * static_cast<float>(i));
        const float d = std::sin(2.0f + 0.01f * static_cast<float>(i));
        EXPECT_NEAR(y[static_cast<size_t>(i)], (x + 6 * w) * d, 1e-5f) << i;
      }
    } else {
      EXPECT_EQ(values_of(outputs[0]), values_of(reference[0])) << "mode " << mode;
    }
  }
}

TEST_P(WeightMergingRunner, TheWeightsRegionLoadsInOneCopy) {
  // 40 distinct small weights: one host-to-device copy for the region, not 40.
  auto g = std::make_unique<Graph>("many");
  g->set_opset_import("", 17);
  Value* y = g->add_input("x", TensorDesc::of(DataType::kFloat32, {16}));
  for (int i = 0; i < 40; ++i) {
    Value* w = g->add_initializer("w" + std::to_string(i), filled({16}, static_cast<float>(i)));
    y = g->add_node("Add", {y, w}, 1, "add" + std::to_string(i))->output(0);
  }
  g->add_output(y);
  ASSERT_TRUE(plugins().ops.infer_graph(*g).is_ok());
  std::vector<Tensor> reference;
  for (bool planned : {true, false}) {
    CountingBackend counting(*backend_);
    ModelRunnerOptions options;
    if (planned) options.memory_assigners = plugins().host.memory_assigners();
    options.memory_plan_options.ops = &plugins().ops;
    Result<std::unique_ptr<ModelRunner>> runner = ModelRunner::load(*g, counting, options);
    ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
    EXPECT_EQ(counting.counting_device().copies_to_device, backend_->device().host_accessible() ? 0 : 1)
        << (planned ? "planned" : "first fit");
    std::vector<Tensor> outputs;
    Status status = (*runner)->execute(input_of(16), outputs);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    float expected = std::sin(3.0f);
    for (int i = 0; i < 40; ++i) expected += std::sin(static_cast<float>(i));
    EXPECT_NEAR(outputs[0].values<float>()[0], expected, 1e-4f);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WeightMergingRunner, ::testing::Values("cpu", "npu_sim"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// ---- the .gem file: one copy ----

/// A session at -O0 (no CSE: the identical initializers stay distinct values).
Result<std::unique_ptr<Session>> session_of(std::unique_ptr<Graph> graph, const std::string& backend, bool shrink) {
  SessionOptions options;
  options.backend = backend;
  options.passes.opt_level = 0;
  options.shrink = shrink;
  return Session::create(plugins().host, std::move(graph), options);
}

fs::path temporary(const std::string& name) {
  return fs::temp_directory_path() / ("ge_weight_merging_" + std::to_string(::getpid()) + "_" + name);
}

/// Writes the session's compiled model to `path`.
void write_gem(const Session& session, const std::string& backend, const fs::path& path) {
  ModelFileInfo info;
  info.backend = backend;
  info.opt_level = 0;
  info.plugins = required_plugins(plugins().host, backend);
  const CompiledPlans plans = session.runner()->compiled_plans();
  Status written = write_model_file(path, session.graph(), info, &plans, session.memory_statistics());
  ASSERT_TRUE(written.is_ok()) << written.to_string();
}

TEST(WeightMergingModelFile, IdenticalWeightsAreStoredOnce) {
  constexpr int64_t kElements = 64 * 1024;  // 256 KiB per weight
  auto g = identical_weights_graph(6, kElements);
  ASSERT_TRUE(plugins().ops.infer_graph(*g).is_ok());
  Result<std::string> bytes = serialize_model_file(*g, ModelFileInfo{});
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  // w0 and d, and a few KiB of graph and tables: not seven copies.
  EXPECT_LT(bytes->size(), 2 * 256 * 1024 + 8 * 1024);
  Result<LoadedModelFile> loaded = deserialize_model_file(*bytes, "mem");
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->info.weight_count, 7u);
  EXPECT_EQ(loaded->info.weights_bytes, 2u * 256 * 1024);
  EXPECT_EQ(loaded->info.merged_weight_count, 5u);
  EXPECT_THAT(describe_model_file(loaded->info), HasSubstr("identical weights: 5 tensors stored once"));
  // Loaded once too: the identical weights share one copy of the bytes.
  const void* w0 = loaded->graph->find_value("w0")->constant()->raw_data();
  for (int i = 1; i < 6; ++i) {
    const Tensor* w = loaded->graph->find_value("w" + std::to_string(i))->constant();
    EXPECT_EQ(w->raw_data(), w0);
    EXPECT_EQ(w->shape(), (std::vector<int64_t>{kElements}));
  }
  EXPECT_EQ(values_of(*loaded->graph->find_value("w5")->constant()), values_of(*g->find_value("w5")->constant()));
  EXPECT_EQ(values_of(*loaded->graph->find_value("d")->constant()), values_of(*g->find_value("d")->constant()));
}

TEST(WeightMergingModelFile, CompiledModelRunsTheSameFromOneCopy) {
  ASSERT_TRUE(plugins().status.is_ok()) << plugins().status.to_string();
  for (const std::string backend : {"cpu", "npu_sim"}) {
    Result<std::unique_ptr<Session>> compiled = session_of(identical_weights_graph(6, 4096), backend, false);
    ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
    ASSERT_TRUE((*compiled)->uses_task_sink());
    EXPECT_EQ((*compiled)->runner()->weight_bytes(), 2u * 16384u) << backend;
    std::vector<Tensor> expected;
    ASSERT_TRUE((*compiled)->run(input_of(4096), expected).is_ok());
    const fs::path path = temporary(backend + ".gem");
    write_gem(**compiled, backend, path);
    EXPECT_LT(fs::file_size(path), 2u * 16384u + 8192u) << backend;
    for (bool shrink : {false, true}) {
      SessionOptions options;
      options.backend = "";
      options.shrink = shrink;
      Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(plugins().host, path, options);
      ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
      EXPECT_EQ((*loaded)->runner()->weight_bytes(), 2u * 16384u);
      // The file's bytes are read once: every identical weight points into them.
      const bool released = shrink && backend == "npu_sim";
      EXPECT_EQ((*loaded)->runner()->host_weight_bytes(), released ? 0u : 2u * 16384u) << backend << " " << shrink;
      std::vector<Tensor> outputs;
      Status status = (*loaded)->run(input_of(4096), outputs);
      ASSERT_TRUE(status.is_ok()) << status.to_string();
      EXPECT_EQ(values_of(outputs[0]), values_of(expected[0])) << backend << " " << shrink;
    }
    fs::remove(path);
  }
}

TEST(WeightMergingModelFile, ACompiledRegionLoadsInOneCopyFromTheFile) {
  // Large and tiny weights in turn: from separate host allocations the large ones go in
  // copies of their own; from a .gem, whose weights partition is the region's image, the
  // whole region goes in one copy.
  ASSERT_TRUE(plugins().status.is_ok()) << plugins().status.to_string();
  constexpr int64_t kElements = 32 * 1024;  // 128 KiB
  auto g = std::make_unique<Graph>("mixed");
  g->set_opset_import("", 17);
  Value* y = g->add_input("x", TensorDesc::of(DataType::kFloat32, {kElements}));
  for (int i = 0; i < 10; ++i) {
    Value* large = g->add_initializer("large" + std::to_string(i), filled({kElements}, static_cast<float>(i)));
    Value* tiny = g->add_initializer("tiny" + std::to_string(i), filled({1}, static_cast<float>(i) + 0.5f));
    y = g->add_node("Add", {y, large}, 1, "add_large" + std::to_string(i))->output(0);
    y = g->add_node("Mul", {y, tiny}, 1, "mul_tiny" + std::to_string(i))->output(0);
  }
  g->add_output(y);
  ASSERT_TRUE(plugins().ops.infer_graph(*g).is_ok());
  Backend& npu = **plugins().host.backend("npu_sim");
  {
    CountingBackend counting(npu);
    ModelRunnerOptions options;
    options.memory_assigners = plugins().host.memory_assigners();
    options.memory_plan_options.ops = &plugins().ops;
    Result<std::unique_ptr<ModelRunner>> runner = ModelRunner::load(*g, counting, options);
    ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
    EXPECT_EQ(counting.counting_device().copies_to_device, 20);  // 10 large, 10 tiny between them
  }
  Result<std::unique_ptr<Session>> compiled = session_of(std::move(g), "npu_sim", false);
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  std::vector<Tensor> expected;
  ASSERT_TRUE((*compiled)->run(input_of(kElements), expected).is_ok());
  const fs::path path = temporary("mixed.gem");
  write_gem(**compiled, "npu_sim", path);
  Result<LoadedModelFile> loaded = read_model_file(path);
  fs::remove(path);
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  ASSERT_TRUE(plugins().ops.infer_graph(*loaded->graph).is_ok());
  CountingBackend counting(npu);
  ModelRunnerOptions options;
  options.precompiled = &*loaded->plans;
  options.memory_plan_options.ops = &plugins().ops;  // the stored plan's in-place ops and views
  Result<std::unique_ptr<ModelRunner>> runner = ModelRunner::load(*loaded->graph, counting, options);
  ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
  EXPECT_EQ(counting.counting_device().copies_to_device, 1);
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*runner)->execute(input_of(kElements), outputs).is_ok());
  EXPECT_EQ(values_of(outputs[0]), values_of(expected[0]));
}

// ---- shrink: the host copies go once the weights are on the device ----

/// The graph above with every weight in storage the test watches.
std::unique_ptr<Graph> watched_graph(std::vector<std::weak_ptr<void>>& watched) {
  auto g = identical_weights_graph(3, 1024);
  for (Value* init : g->initializers()) {
    auto storage = std::make_shared<Tensor>(init->constant()->clone());
    watched.push_back(storage);
    g->set_constant(init, Tensor::share(DataType::kFloat32, {1024}, storage->raw_data(), storage));
  }
  return g;
}

bool any_alive(const std::vector<std::weak_ptr<void>>& watched) {
  for (const auto& w : watched) {
    if (!w.expired()) return true;
  }
  return false;
}

TEST(WeightMergingShrink, DropsTheHostCopiesOfWeightsOnTheDevice) {
  ASSERT_TRUE(plugins().status.is_ok()) << plugins().status.to_string();
  std::vector<float> expected;
  for (bool shrink : {false, true}) {
    std::vector<std::weak_ptr<void>> watched;
    Result<std::unique_ptr<Session>> session = session_of(watched_graph(watched), "npu_sim", shrink);
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    ASSERT_TRUE((*session)->uses_task_sink());
    const ModelRunner& runner = *(*session)->runner();
    EXPECT_EQ(runner.weight_copy_bytes(), 2u * 4096u);  // on the device either way, identical ones once
    // Without shrink the graph holds w0 (shared by w1, w2 since load) and d; with it, nothing.
    EXPECT_EQ(runner.host_weight_bytes(), shrink ? 0u : 2u * 4096u);
    EXPECT_EQ(any_alive(watched), !shrink);
    if (shrink) {
      const Value* w = runner.graph().find_value("w1");
      EXPECT_EQ(w->constant()->raw_data(), nullptr);
      EXPECT_EQ(w->desc().to_string(), "float32[1024]");  // shapes stay
    }
    // Runs still work, and give what they gave with the host copies.
    for (int round = 0; round < 2; ++round) {
      std::vector<Tensor> outputs;
      Status status = (*session)->run(input_of(1024), outputs);
      ASSERT_TRUE(status.is_ok()) << status.to_string();
      if (expected.empty()) expected = values_of(outputs[0]);
      EXPECT_EQ(values_of(outputs[0]), expected);
    }
    if (shrink) {
      // What was dropped cannot be saved again.
      Result<std::string> saved = serialize_model_file((*session)->graph(), ModelFileInfo{});
      ASSERT_FALSE(saved.is_ok());
      EXPECT_THAT(saved.status().message(), HasSubstr("was released after load (shrink)"));
    }
  }
}

TEST(WeightMergingShrink, IsANoOpWhereKernelsReadTheWeightsInPlace) {
  // cpu: the constants are the weights region (read in place, never copied): nothing to drop.
  ASSERT_TRUE(plugins().status.is_ok()) << plugins().status.to_string();
  std::vector<std::weak_ptr<void>> watched;
  Result<std::unique_ptr<Session>> session = session_of(watched_graph(watched), "cpu", true);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  const ModelRunner& runner = *(*session)->runner();
  EXPECT_EQ(runner.weight_copy_bytes(), 0u);
  EXPECT_EQ(runner.host_weight_bytes(), 2u * 4096u);
  EXPECT_FALSE(watched[0].expired());  // w0, which w1 and w2 now share
  EXPECT_FALSE(watched[3].expired());  // d
  EXPECT_TRUE(watched[1].expired());   // w1's own storage: the graph holds its bytes once
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*session)->run(input_of(1024), outputs).is_ok());
}

}  // namespace
}  // namespace ge
