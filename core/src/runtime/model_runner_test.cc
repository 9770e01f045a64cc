// Tests of the task-sink model runner (ge/runtime/model_runner.h).
#include "ge/runtime/model_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include "ge/executor.h"
#include "ge/memory_plan.h"
#include "ge/plugin_host.h"
#include "ge/session.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

fs::path env_path(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? fs::path(value) : fs::path();
}

/// The cpu backend and the ONNX ops, loaded from the build's registry once.
struct Plugins {
  Plugins() {
    status = host.load_registry(env_path("GE_TEST_BIN_DIR") / "ge_plugins.toml");
    if (!host.backend("npu_sim").is_ok()) {
      // Builds that add the plugin after writing the registry: name it in our own.
      const fs::path registry = fs::temp_directory_path() / ("ge_runtime_test_" + std::to_string(::getpid()) + ".toml");
      std::ofstream(registry) << "[[plugin]]\nname = \"npu_sim\"\nkind = \"backend\"\nlibrary = \""
                              << (env_path("GE_TEST_LIB_DIR") / "libge_backend_npu_sim.so").string()
                              << "\"\n[plugin.options]\ncapacity_mib = 64\n";
      npu_status = host.load_registry(registry);
      fs::remove(registry);
    }
    ops = host.make_op_registry();
  }
  PluginHost host;
  Status status, npu_status;
  OpRegistry ops;
};

Plugins& plugins() {
  static Plugins* p = new Plugins();
  return *p;
}

/// Every test runs unchanged on each backend.
class ModelRunnerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto found = plugins().host.backend(GetParam());
    ASSERT_TRUE(found.is_ok()) << GetParam() << " backend not loaded: " << plugins().status.to_string() << "; "
                               << plugins().npu_status.to_string();
    backend_ = *found;
  }
  Backend& backend() { return *backend_; }
  Backend* backend_ = nullptr;
  const OpRegistry& ops() { return plugins().ops; }

  std::unique_ptr<Graph> new_graph(const std::string& name) {
    auto g = std::make_unique<Graph>(name);
    g->set_opset_import("", 17);
    return g;
  }
  /// `planned`: with the loaded memory assigners (the memory plan), else first fit.
  /// `stream_memory_ratio`: ModelRunnerOptions::stream_memory_ratio.
  std::unique_ptr<ModelRunner> load(Graph& g, int streams, bool planned = false, double stream_memory_ratio = 1.1) {
    Status inferred = ops().infer_graph(g);
    EXPECT_TRUE(inferred.is_ok()) << inferred.to_string();
    ModelRunnerOptions options;
    options.max_streams = streams;
    options.stream_memory_ratio = stream_memory_ratio;
    if (planned) {
      options.memory_assigners = plugins().host.memory_assigners();
      options.memory_plan_options.ops = &plugins().ops;
    }
    auto runner = ModelRunner::load(g, backend(), options);
    EXPECT_TRUE(runner.is_ok()) << runner.status().to_string();
    return runner.is_ok() ? std::move(*runner) : nullptr;
  }
};

std::vector<float> values_of(const Tensor& t) { return std::vector<float>(t.values<float>().begin(), t.values<float>().end()); }

TEST_P(ModelRunnerTest, RunsAChainWithWeightsAndTwoInputs) {
  auto g = new_graph("chain");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {2, 3}));
  Value* y = g->add_input("y", TensorDesc::of(DataType::kFloat32, {2, 3}));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  Node* relu = g->add_node("Relu", {x}, 1, "relu");
  Node* add = g->add_node("Add", {relu->output(0), w}, 1, "add");
  Node* mul = g->add_node("Mul", {add->output(0), y}, 1, "mul", {"out"});
  g->add_output(mul->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  EXPECT_EQ(runner->stream_tasks().size(), 1u);
  EXPECT_EQ(runner->stream_tasks()[0].size(), 3u);
  EXPECT_EQ(runner->weight_bytes(), 512u);
  // A host-accessible device reads the constants in place; npu_sim gets its own copy.
  EXPECT_EQ(runner->weight_copy_bytes(), backend().device().host_accessible() ? 0u : 512u);
  // relu and add outputs die at the next step: 2 x 512 bytes, never 3.
  EXPECT_EQ(runner->feature_map_bytes(), 1024u);
  for (int round = 0; round < 2; ++round) {
    const float scale = round == 0 ? 1.0f : -1.0f;
    std::vector<Tensor> outputs;
    Status s = runner->execute({{"x", Tensor::from_vector<float>({2, 3}, {-1, 0, 1, 2, -3, 4})},
                                {"y", Tensor::from_vector<float>({2, 3}, {scale, 2, 2, 2, 2, 0.5f})}},
                               outputs);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_EQ(outputs.size(), 1u);
    // (relu(x) + w) * y, by hand.
    EXPECT_EQ(values_of(outputs[0]), (std::vector<float>{1 * scale, 4, 8, 12, 10, 5}));
  }
}

/// Forwards to a backend and counts the calls of device(): compiling must make none.
class DeviceCountingBackend final : public Backend {
 public:
  explicit DeviceCountingBackend(Backend& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  bool supports(const Node& node, std::string* reason) const override { return inner_.supports(node, reason); }
  Result<PreparedKernel> prepare(const Node& node) const override { return inner_.prepare(node); }
  FormatCapability format_capability(const Node& node) const override { return inner_.format_capability(node); }
  Result<PreparedKernel> prepare_super_kernel(std::span<const KernelTask> tasks) const override {
    return inner_.prepare_super_kernel(tasks);
  }
  Device& device() override {
    ++device_calls;
    return inner_.device();
  }
  int device_calls = 0;

 private:
  Backend& inner_;
};

// Seed 001's offline compiler: compile decides everything but the device (kernels, order,
// streams, memory plan, task definitions) and never asks for it; load puts the compiled
// model on the device and runs it as a graph loaded in one step does, with the same plans.
TEST_P(ModelRunnerTest, CompilesWithoutTheDeviceThenLoadsTheCompiledModel) {
  auto g = new_graph("compiled");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {2, 3}));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  Node* relu = g->add_node("Relu", {x}, 1, "relu");
  Node* left = g->add_node("Add", {relu->output(0), w}, 1, "left");
  Node* right = g->add_node("Mul", {relu->output(0), w}, 1, "right");
  Node* sum = g->add_node("Sub", {left->output(0), right->output(0)}, 1, "sum", {"out"});
  g->add_output(sum->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  ModelRunnerOptions options;
  options.max_streams = 2;
  options.stream_memory_ratio = 0;
  options.memory_assigners = plugins().host.memory_assigners();
  options.memory_plan_options.ops = &plugins().ops;

  DeviceCountingBackend counting(backend());
  Result<CompiledModel> compiled = ModelRunner::compile(*g, counting, options);
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  EXPECT_EQ(counting.device_calls, 0) << "compiling asked the backend for its device";
  EXPECT_EQ(compiled->stream_plan().stream_count, 2);
  EXPECT_EQ(compiled->weight_bytes(), 512u);
  const CompiledPlans plans = compiled->plans();
  size_t launches = 0;
  for (const auto& stream : plans.tasks) {
    launches += static_cast<size_t>(std::count_if(stream.begin(), stream.end(), [](const TaskDef& task) {
      return task.kind == TaskDef::Kind::kKernel;
    }));
  }
  EXPECT_EQ(launches, 4u);

  auto direct = ModelRunner::load(*g, backend(), options);
  ASSERT_TRUE(direct.is_ok()) << direct.status().to_string();
  EXPECT_EQ((*direct)->compiled_plans().tasks, plans.tasks);
  EXPECT_EQ((*direct)->compiled_plans().order, plans.order);
  EXPECT_EQ((*direct)->feature_map_bytes(), compiled->feature_map_bytes());

  // Loaded on another backend than the one it was compiled for: refused.
  DeviceCountingBackend other(backend());
  Result<CompiledModel> again = ModelRunner::compile(*g, counting, options);
  ASSERT_TRUE(again.is_ok());
  auto refused = ModelRunner::load(std::move(*again), other, options);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("was compiled for backend"), std::string::npos)
      << refused.status().message();

  auto loaded = ModelRunner::load(std::move(*compiled), counting, options);
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_GT(counting.device_calls, 0);
  EXPECT_EQ((*loaded)->compiled_plans().tasks, plans.tasks);
  for (ModelRunner* runner : {loaded->get(), direct->get()}) {
    std::vector<Tensor> outputs;
    Status s = runner->execute({{"x", Tensor::from_vector<float>({2, 3}, {-1, 0, 1, 2, -3, 4})}}, outputs);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_EQ(outputs.size(), 1u);
    // (relu(x) + w) - relu(x) * w, by hand.
    EXPECT_EQ(values_of(outputs[0]), (std::vector<float>{1, 2, 1, -2, 5, -14}));
  }
}

// Weights of every size around the 64 KiB a device copy takes directly, in one region:
// small ones are staged in one image, large ones copied apart, and no copy overwrites
// another (a 64 KiB weight between two small ones was zeroed on npu_sim: ResNet-50's
// first downsample convolution).
TEST_P(ModelRunnerTest, WeightsAroundTheDirectCopySizeAllArrive) {
  auto g = new_graph("weights");
  // Elements of float32: 16384 is the 64 KiB threshold; 128 (512 bytes, the region's alignment)
  // leaves no padding before the next weight.
  const std::vector<int64_t> sizes = {128, 16384, 128, 16, 16383, 16385, 4, 65536, 128, 16384, 256, 1};
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1}));
  std::vector<std::vector<float>> expected;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<float> data(static_cast<size_t>(sizes[i]));
    for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<float>(i + 1) + static_cast<float>(k % 97) / 128.0f;
    expected.push_back(data);
    Value* w = g->add_initializer("w" + std::to_string(i), Tensor::from_vector<float>({sizes[i]}, data));
    Node* add = g->add_node("Add", {w, x}, 1, "add" + std::to_string(i), {"y" + std::to_string(i)});
    g->add_output(add->output(0));
  }
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  std::vector<Tensor> outputs;
  Status s = runner->execute({{"x", Tensor::from_vector<float>({1}, {0.0f})}}, outputs);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_EQ(outputs.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(values_of(outputs[i]), expected[i]) << "weight " << i;
}

TEST_P(ModelRunnerTest, FourBranchesOnFourStreams) {
  auto g = new_graph("branches");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {4}));
  std::vector<Value*> ends;
  for (int b = 0; b < 4; ++b) {
    Value* c = g->add_initializer("c" + std::to_string(b), Tensor::from_vector<float>({4}, std::vector<float>(4, float(b + 1))));
    Node* m = g->add_node("Mul", {x, c}, 1, "mul" + std::to_string(b));
    Node* r = g->add_node("Relu", {m->output(0)}, 1, "relu" + std::to_string(b));
    ends.push_back(r->output(0));
  }
  Node* s01 = g->add_node("Add", {ends[0], ends[1]}, 1, "s01");
  Node* s23 = g->add_node("Add", {ends[2], ends[3]}, 1, "s23");
  Node* s = g->add_node("Add", {s01->output(0), s23->output(0)}, 1, "sum", {"out"});
  g->add_output(s->output(0));
  // No memory limit: every branch on its own stream (four 512-byte blocks side by side).
  auto runner = load(*g, 4, false, 0.0);
  ASSERT_NE(runner, nullptr);
  EXPECT_EQ(runner->stream_plan().stream_count, 4);
  // s01 continues branch 0 and waits for branch 1; s23 continues branch 2 and waits for
  // branch 3; sum continues s01 and waits for s23: three events.
  EXPECT_EQ(runner->stream_plan().events.size(), 3u);
  size_t records = 0, waits = 0;
  for (const auto& list : runner->stream_tasks()) {
    for (const Task& t : list) {
      records += std::holds_alternative<EventRecordTask>(t);
      waits += std::holds_alternative<EventWaitTask>(t);
    }
  }
  EXPECT_EQ(records, 3u);
  EXPECT_EQ(waits, 3u);
  std::vector<Tensor> outputs;
  Status st = runner->execute({{"x", Tensor::from_vector<float>({4}, {1, -1, 2, 0.5f})}}, outputs);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  // sum over b of relu((b+1) x) = 10 relu(x).
  EXPECT_EQ(values_of(outputs[0]), (std::vector<float>{10, 0, 20, 5}));
}

TEST_P(ModelRunnerTest, PassThroughAndRepeatedOutputs) {
  auto g = new_graph("passthrough");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({2}, {7, 8}));
  Node* neg = g->add_node("Neg", {x}, 1, "neg", {"n"});
  Node* add = g->add_node("Add", {neg->output(0), w}, 1, "add", {"a"});
  g->add_output(neg->output(0));  // also consumed by add
  g->add_output(x);
  g->add_output(w);
  g->add_output(neg->output(0));
  g->add_output(add->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  std::vector<Tensor> outputs;
  Status st = runner->execute({{"x", Tensor::from_vector<float>({2}, {1, -2})}}, outputs);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_EQ(outputs.size(), 5u);
  EXPECT_EQ(values_of(outputs[0]), (std::vector<float>{-1, 2}));
  EXPECT_EQ(values_of(outputs[1]), (std::vector<float>{1, -2}));
  EXPECT_EQ(values_of(outputs[2]), (std::vector<float>{7, 8}));
  EXPECT_EQ(values_of(outputs[3]), (std::vector<float>{-1, 2}));
  EXPECT_EQ(values_of(outputs[4]), (std::vector<float>{6, 10}));
}

TEST_P(ModelRunnerTest, ExecuteBoundRefreshesOnlyIoSlots) {
  auto g = new_graph("bound");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {3}));
  Node* a = g->add_node("Abs", {x}, 1, "abs");
  Node* n = g->add_node("Neg", {a->output(0)}, 1, "neg", {"y"});
  g->add_output(n->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  // Device buffers, so that the test runs on devices the host cannot address.
  Device& device = backend().device();
  std::vector<void*> buffers;
  for (int i = 0; i < 4; ++i) buffers.push_back(device.allocate(3 * sizeof(float)).value());
  const float in1[3] = {1, -2, 3}, in2[3] = {-4, 5, -6};
  ASSERT_TRUE(device.copy_to_device(buffers[0], in1, sizeof in1).is_ok());
  ASSERT_TRUE(device.copy_to_device(buffers[1], in2, sizeof in2).is_ok());
  const void* ins1[] = {buffers[0]};
  void* outs1[] = {buffers[2]};
  ASSERT_TRUE(runner->execute_bound(ins1, outs1).is_ok());
  const void* ins2[] = {buffers[1]};
  void* outs2[] = {buffers[3]};
  ASSERT_TRUE(runner->execute_bound(ins2, outs2).is_ok());
  float out1[3], out2[3];
  ASSERT_TRUE(device.copy_to_host(out1, buffers[2], sizeof out1).is_ok());
  ASSERT_TRUE(device.copy_to_host(out2, buffers[3], sizeof out2).is_ok());
  EXPECT_EQ(std::vector<float>(out1, out1 + 3), (std::vector<float>{-1, -2, -3}));
  EXPECT_EQ(std::vector<float>(out2, out2 + 3), (std::vector<float>{-4, -5, -6}));
  Status wrong = runner->execute_bound(ins1, {});
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("takes 1 inputs and 1 outputs, got 1 and 0"), std::string::npos) << wrong.message();
  for (void* p : buffers) device.deallocate(p);
}

// Seeds 000/002: a caller buffer is bound zero-copy only at the 32-byte alignment; other
// buffers are copied through aligned ones (host-accessible devices) or refused.
TEST_P(ModelRunnerTest, MisalignedCallerBuffersAreCopiedNotBoundZeroCopy) {
  auto g = new_graph("misaligned");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {5}));
  Node* a = g->add_node("Abs", {x}, 1, "abs");
  g->add_output(g->add_node("Neg", {a->output(0)}, 1, "neg", {"y"})->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  alignas(64) float host[24] = {};
  float* misaligned = host + 1;  // 4 bytes past a 64-byte boundary
  const float values[5] = {1, -2, 3, -4, 5};
  std::memcpy(misaligned, values, sizeof values);
  std::vector<Tensor> outputs;
  ASSERT_TRUE(runner->execute({{"x", Tensor::borrow(DataType::kFloat32, {5}, misaligned)}}, outputs).is_ok());
  EXPECT_EQ(values_of(outputs[0]), (std::vector<float>{-1, -2, -3, -4, -5}));
  if (backend().device().host_accessible()) {
    EXPECT_EQ(runner->copied_io(), std::vector<std::string>{"input 'x'"});
  } else {
    EXPECT_TRUE(runner->copied_io().empty());  // staged like every input on such a device
  }
  ASSERT_TRUE(runner->execute({{"x", Tensor::borrow(DataType::kFloat32, {5}, host + 8)}}, outputs).is_ok());
  EXPECT_TRUE(runner->copied_io().empty());

  // Device buffers at misaligned offsets: copied in and out in stream order on any device.
  Device& device = backend().device();
  char* buffer = static_cast<char*>(device.allocate(256).value());
  ASSERT_TRUE(device.copy_to_device(buffer + 4, values, sizeof values).is_ok());
  const void* ins[] = {buffer + 4};
  void* outs[] = {buffer + 100};
  ASSERT_TRUE(runner->execute_bound(ins, outs).is_ok());
  float got[5] = {};
  ASSERT_TRUE(device.copy_to_host(got, buffer + 100, sizeof got).is_ok());
  EXPECT_EQ(std::vector<float>(got, got + 5), (std::vector<float>{-1, -2, -3, -4, -5}));
  EXPECT_EQ(runner->copied_io(), (std::vector<std::string>{"input 'x'", "output 'y'"}));
  device.deallocate(buffer);
}

TEST_P(ModelRunnerTest, RejectsBadBindings) {
  auto g = new_graph("bindings");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
  g->add_output(g->add_node("Relu", {x}, 1, "relu", {"y"})->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  std::vector<Tensor> outputs;
  Status unknown = runner->execute({{"z", Tensor::from_vector<float>({2}, {1, 2})}}, outputs);
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("unknown input 'z'"), std::string::npos);
  Status missing = runner->execute({}, outputs);
  EXPECT_NE(missing.message().find("input 'x' is not bound"), std::string::npos);
  Status shape = runner->execute({{"x", Tensor::from_vector<float>({3}, {1, 2, 3})}}, outputs);
  EXPECT_EQ(shape.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(shape.message().find("input 'x' is"), std::string::npos);
  EXPECT_NE(shape.message().find("expects"), std::string::npos);
  Status twice = runner->execute({{"x", Tensor::from_vector<float>({2}, {1, 2})}, {"x", Tensor::from_vector<float>({2}, {1, 2})}},
                                 outputs);
  EXPECT_NE(twice.message().find("bound twice"), std::string::npos);
}

TEST_P(ModelRunnerTest, RejectsDynamicShapes) {
  auto g = new_graph("dynamic");
  Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("n")}));
  g->add_output(g->add_node("Relu", {x}, 1, "relu", {"y"})->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  auto runner = ModelRunner::load(*g, backend());
  ASSERT_FALSE(runner.is_ok());
  EXPECT_EQ(runner.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(runner.status().message().find("static shape"), std::string::npos) << runner.status().message();
  EXPECT_NE(runner.status().message().find("relu"), std::string::npos) << runner.status().message();
}

TEST_P(ModelRunnerTest, ReportsAFailingKernelByName) {
  auto g = new_graph("divide");
  Value* a = g->add_input("a", TensorDesc::of(DataType::kInt32, {2}));
  Value* b = g->add_input("b", TensorDesc::of(DataType::kInt32, {2}));
  g->add_output(g->add_node("Div", {a, b}, 1, "div", {"q"})->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  std::vector<Tensor> outputs;
  Status ok = runner->execute({{"a", Tensor::from_vector<int32_t>({2}, {6, 7})}, {"b", Tensor::from_vector<int32_t>({2}, {1, 2})}},
                              outputs);
  ASSERT_TRUE(ok.is_ok()) << ok.to_string();
  EXPECT_EQ(outputs[0].values<int32_t>()[0], 6);
  EXPECT_EQ(outputs[0].values<int32_t>()[1], 3);
  Status bad = runner->execute({{"a", Tensor::from_vector<int32_t>({2}, {6, 7})}, {"b", Tensor::from_vector<int32_t>({2}, {0, 1})}},
                               outputs);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("Div"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("integer division by zero"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("graph 'divide'"), std::string::npos) << bad.message();
}

/// Random DAGs of elementwise ops: the sunk runner on 1 to 4 streams, from a first-fit
/// arena or a stream-aware memory plan, gives bit-identical results to the per-op
/// executor (same kernels, same order of arithmetic per element), run after run.
TEST_P(ModelRunnerTest, RandomGraphsMatchThePerOpExecutor) {
  std::mt19937 rng(77);
  const char* binary[] = {"Add", "Sub", "Mul", "Max"};
  const char* unary[] = {"Relu", "Neg", "Tanh", "Sigmoid", "Abs"};
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    auto g = new_graph("random" + std::to_string(trial));
    std::vector<Value*> pool;
    const int inputs = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < inputs; ++i) pool.push_back(g->add_input("in" + std::to_string(i), TensorDesc::of(DataType::kFloat32, {4, 8})));
    pool.push_back(g->add_initializer("w", Tensor::from_vector<float>({4, 8}, std::vector<float>(32, 0.25f))));
    const int nodes = 5 + static_cast<int>(rng() % 30);
    std::vector<Value*> produced;
    for (int n = 0; n < nodes; ++n) {
      Value* a = pool[rng() % pool.size()];
      Node* node;
      if (rng() % 2 == 0) {
        node = g->add_node(unary[rng() % 5], {a}, 1, "n" + std::to_string(n));
      } else {
        node = g->add_node(binary[rng() % 4], {a, pool[rng() % pool.size()]}, 1, "n" + std::to_string(n));
      }
      pool.push_back(node->output(0));
      produced.push_back(node->output(0));
    }
    for (Value* v : produced) {
      if (!v->has_uses() || rng() % 4 == 0) g->add_output(v);
    }
    ASSERT_TRUE(ops().infer_graph(*g).is_ok());
    NamedTensors feeds;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int i = 0; i < inputs; ++i) {
      std::vector<float> data(32);
      for (float& f : data) f = normal(rng);
      feeds.emplace_back("in" + std::to_string(i), Tensor::from_vector<float>({4, 8}, data));
    }
    // The per-op executor on cpu is the reference for every backend.
    auto executor = Executor::create(g->clone(), *plugins().host.backend("cpu").value(), ops());
    ASSERT_TRUE(executor.is_ok()) << executor.status().to_string();
    std::vector<Tensor> expected;
    ASSERT_TRUE((*executor)->run(feeds, expected).is_ok());
    for (int streams : {1, 2, 3, 4}) {
      for (auto [planned, ratio] : {std::pair(false, 1.1), std::pair(true, 1.1), std::pair(true, 0.0)}) {
        if (streams == 1 && ratio == 0.0) continue;
        auto runner = load(*g, streams, planned, ratio);
        ASSERT_NE(runner, nullptr);
        ASSERT_NE(runner->memory_plan(), nullptr);
        const GraphMemoryPlan& plan = *runner->memory_plan();
        EXPECT_EQ(plan.streams.stream_count > 1, runner->stream_plan().stream_count > 1);
        if (ratio > 0 && plan.statistics.one_stream_bytes > 0) {
          // Within the limit: side by side, or ordered so that buffers reuse bytes.
          EXPECT_LE(static_cast<double>(plan.feature_map_bytes), ratio * plan.statistics.one_stream_bytes);
        }
        for (int repeat = 0; repeat < 3; ++repeat) {
          std::vector<Tensor> outputs;
          Status st = runner->execute(feeds, outputs);
          ASSERT_TRUE(st.is_ok()) << st.to_string();
          ASSERT_EQ(outputs.size(), expected.size());
          for (size_t o = 0; o < outputs.size(); ++o) {
            EXPECT_EQ(values_of(outputs[o]), values_of(expected[o]))
                << "output " << o << " on " << streams << " streams, " << (planned ? "memory plan" : "first fit")
                << ", stream memory ratio " << ratio;
          }
        }
      }
    }
  }
}

std::vector<float> read_npy_floats(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10) return {};
  const size_t header = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  std::vector<float> values((bytes.size() - 10 - header) / sizeof(float));
  std::memcpy(values.data(), bytes.data() + 10 + header, values.size() * sizeof(float));
  return values;
}

TEST_P(ModelRunnerTest, SmallCnnMatchesPerOpExecutorAndNumpy) {
  const fs::path samples = env_path("GE_SOURCE_DIR") / "samples" / "models";
  SessionOptions options;
  options.backend = GetParam();  // a compiled graph is for its backend (formats, fused ops)
  auto session = Session::create(plugins().host, samples / "small_cnn.onnx", options);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  const std::vector<float> input = read_npy_floats(samples / "small_cnn" / "input_0.npy");
  ASSERT_EQ(input.size(), 3u * 16 * 16);
  NamedTensors feeds = {{"input", Tensor::from_vector<float>({1, 3, 16, 16}, input)}};
  std::vector<Tensor> per_op;
  ASSERT_TRUE((*session)->run(feeds, per_op).is_ok());
  auto runner = ModelRunner::load((*session)->graph(), backend());
  ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
  std::vector<Tensor> sunk;
  Status st = (*runner)->execute(feeds, sunk);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_EQ(sunk.size(), 1u);
  EXPECT_EQ(values_of(sunk[0]), values_of(per_op[0]));
  // samples/models/small_cnn/output_0.pb, computed by the numpy reference.
  const std::vector<float> numpy = {0.0013369298540055752f, 0.03526658937335014f, 0.07382801175117493f, 0.7016708850860596f,
                                    0.005427271127700806f,  0.10038092732429504f, 0.002177753020077944f, 0.04954397678375244f,
                                    0.030268076807260513f,  9.960094030248001e-05f};
  const std::vector<float> got = values_of(sunk[0]);
  ASSERT_EQ(got.size(), numpy.size());
  for (size_t i = 0; i < numpy.size(); ++i) EXPECT_NEAR(got[i], numpy[i], 1e-5f) << "class " << i;
}

// ---- execution out of a memory plan ----

std::unique_ptr<ModelRunner> load_planned(const Graph& g, Backend& backend, const MemoryPlanOptions& plan_options = {}) {
  ModelRunnerOptions options;
  options.memory_assigners = plugins().host.memory_assigners();
  options.memory_plan_options = plan_options;
  if (options.memory_plan_options.ops == nullptr) options.memory_plan_options.ops = &plugins().ops;
  auto runner = ModelRunner::load(g, backend, options);
  EXPECT_TRUE(runner.is_ok()) << runner.status().to_string();
  return runner.is_ok() ? std::move(*runner) : nullptr;
}

struct TaskCounts {
  size_t kernels = 0, copies = 0;
  std::vector<std::string> names;
};
TaskCounts count_tasks(const ModelRunner& runner) {
  TaskCounts counts;
  for (const auto& list : runner.stream_tasks()) {
    for (const Task& task : list) {
      if (const auto* kernel = std::get_if<KernelTask>(&task)) {
        ++counts.kernels;
        counts.names.emplace_back(kernel->name);
      }
      counts.copies += std::holds_alternative<MemcpyTask>(task);
    }
  }
  return counts;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

/// Runs `g` with and without a plan on `feeds` and expects bit-identical outputs.
void expect_same_outputs(ModelRunner& planned, ModelRunner& unplanned, const NamedTensors& feeds) {
  for (int round = 0; round < 2; ++round) {  // a second run reuses the refreshed slots
    std::vector<Tensor> expected, got;
    Status a = unplanned.execute(feeds, expected);
    ASSERT_TRUE(a.is_ok()) << a.to_string();
    Status b = planned.execute(feeds, got);
    ASSERT_TRUE(b.is_ok()) << b.to_string();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t o = 0; o < got.size(); ++o) EXPECT_TRUE(same_bits(got[o], expected[o])) << "output " << o;
  }
}

Tensor ramp(std::vector<int64_t> shape, float start) {
  std::vector<float> data(static_cast<size_t>(element_count(shape)));
  for (size_t i = 0; i < data.size(); ++i) data[i] = start + 0.37f * static_cast<float>(i) * (i % 2 == 0 ? 1.0f : -1.0f);
  return Tensor::from_vector<float>(std::move(shape), data);
}

TEST_P(ModelRunnerTest, PlannedRunSkipsViewsAndContinuousConcat) {
  auto g = new_graph("planned");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 4, 8}));
  Value* shape = g->add_initializer("shape", Tensor::from_vector<int64_t>({2}, {1, 32}));
  Value* w = g->add_initializer("w", ramp({1, 64}, 0.5f));
  // relu -> neg -> abs: an in-place chain; the Reshapes are views; the Concat's inputs
  // are written straight into its slices.
  Node* relu = g->add_node("Relu", {x}, 1, "relu");
  Node* neg = g->add_node("Neg", {relu->output(0)}, 1, "neg");
  Node* abs = g->add_node("Abs", {neg->output(0)}, 1, "abs");
  Node* flat = g->add_node("Reshape", {abs->output(0), shape}, 1, "flat");
  Node* sig = g->add_node("Sigmoid", {flat->output(0)}, 1, "sig");
  Node* tanh = g->add_node("Tanh", {x}, 1, "tanh");
  Node* flat2 = g->add_node("Reshape", {tanh->output(0), shape}, 1, "flat2");
  Node* cat = g->add_node("Concat", {sig->output(0), flat2->output(0)}, 1, "cat");
  cat->set_attribute("axis", Attribute(int64_t{1}));
  Node* add = g->add_node("Add", {cat->output(0), w}, 1, "add", {"y"});
  g->add_output(add->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());

  auto unplanned = load(*g, 1);
  auto planned = load_planned(*g, backend());
  ASSERT_NE(unplanned, nullptr);
  ASSERT_NE(planned, nullptr);
  // Without assigner plugins or op schemas: the core's first-fit assigner places the
  // plan, with nothing in place, no views and no Concat slices (that knowledge is the op
  // schemas').
  ASSERT_NE(unplanned->memory_plan(), nullptr);
  EXPECT_EQ(unplanned->memory_plan()->statistics.assigner, "builtin_first_fit");
  EXPECT_EQ(unplanned->memory_plan()->statistics.views, 0u);
  EXPECT_EQ(unplanned->memory_plan()->statistics.in_place, 0u);
  EXPECT_EQ(unplanned->memory_plan()->statistics.concat_slices, 0u);
  const GraphMemoryPlan* plan = planned->memory_plan();
  ASSERT_NE(plan, nullptr);
  Status valid = validate_memory_plan(*plan);
  EXPECT_TRUE(valid.is_ok()) << valid.to_string();
  EXPECT_EQ(planned->feature_map_bytes(), plan->feature_map_bytes);
  EXPECT_GE(plan->statistics.in_place, 2u);
  EXPECT_EQ(plan->statistics.views, 2u);
  EXPECT_EQ(plan->statistics.concat_slices, 2u);
  // Every value sits in one 512-byte buffer of the concat: 256 bytes.
  EXPECT_EQ(plan->feature_map_bytes, 512u);
  EXPECT_EQ(count_tasks(*unplanned).kernels, 9u);  // every node, the Concat's kernel too
  const TaskCounts counts = count_tasks(*planned);
  EXPECT_EQ(counts.kernels, 6u);  // no Reshape, no Concat
  EXPECT_EQ(counts.copies, 0u);
  for (const std::string& name : counts.names) {
    EXPECT_EQ(name.find("Reshape"), std::string::npos) << name;
    EXPECT_EQ(name.find("Concat"), std::string::npos) << name;
  }
  expect_same_outputs(*planned, *unplanned, {{"x", ramp({1, 4, 8}, -3.0f)}});
}

TEST_P(ModelRunnerTest, PlannedConcatCopiesOnlyInputsOutsideTheirSlices) {
  auto g = new_graph("partial_concat");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 8}));
  Value* w = g->add_initializer("w", ramp({1, 8}, 2.0f));
  Node* relu = g->add_node("Relu", {x}, 1, "relu");
  // The caller's input and a weight cannot be written into a slice: they are copied.
  Node* cat = g->add_node("Concat", {x, relu->output(0), w}, 1, "cat");
  cat->set_attribute("axis", Attribute(int64_t{1}));
  Node* neg = g->add_node("Neg", {cat->output(0)}, 1, "neg", {"y"});
  // A Concat that is itself a graph output: its producers write into the caller's buffer.
  Node* sig = g->add_node("Sigmoid", {x}, 1, "sig");
  Node* cat2 = g->add_node("Concat", {relu->output(0), sig->output(0)}, 1, "cat2", {"z"});
  cat2->set_attribute("axis", Attribute(int64_t{1}));
  g->add_output(neg->output(0));
  g->add_output(cat2->output(0));
  g->add_output(x);
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  auto unplanned = load(*g, 1);
  auto planned = load_planned(*g, backend());
  ASSERT_NE(unplanned, nullptr);
  ASSERT_NE(planned, nullptr);
  ASSERT_NE(planned->memory_plan(), nullptr);
  EXPECT_TRUE(validate_memory_plan(*planned->memory_plan()).is_ok());
  EXPECT_EQ(planned->feature_map_bytes(), planned->memory_plan()->feature_map_bytes);
  const TaskCounts counts = count_tasks(*planned);
  for (const std::string& name : counts.names) EXPECT_EQ(name.find("Concat"), std::string::npos) << name;
  EXPECT_GE(counts.copies, 2u);  // x and w into the first Concat's slices
  expect_same_outputs(*planned, *unplanned, {{"x", ramp({1, 8}, -1.0f)}});
  // Again with other buffers: the copy out of the caller's input (a task group of the
  // captured model) follows the new addresses.
  expect_same_outputs(*planned, *unplanned, {{"x", ramp({1, 8}, 3.0f)}});
}

// Seed 000's refreshable feature-map base: the caller hands in the arena per execute.
TEST_P(ModelRunnerTest, CallerFeatureMapIsBoundPerExecuteAndSharedBetweenRunners) {
  auto g = new_graph("caller_arena");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 8}));
  Value* w = g->add_initializer("w", ramp({1, 8}, 2.0f));
  Node* relu = g->add_node("Relu", {x}, 1, "relu");
  Node* cat = g->add_node("Concat", {x, relu->output(0), w}, 1, "cat");  // copies into arena slices
  cat->set_attribute("axis", Attribute(int64_t{1}));
  Node* neg = g->add_node("Neg", {cat->output(0)}, 1, "neg");
  Node* exp = g->add_node("Exp", {neg->output(0)}, 1, "exp", {"y"});
  g->add_output(exp->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  auto reference = load(*g, 1);
  ASSERT_NE(reference, nullptr);
  Device& device = backend().device();
  for (bool planned : {false, true}) {
    SCOPED_TRACE(planned ? "memory plan" : "first-fit arena");
    ModelRunnerOptions options;
    if (planned) options.memory_assigners = plugins().host.memory_assigners();
    options.memory_plan_options.ops = &plugins().ops;
    options.caller_feature_map = true;
    auto a = ModelRunner::load(*g, backend(), options);
    auto b = ModelRunner::load(*g, backend(), options);
    ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.status().to_string() << b.status().to_string();
    ModelRunner& first = **a;
    ModelRunner& second = **b;
    ASSERT_GT(first.feature_map_bytes(), 0u);
    std::vector<Tensor> out;
    const Status unbound = first.execute({{"x", ramp({1, 8}, -3.0f)}}, out);
    EXPECT_EQ(unbound.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(unbound.message().find("bind_feature_map"), std::string::npos) << unbound.message();

    const size_t bytes = first.feature_map_bytes(), alignment = first.feature_map_alignment();
    char* arena_a = static_cast<char*>(device.allocate(bytes, alignment).value());
    char* arena_b = static_cast<char*>(device.allocate(bytes, alignment).value());
    EXPECT_EQ(first.bind_feature_map(arena_a + 1).code(), StatusCode::kInvalidArgument);  // misaligned
    const std::vector<char> sentinel(bytes, '\x5a');
    for (float start : {-3.0f, 1.0f}) {
      const NamedTensors feeds = {{"x", ramp({1, 8}, start)}};
      std::vector<Tensor> want, got_a, got_b;
      ASSERT_TRUE(reference->execute(feeds, want).is_ok());
      // Run on arena A, then move to arena B with A filled with a sentinel: a run on B
      // that still touched A would change it.
      ASSERT_TRUE(first.bind_feature_map(arena_a).is_ok());
      ASSERT_TRUE(first.execute(feeds, got_a).is_ok());
      EXPECT_EQ(values_of(got_a[0]), values_of(want[0]));
      ASSERT_TRUE(device.copy_to_device(arena_a, sentinel.data(), bytes).is_ok());
      ASSERT_TRUE(first.bind_feature_map(arena_b).is_ok());
      ASSERT_TRUE(first.execute(feeds, got_b).is_ok());
      EXPECT_EQ(values_of(got_b[0]), values_of(want[0]));
      std::vector<char> after(bytes);
      ASSERT_TRUE(device.copy_to_host(after.data(), arena_a, bytes).is_ok());
      EXPECT_EQ(after, sentinel);
      // A second model of the same plan shares arena B between runs of the first.
      ASSERT_TRUE(second.bind_feature_map(arena_b).is_ok());
      std::vector<Tensor> got_second;
      ASSERT_TRUE(second.execute(feeds, got_second).is_ok());
      EXPECT_EQ(values_of(got_second[0]), values_of(want[0]));
    }
    device.deallocate(arena_a);
    device.deallocate(arena_b);
  }
  EXPECT_EQ(reference->bind_feature_map(nullptr).code(), StatusCode::kInvalidArgument);  // owns its arena
}

// ACL's ExecuteAsync: the model joins the order of a stream the caller owns.
TEST_P(ModelRunnerTest, AsyncExecuteRunsInTheCallersStreamOrder) {
  auto g = new_graph("async");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 1024}));
  Node* a = g->add_node("Abs", {x}, 1, "abs");
  Node* n = g->add_node("Neg", {a->output(0)}, 1, "neg");
  g->add_output(g->add_node("Exp", {n->output(0)}, 1, "exp", {"y"})->output(0));
  auto runner = load(*g, 1);
  ASSERT_NE(runner, nullptr);
  auto reference = load(*g, 1);
  Device& device = backend().device();
  auto stream = device.create_stream();
  ASSERT_TRUE(stream.is_ok()) << stream.status().to_string();
  const size_t bytes = 1024 * sizeof(float);
  std::vector<char*> buffers;
  for (int i = 0; i < 6; ++i) buffers.push_back(static_cast<char*>(device.allocate(bytes).value()));
  char *source1 = buffers[0], *source2 = buffers[1], *in = buffers[2], *out = buffers[3], *result1 = buffers[4],
       *result2 = buffers[5];
  const Tensor x1 = ramp({1, 1024}, -5.0f), x2 = ramp({1, 1024}, 7.0f);
  ASSERT_TRUE(device.copy_to_device(source1, x1.raw_data(), bytes).is_ok());
  ASSERT_TRUE(device.copy_to_device(source2, x2.raw_data(), bytes).is_ok());
  const void* ins[] = {in};
  void* outs[] = {out};
  // On the caller's stream: fill the input, run the model, copy its output away; twice,
  // reusing the same buffers, all queued before one synchronize.
  for (auto [source, result] : {std::pair{source1, result1}, std::pair{source2, result2}}) {
    const Task fill = MemcpyTask{in, source, bytes};
    ASSERT_TRUE((*stream)->submit({&fill, 1}).is_ok());
    ASSERT_TRUE(runner->execute_bound_async(ins, outs, **stream).is_ok());
    const Task take = MemcpyTask{result, out, bytes};
    ASSERT_TRUE((*stream)->submit({&take, 1}).is_ok());
  }
  ASSERT_TRUE((*stream)->synchronize().is_ok());
  for (auto [feed, result] : {std::pair{&x1, result1}, std::pair{&x2, result2}}) {
    std::vector<Tensor> want;
    ASSERT_TRUE(reference->execute({{"x", *feed}}, want).is_ok());
    std::vector<float> got(1024);
    ASSERT_TRUE(device.copy_to_host(got.data(), result, bytes).is_ok());
    EXPECT_EQ(got, values_of(want[0]));
  }
  // A synchronous execute after an asynchronous one waits for it.
  ASSERT_TRUE(runner->execute_bound_async(ins, outs, **stream).is_ok());
  std::vector<Tensor> sync_out;
  ASSERT_TRUE(runner->execute({{"x", x1}}, sync_out).is_ok());
  ASSERT_TRUE((*stream)->synchronize().is_ok());
  std::vector<Tensor> want;
  ASSERT_TRUE(reference->execute({{"x", x1}}, want).is_ok());
  EXPECT_EQ(values_of(sync_out[0]), values_of(want[0]));
  stream->reset();
  for (char* p : buffers) device.deallocate(p);
}

// Seed 001's SuperKernel: a run of tiny launches costs one launch.
TEST_P(ModelRunnerTest, SuperKernelsLaunchARunOfTinyKernelsOnce) {
  auto g = new_graph("tiny_chain");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kInt32, {16}));
  Value* d = g->add_input("d", TensorDesc::of(DataType::kInt32, {16}));
  Value* v = x;
  const char* chain[] = {"Neg", "Abs", "Neg", "Abs", "Neg", "Abs", "Neg", "Abs"};
  for (size_t i = 0; i < std::size(chain); ++i) v = g->add_node(chain[i], {v}, 1, "op" + std::to_string(i))->output(0);
  // A divide by the caller's `d`: fails inside the run when d holds a zero.
  g->add_output(g->add_node("Div", {v, d}, 1, "div", {"y"})->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  auto plain = load(*g, 1);
  ModelRunnerOptions options;
  options.super_kernel_max_bytes = 64;  // each node writes 16 int32: 64 bytes
  auto super = ModelRunner::load(*g, backend(), options);
  ASSERT_TRUE(super.is_ok()) << super.status().to_string();
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->super_kernel_count(), 0u);
  EXPECT_EQ((*super)->super_kernel_count(), 1u);
  EXPECT_EQ((*super)->stream_tasks()[0].size(), plain->stream_tasks()[0].size());  // still lists every launch
  options.super_kernel_max_bytes = 63;  // below every node's output: nothing merged
  auto none = ModelRunner::load(*g, backend(), options);
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ((*none)->super_kernel_count(), 0u);

  Device& device = backend().device();
  std::vector<int32_t> values(16), divisors(16, 2);
  for (int i = 0; i < 16; ++i) values[static_cast<size_t>(i)] = i - 8;
  const NamedTensors feeds = {{"x", Tensor::from_vector<int32_t>({16}, values)},
                              {"d", Tensor::from_vector<int32_t>({16}, divisors)}};
  std::vector<Tensor> want, got;
  const bool traced = device.set_task_tracing(true).is_ok();
  (void)device.take_task_trace();
  ASSERT_TRUE(plain->execute(feeds, want).is_ok());
  const std::vector<TaskTraceRecord> plain_trace = device.take_task_trace();
  ASSERT_TRUE((*super)->execute(feeds, got).is_ok());
  const std::vector<TaskTraceRecord> super_trace = device.take_task_trace();
  if (traced) (void)device.set_task_tracing(false);
  EXPECT_EQ(got[0].values<int32_t>()[3], want[0].values<int32_t>()[3]);
  EXPECT_EQ(std::vector<int32_t>(got[0].values<int32_t>().begin(), got[0].values<int32_t>().end()),
            std::vector<int32_t>(want[0].values<int32_t>().begin(), want[0].values<int32_t>().end()));
  if (traced) {
    auto kernels = [](const std::vector<TaskTraceRecord>& trace) {
      size_t n = 0;
      for (const TaskTraceRecord& r : trace) n += r.name != "memcpy" && r.name.rfind("event_", 0) != 0 ? 1 : 0;
      return n;
    };
    EXPECT_EQ(kernels(plain_trace), 9u);
    EXPECT_EQ(kernels(super_trace), 1u);  // the 9 launches (8 unary ops and the Div) as one
    if (device.simulated_time() && !plain_trace.empty() && !super_trace.empty()) {
      // npu_sim charges one launch for the span instead of nine.
      const double plain_ns = plain_trace.back().end_ns - plain_trace.front().start_ns;
      const double super_ns = super_trace.back().end_ns - super_trace.front().start_ns;
      EXPECT_LT(super_ns, plain_ns) << plain_ns << " vs " << super_ns;
    }
  }
  // A failing kernel inside the span fails the launch with its error.
  divisors[5] = 0;
  Status bad = (*super)->execute({{"x", Tensor::from_vector<int32_t>({16}, values)},
                                  {"d", Tensor::from_vector<int32_t>({16}, divisors)}},
                                 got);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("integer division by zero"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("super kernel of 9 nodes"), std::string::npos) << bad.message();
}

TEST_P(ModelRunnerTest, PlannedRunWithoutZeroCopyIoCopiesInputsAndOutputs) {
  auto g = new_graph("copied_io");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {2, 8}));
  Node* relu = g->add_node("Relu", {x}, 1, "relu");
  Node* flat = g->add_node("Flatten", {relu->output(0)}, 1, "flat");
  Node* exp = g->add_node("Exp", {flat->output(0)}, 1, "exp", {"y"});
  g->add_output(exp->output(0));
  g->add_output(relu->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  MemoryPlanOptions plan_options;
  plan_options.zero_copy_io = false;
  auto unplanned = load(*g, 1);
  auto planned = load_planned(*g, backend(), plan_options);
  ASSERT_NE(unplanned, nullptr);
  ASSERT_NE(planned, nullptr);
  ASSERT_NE(planned->memory_plan(), nullptr);
  EXPECT_EQ(planned->memory_plan()->io_bytes, 0u);
  EXPECT_EQ(planned->feature_map_bytes(), planned->memory_plan()->feature_map_bytes);
  expect_same_outputs(*planned, *unplanned, {{"x", ramp({2, 8}, -2.0f)}});
}

TEST_P(ModelRunnerTest, SeveralStreamsRunFromAStreamAwareMemoryPlan) {
  auto g = new_graph("streams");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {4}));
  Node* a = g->add_node("Relu", {x}, 1, "a");
  Node* b = g->add_node("Neg", {x}, 1, "b");
  g->add_output(g->add_node("Add", {a->output(0), b->output(0)}, 1, "sum", {"y"})->output(0));
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  ModelRunnerOptions options;
  options.max_streams = 2;
  options.memory_assigners = plugins().host.memory_assigners();
  options.memory_plan_options.ops = &plugins().ops;
  auto runner = ModelRunner::load(*g, backend(), options);
  ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
  EXPECT_EQ((*runner)->stream_plan().stream_count, 2);
  ASSERT_NE((*runner)->memory_plan(), nullptr);
  EXPECT_EQ((*runner)->memory_plan()->streams.stream_count, 2);
  EXPECT_EQ((*runner)->memory_plan()->streams.stream_of, (*runner)->stream_plan().stream_of);
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*runner)->execute({{"x", Tensor::from_vector<float>({4}, {1, -2, 3, -4})}}, outputs).is_ok());
  EXPECT_EQ(values_of(outputs[0]), (std::vector<float>{0, 2, 0, 4}));
}

/// Four branches of x [64,64]: p = x*x, q = p+x (in place over p), r = q @ w_i [64,1];
/// the r's summed. Side by side two branches hold two 16 KiB temporaries at once.
std::unique_ptr<Graph> four_branches(const std::function<std::unique_ptr<Graph>(const std::string&)>& new_graph) {
  auto g = new_graph("four_branches");
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {64, 64}));
  Value* total = nullptr;
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    std::vector<float> w(64);
    for (size_t k = 0; k < w.size(); ++k) w[k] = static_cast<float>((k * 7 + static_cast<size_t>(i)) % 5) - 2.0f;
    Value* weight = g->add_initializer("w" + n, Tensor::from_vector<float>({64, 1}, w));
    Value* p = g->add_node("Mul", {x, x}, 1, "p" + n)->output(0);
    Value* q = g->add_node("Add", {p, x}, 1, "q" + n)->output(0);
    Value* r = g->add_node("MatMul", {q, weight}, 1, "r" + n)->output(0);
    total = total == nullptr ? r : g->add_node("Add", {total, r}, 1, "sum" + n)->output(0);
  }
  g->add_output(total);
  return g;
}

TEST_P(ModelRunnerTest, StreamsOverTheMemoryLimitReuseBytesInOrder) {
  auto g = four_branches([this](const std::string& name) { return new_graph(name); });
  std::vector<float> input(64 * 64);
  for (size_t k = 0; k < input.size(); ++k) input[k] = static_cast<float>(k % 11) * 0.25f - 1.0f;
  const NamedTensors feeds = {{"x", Tensor::from_vector<float>({64, 64}, input)}};
  auto one = load(*g, 1, true);
  auto side_by_side = load(*g, 2, true, 0.0);
  auto limited = load(*g, 2, true, 1.1);
  ASSERT_TRUE(one && side_by_side && limited);
  const size_t one_bytes = one->memory_plan()->feature_map_bytes;
  ASSERT_EQ(side_by_side->stream_plan().stream_count, 2);
  EXPECT_GT(side_by_side->memory_plan()->feature_map_bytes, one_bytes * 11 / 10)
      << "two branches side by side need more than the limit";

  const GraphMemoryPlan& plan = *limited->memory_plan();
  std::cout << format_memory_statistics(plan.statistics);
  EXPECT_LE(plan.feature_map_bytes * 10, one_bytes * 11);
  EXPECT_EQ(plan.statistics.one_stream_bytes, one_bytes);
  EXPECT_EQ(plan.statistics.unordered_streams_bytes, side_by_side->memory_plan()->feature_map_bytes);
  EXPECT_EQ(limited->stream_plan().stream_count, 2) << "ordered for reuse, the small work still overlaps";
  EXPECT_GT(plan.streams.events.size(), side_by_side->memory_plan()->streams.events.size());
  std::vector<Tensor> expected;
  ASSERT_TRUE(one->execute(feeds, expected).is_ok());
  for (ModelRunner* runner : {side_by_side.get(), limited.get()}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      std::vector<Tensor> outputs;
      ASSERT_TRUE(runner->execute(feeds, outputs).is_ok());
      ASSERT_EQ(outputs.size(), 1u);
      EXPECT_EQ(values_of(outputs[0]), values_of(expected[0]));
    }
  }
}

TEST_P(ModelRunnerTest, SmallCnnPlannedMatchesFirstFit) {
  const fs::path samples = env_path("GE_SOURCE_DIR") / "samples" / "models";
  SessionOptions options;
  options.backend = GetParam();
  auto session = Session::create(plugins().host, samples / "small_cnn.onnx", options);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  const std::vector<float> input = read_npy_floats(samples / "small_cnn" / "input_0.npy");
  NamedTensors feeds = {{"input", Tensor::from_vector<float>({1, 3, 16, 16}, input)}};
  auto first_fit = ModelRunner::load((*session)->graph(), backend());
  ASSERT_TRUE(first_fit.is_ok()) << first_fit.status().to_string();
  auto planned = load_planned((*session)->graph(), backend());
  ASSERT_NE(planned, nullptr);
  ASSERT_NE(planned->memory_plan(), nullptr);
  EXPECT_EQ(planned->feature_map_bytes(), planned->memory_plan()->feature_map_bytes);
  std::cout << "small_cnn on " << GetParam() << ": feature map " << planned->feature_map_bytes()
            << " B with the plan, " << (*first_fit)->feature_map_bytes() << " B first-fit\n"
            << format_memory_statistics(planned->memory_plan()->statistics);
  expect_same_outputs(*planned, **first_fit, feeds);
}

// ---- atomic clean (seed 002) ----

/// x [1,2,2,2] and runtime indices i [1,2,2,2] (flat positions in [1,2,4,4]):
/// y = MaxUnpool(x, i), a graph output, and z = Neg(MaxUnpool(Relu(x), i)). MaxUnpool only
/// scatters: both outputs need zeroing before every run.
std::unique_ptr<Graph> unpool_graph() {
  auto g = std::make_unique<Graph>("unpool");
  g->set_opset_import("", 17);
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {1, 2, 2, 2}));
  Value* i = g->add_input("i", TensorDesc::of(DataType::kInt64, {1, 2, 2, 2}));
  auto unpool = [&](Value* in, const std::string& name, const std::vector<std::string>& outputs) {
    Node* node = g->add_node("MaxUnpool", {in, i}, 1, name, outputs);
    node->set_attribute("kernel_shape", Attribute(std::vector<int64_t>{2, 2}));
    node->set_attribute("strides", Attribute(std::vector<int64_t>{2, 2}));
    return node->output(0);
  };
  g->add_output(unpool(x, "unpool_x", {"y"}));
  Value* relu = g->add_node("Relu", {x}, 1, "relu")->output(0);
  g->add_output(g->add_node("Neg", {unpool(relu, "unpool_relu", {"u"})}, 1, "neg", {"z"})->output(0));
  return g;
}

/// Two index sets with different positions: a run on the second after the first shows
/// any value the first left behind.
const std::vector<int64_t> kIndicesA = {0, 5, 10, 15, 16, 21, 26, 31};
const std::vector<int64_t> kIndicesB = {3, 6, 9, 12, 19, 20, 25, 30};
const std::vector<float> kUnpoolX = {1.5f, -2.0f, 3.0f, -4.0f, 5.0f, 6.0f, -7.0f, 8.0f};

NamedTensors unpool_feeds(const std::vector<int64_t>& indices) {
  return {{"x", Tensor::from_vector<float>({1, 2, 2, 2}, kUnpoolX)},
          {"i", Tensor::from_vector<int64_t>({1, 2, 2, 2}, indices)}};
}

/// y and z by hand: zeros with x (or -relu(x)) at the indices.
void expect_unpooled(const std::vector<Tensor>& outputs, const std::vector<int64_t>& indices) {
  std::vector<float> y(32, 0.0f), z(32, 0.0f);
  for (size_t k = 0; k < indices.size(); ++k) {
    y[static_cast<size_t>(indices[k])] = kUnpoolX[k];
    z[static_cast<size_t>(indices[k])] = -std::max(kUnpoolX[k], 0.0f);
  }
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(values_of(outputs[0]), y);
  EXPECT_EQ(values_of(outputs[1]), z);
}

size_t memset_count(const std::vector<Task>& list) {
  return static_cast<size_t>(std::count_if(list.begin(), list.end(),
                                           [](const Task& t) { return std::holds_alternative<MemsetTask>(t); }));
}

TEST_P(ModelRunnerTest, AtomicCleanZeroesEachGroupOncePerRun) {
  auto g = unpool_graph();
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  struct Variant {
    const char* name;
    bool planned;
    int streams;
    size_t super_kernel_bytes;
  };
  for (const Variant& variant : {Variant{"first-fit arena", false, 1, 0}, Variant{"memory plan", true, 1, 0},
                                 Variant{"two streams", false, 2, 0}, Variant{"super kernels", true, 1, 1024}}) {
    SCOPED_TRACE(variant.name);
    ModelRunnerOptions options;
    if (variant.planned) options.memory_assigners = plugins().host.memory_assigners();
    options.memory_plan_options.ops = &plugins().ops;
    options.max_streams = variant.streams;
    options.super_kernel_max_bytes = variant.super_kernel_bytes;
    auto loaded = ModelRunner::load(*g, backend(), options);
    ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
    ModelRunner& runner = **loaded;
    const std::vector<CleanGroup>& groups = runner.clean_groups();
    // Both unpool outputs in one group per stream that writes them: the two branches go
    // on two streams when there are two.
    const int streams = runner.stream_plan().stream_count;
    EXPECT_EQ(streams, variant.streams);
    ASSERT_EQ(groups.size(), static_cast<size_t>(streams));
    size_t blocks = 0;
    for (const CleanGroup& group : groups) {
      blocks += group.blocks;
      EXPECT_EQ(group.offset % 512, 0u);
      EXPECT_LE(group.offset + group.bytes, runner.feature_map_bytes());
    }
    EXPECT_EQ(blocks, 2u);
    if (variant.planned) {
      ASSERT_NE(runner.memory_plan(), nullptr);
      EXPECT_EQ(runner.memory_plan()->clean_groups, groups);
      EXPECT_TRUE(validate_memory_plan(*runner.memory_plan()).is_ok());
    }
    // One memset per group, on its stream, before the first kernel writing it.
    const auto& lists = runner.stream_tasks();
    size_t memsets = 0;
    for (const CleanGroup& group : groups) {
      const std::vector<Task>& list = lists.at(static_cast<size_t>(group.stream));
      EXPECT_EQ(memset_count(list), 1u) << "stream " << group.stream;
      size_t memset_at = list.size(), unpool_at = list.size();
      for (size_t t = 0; t < list.size(); ++t) {
        if (const auto* memset = std::get_if<MemsetTask>(&list[t]); memset != nullptr && memset_at == list.size()) {
          memset_at = t;
          EXPECT_EQ(memset->bytes, group.bytes);
          EXPECT_EQ(memset->value, 0);
        }
        const auto* kernel = std::get_if<KernelTask>(&list[t]);
        if (kernel != nullptr && std::string(kernel->name).find("MaxUnpool") != std::string::npos && unpool_at == list.size()) {
          unpool_at = t;
        }
      }
      EXPECT_LT(memset_at, unpool_at) << "stream " << group.stream;
    }
    for (const auto& list : lists) memsets += memset_count(list);
    EXPECT_EQ(memsets, groups.size());
    if (variant.super_kernel_bytes > 0) EXPECT_GE(runner.super_kernel_count(), 1u);

    // Indices B after A: any stale value of run A would show. Every run runs each memset
    // task once (counted in the device's trace where it keeps one).
    Device& device = backend().device();
    const bool traced = device.set_task_tracing(true).is_ok();
    for (const std::vector<int64_t>* indices : {&kIndicesA, &kIndicesB, &kIndicesA}) {
      (void)device.take_task_trace();
      std::vector<Tensor> outputs;
      Status status = runner.execute(unpool_feeds(*indices), outputs);
      ASSERT_TRUE(status.is_ok()) << status.to_string();
      expect_unpooled(outputs, *indices);
      if (traced) {
        const std::vector<TaskTraceRecord> trace = device.take_task_trace();
        EXPECT_EQ(std::count_if(trace.begin(), trace.end(), [](const TaskTraceRecord& r) { return r.name == "memset"; }),
                  static_cast<std::ptrdiff_t>(groups.size()));
      }
    }
    if (traced) (void)device.set_task_tracing(false);
  }
}

TEST_P(ModelRunnerTest, AtomicCleanHoldsOnACallerFeatureMapFullOfGarbage) {
  auto g = unpool_graph();
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  Device& device = backend().device();
  for (bool planned : {false, true}) {
    SCOPED_TRACE(planned ? "memory plan" : "first-fit arena");
    ModelRunnerOptions options;
    if (planned) options.memory_assigners = plugins().host.memory_assigners();
    options.memory_plan_options.ops = &plugins().ops;
    options.caller_feature_map = true;
    auto loaded = ModelRunner::load(*g, backend(), options);
    ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
    ModelRunner& runner = **loaded;
    ASSERT_EQ(runner.clean_groups().size(), 1u);
    const size_t bytes = runner.feature_map_bytes();
    void* arenas[2] = {device.allocate(bytes, runner.feature_map_alignment()).value(),
                       device.allocate(bytes, runner.feature_map_alignment()).value()};
    const std::vector<char> garbage(bytes, '\x5a');
    int round = 0;
    for (const std::vector<int64_t>* indices : {&kIndicesA, &kIndicesB}) {
      for (void* arena : arenas) {
        // The memset moves with the base: a run on a garbage-filled arena is still right.
        ASSERT_TRUE(device.copy_to_device(arena, garbage.data(), bytes).is_ok());
        std::vector<Tensor> outputs;
        ASSERT_TRUE(runner.bind_feature_map(arena).is_ok());
        Status status = runner.execute(unpool_feeds(*indices), outputs);
        ASSERT_TRUE(status.is_ok()) << status.to_string() << " (round " << round << ")";
        expect_unpooled(outputs, *indices);
        ++round;
      }
    }
    for (void* arena : arenas) device.deallocate(arena);
  }
}

TEST_P(ModelRunnerTest, AtomicCleanInThePerOpExecutor) {
  if (!backend().device().host_accessible()) GTEST_SKIP() << "the per-op executor needs a host-accessible device";
  auto g = unpool_graph();
  ASSERT_TRUE(ops().infer_graph(*g).is_ok());
  auto executor = Executor::create(g->clone(), backend(), ops());
  ASSERT_TRUE(executor.is_ok()) << executor.status().to_string();
  // Pooled storage is not zeroed: runs after the first reuse the blocks of earlier ones.
  for (const std::vector<int64_t>* indices : {&kIndicesA, &kIndicesB, &kIndicesA, &kIndicesB}) {
    std::vector<Tensor> outputs;
    Status status = (*executor)->run(unpool_feeds(*indices), outputs);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    expect_unpooled(outputs, *indices);
  }
  EXPECT_GT((*executor)->pool().statistics().hits, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ModelRunnerTest, ::testing::Values("cpu", "npu_sim"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace ge
