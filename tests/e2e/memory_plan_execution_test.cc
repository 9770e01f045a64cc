// Execution out of a memory plan with the real ONNX op library, cpu backend and memory
// assigner plugins: random DAGs run from the full plan (in place, views, continuous
// Concat, every assigner) give bit-identical outputs to the no-reuse plan, and Session
// runs static-shape models through the task sink.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "ge/executor.h"
#include "ge/graph_text.h"
#include "ge/memory_plan.h"
#include "ge/runtime/model_runner.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

namespace fs = std::filesystem;
using pass_testing::PluginEnvironment;

const std::vector<std::string> kPlugins = {"onnx_std", "cpu", "naive", "greedy_by_size", "hill_climb"};

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

std::vector<std::shared_ptr<MemoryAssigner>> naive_assigner() {
  for (const auto& assigner : PluginEnvironment::get().host().memory_assigners()) {
    if (assigner->name() == "naive") return {assigner};
  }
  return {};
}

/// Random DAGs over float32 values of a few small shapes.
class RandomGraphBuilder {
 public:
  explicit RandomGraphBuilder(uint32_t seed) : rng_(seed) {}

  std::unique_ptr<Graph> build(int trial, NamedTensors& feeds) {
    auto g = std::make_unique<Graph>("random" + std::to_string(trial));
    g->set_opset_import("", 17);
    pool_.clear();
    produced_.clear();
    const std::vector<std::vector<int64_t>> input_shapes = {{1, 8}, {8}, {2, 4}, {1, 4}};
    const int inputs = 1 + static_cast<int>(rng_() % 3);
    for (int i = 0; i < inputs; ++i) {
      const std::vector<int64_t> shape = input_shapes[rng_() % input_shapes.size()];
      const std::string name = "in" + std::to_string(i);
      pool_.push_back(g->add_input(name, TensorDesc::of(DataType::kFloat32, shape)));
      feeds.emplace_back(name, random_tensor(shape));
    }
    if (rng_() % 2 == 0) pool_.push_back(g->add_initializer("w", random_tensor({1, 8})));
    const int nodes = 3 + static_cast<int>(rng_() % 24);
    for (int n = 0; n < nodes; ++n) add_random_node(*g, "n" + std::to_string(n));
    for (Value* v : produced_) {
      if (!v->has_uses() || rng_() % 5 == 0) g->add_output(v);
    }
    if (rng_() % 8 == 0) g->add_output(pool_[0]);                           // a pass-through input
    if (rng_() % 8 == 0 && !produced_.empty()) g->add_output(produced_[0]);  // maybe repeated
    return g;
  }

 private:
  static std::vector<int64_t> shape_of(const Value* v) { return v->desc().static_dims(); }
  static int64_t count(const std::vector<int64_t>& shape) { return element_count(shape); }

  Tensor random_tensor(const std::vector<int64_t>& shape) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> data(static_cast<size_t>(count(shape)));
    for (float& f : data) f = normal(rng_);
    return Tensor::from_vector<float>(shape, data);
  }

  Value* pick() { return pool_[rng_() % pool_.size()]; }

  /// A value whose shape `a`'s broadcasts with to `a`'s shape and element count.
  Value* partner(const Value* a) {
    std::vector<Value*> fits;
    const std::vector<int64_t> s = shape_of(a);
    for (Value* v : pool_) {
      const std::vector<int64_t> t = shape_of(v);
      const bool same = t == s;
      const bool row = s.size() == 2 && s[0] == 1 && t.size() == 1 && t[0] == s[1];  // [1,n] with [n]
      if (same || row) fits.push_back(v);
    }
    return fits[rng_() % fits.size()];
  }

  void add_random_node(Graph& g, const std::string& name) {
    static const char* kUnary[] = {"Relu", "Neg", "Tanh", "Sigmoid", "Abs"};
    static const char* kBinary[] = {"Add", "Sub", "Mul", "Max"};
    const uint32_t kind = rng_() % 100;
    Value* a = pick();
    Node* node = nullptr;
    if (kind < 30) {
      node = g.add_node(kUnary[rng_() % 5], {a}, 1, name);
    } else if (kind < 60) {
      Value* b = partner(a);
      node = rng_() % 2 == 0 ? g.add_node(kBinary[rng_() % 4], {a, b}, 1, name)
                             : g.add_node(kBinary[rng_() % 4], {b, a}, 1, name);
    } else if (kind < 78) {
      node = add_concat(g, a, name);
    } else if (kind < 92) {
      node = add_reshape(g, a, name);
    } else {
      node = g.add_node(rng_() % 2 == 0 ? "Identity" : "Flatten", {a}, 1, name);
    }
    if (node == nullptr) node = g.add_node(kUnary[rng_() % 5], {a}, 1, name);
    pool_.push_back(node->output(0));
    produced_.push_back(node->output(0));
    // Shapes are needed for the next picks.
    (void)PluginEnvironment::get().ops().infer_graph(g);
  }

  /// Rank 1 along axis 0, rank 2 along axis 1 (contiguous per input when dim 0 is 1).
  Node* add_concat(Graph& g, Value* a, const std::string& name) {
    const std::vector<int64_t> s = shape_of(a);
    std::vector<Value*> inputs = {a};
    const int more = 1 + static_cast<int>(rng_() % 2);
    int64_t total = count(s);
    for (int k = 0; k < more; ++k) {
      std::vector<Value*> fits;
      for (Value* v : pool_) {
        const std::vector<int64_t> t = shape_of(v);
        if (t.size() == s.size() && (s.size() == 1 || t[0] == s[0])) fits.push_back(v);
      }
      Value* v = fits[rng_() % fits.size()];
      if (total + count(shape_of(v)) > 64) break;
      total += count(shape_of(v));
      inputs.push_back(v);
    }
    if (inputs.size() < 2) return nullptr;
    std::shuffle(inputs.begin(), inputs.end(), rng_);
    Node* node = g.add_node("Concat", inputs, 1, name);
    node->set_attribute("axis", Attribute(int64_t{s.size() == 1 ? 0 : 1}));
    return node;
  }

  Node* add_reshape(Graph& g, Value* a, const std::string& name) {
    const int64_t n = count(shape_of(a));
    std::vector<std::vector<int64_t>> targets = {{n}, {1, n}};
    if (n % 2 == 0) targets.push_back({2, n / 2});
    const std::vector<int64_t> target = targets[rng_() % targets.size()];
    Value* shape = g.add_initializer(name + "_shape", Tensor::from_vector<int64_t>({static_cast<int64_t>(target.size())}, target));
    return g.add_node("Reshape", {a, shape}, 1, name);
  }

  std::mt19937 rng_;
  std::vector<Value*> pool_, produced_;
};

Result<std::unique_ptr<ModelRunner>> load(const Graph& g, std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                          const MemoryPlanOptions& plan_options) {
  ModelRunnerOptions options;
  options.memory_assigners = std::move(assigners);
  options.memory_plan_options = plan_options;
  options.memory_plan_options.ops = &PluginEnvironment::get().ops();
  return ModelRunner::load(g, *PluginEnvironment::get().cpu(), options);
}

TEST(MemoryPlanExecution, RandomGraphsMatchTheNoReusePlan) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require(kPlugins).is_ok()) << env.require(kPlugins).to_string();
  ASSERT_EQ(naive_assigner().size(), 1u);
  RandomGraphBuilder builder(20261130);
  size_t in_place = 0, views = 0, slices = 0, skipped = 0;
  constexpr int kTrials = 1000;
  for (int trial = 0; trial < kTrials; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    NamedTensors feeds;
    std::unique_ptr<Graph> g = builder.build(trial, feeds);
    Status inferred = env.ops().infer_graph(*g);
    ASSERT_TRUE(inferred.is_ok()) << inferred.to_string() << "\n" << print_graph(*g);

    MemoryPlanOptions full;
    full.order = trial % 3 == 1 ? ExecutionOrder::kMemoryPriority : ExecutionOrder::kStable;
    full.zero_copy_io = trial % 4 != 2;
    MemoryPlanOptions no_reuse;
    no_reuse.in_place = no_reuse.views = no_reuse.continuous_concat = false;
    no_reuse.zero_copy_io = full.zero_copy_io;

    auto planned = load(*g, env.host().memory_assigners(), full);
    ASSERT_TRUE(planned.is_ok()) << planned.status().to_string() << "\n" << print_graph(*g);
    auto reference = load(*g, naive_assigner(), no_reuse);
    ASSERT_TRUE(reference.is_ok()) << reference.status().to_string() << "\n" << print_graph(*g);
    for (const auto* runner : {&*planned, &*reference}) {
      const GraphMemoryPlan* plan = (*runner)->memory_plan();
      ASSERT_NE(plan, nullptr);
      Status valid = validate_memory_plan(*plan);
      ASSERT_TRUE(valid.is_ok()) << valid.to_string() << "\n" << print_graph(*g);
      EXPECT_EQ((*runner)->feature_map_bytes(), plan->feature_map_bytes);
    }
    const MemoryStatistics& stats = (*planned)->memory_plan()->statistics;
    in_place += stats.in_place;
    views += stats.views;
    slices += stats.concat_slices;
    size_t planned_tasks = 0, reference_tasks = 0;
    for (const auto& list : (*planned)->stream_tasks()) planned_tasks += list.size();
    for (const auto& list : (*reference)->stream_tasks()) reference_tasks += list.size();
    EXPECT_EQ(reference_tasks, g->node_count());
    skipped += reference_tasks - std::min(reference_tasks, planned_tasks);

    std::vector<Tensor> expected, got;
    Status ran = (*reference)->execute(feeds, expected);
    ASSERT_TRUE(ran.is_ok()) << ran.to_string();
    ran = (*planned)->execute(feeds, got);
    ASSERT_TRUE(ran.is_ok()) << ran.to_string() << "\n" << print_graph(*g);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t o = 0; o < got.size(); ++o) {
      ASSERT_TRUE(same_bits(got[o], expected[o])) << "output " << o << "\n" << print_graph(*g);
    }
    if (trial % 4 == 0) {
      // And the per-op executor agrees with both.
      auto executor = Executor::create(g->clone(), *env.cpu(), env.ops());
      ASSERT_TRUE(executor.is_ok()) << executor.status().to_string();
      std::vector<Tensor> per_op;
      ASSERT_TRUE((*executor)->run(feeds, per_op).is_ok());
      ASSERT_EQ(per_op.size(), got.size());
      for (size_t o = 0; o < got.size(); ++o) ASSERT_TRUE(same_bits(got[o], per_op[o])) << "output " << o;
    }
  }
  // The graphs exercise what the plan merges and what the runner skips.
  EXPECT_GT(in_place, 200u);
  EXPECT_GT(views, 200u);
  EXPECT_GT(slices, 100u);
  EXPECT_GT(skipped, 200u);
  std::cout << kTrials << " graphs: " << in_place << " in place, " << views << " views, " << slices
            << " concat slices, " << skipped << " tasks skipped\n";
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

fs::path samples_dir() {
  const char* source = std::getenv("GE_SOURCE_DIR");
  return fs::path(source != nullptr ? source : ".") / "samples" / "models";
}

/// The names of `session`'s compile stages, checking that each starts no earlier than
/// the one before it ends, except the passes, which lie inside "passes".
std::vector<std::string> checked_stage_names(const Session& session) {
  std::vector<std::string> names;
  const std::vector<StageTiming>& stages = session.stage_timings();
  const StageTiming* passes = nullptr;
  std::chrono::steady_clock::time_point end{};
  for (const StageTiming& stage : stages) {
    EXPECT_GE(stage.duration.count(), 0) << stage.name;
    if (passes != nullptr && stage.start + stage.duration <= passes->start + passes->duration &&
        stage.start >= passes->start) {
      names.push_back("pass:" + stage.name);
      continue;
    }
    EXPECT_GE(stage.start, end) << stage.name << " starts before the stage before it ends";
    end = stage.start + stage.duration;
    if (stage.name == "passes") passes = &stage;
    names.push_back(stage.name);
  }
  return names;
}

TEST(MemoryPlanExecution, SessionRunsSmallCnnThroughTheTaskSink) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require(kPlugins).is_ok()) << env.require(kPlugins).to_string();
  auto sunk = Session::create(env.host(), samples_dir() / "small_cnn.onnx", SessionOptions{});
  ASSERT_TRUE(sunk.is_ok()) << sunk.status().to_string();
  SessionOptions per_op_options;
  per_op_options.task_sink = false;
  auto per_op = Session::create(env.host(), samples_dir() / "small_cnn.onnx", per_op_options);
  ASSERT_TRUE(per_op.is_ok()) << per_op.status().to_string();
  EXPECT_TRUE((*sunk)->uses_task_sink());
  EXPECT_FALSE((*per_op)->uses_task_sink());
  EXPECT_EQ((*sunk)->describe_execution().rfind("task sink: 1 runner(s), 1 stream(s), feature map ", 0), 0u)
      << (*sunk)->describe_execution();
  EXPECT_EQ((*per_op)->describe_execution().rfind("per op: ", 0), 0u) << (*per_op)->describe_execution();
  std::vector<std::string> stages = checked_stage_names(**sunk);
  ASSERT_GE(stages.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(stages.begin(), stages.begin() + 4),
            (std::vector<std::string>{"parse", "verify", "infer shapes", "passes"}));
  // Compiled with no device, then loaded on it.
  EXPECT_EQ(stages[stages.size() - 2], "compile (task sink)");
  EXPECT_EQ(stages.back(), "load (task sink)");
  EXPECT_EQ(stages.size(), 6 + (*sunk)->pass_timings().size()) << "one stage per pass inside 'passes'";
  for (size_t i = 0; i < (*sunk)->pass_timings().size(); ++i) {
    EXPECT_EQ(stages[4 + i], "pass:" + (*sunk)->pass_timings()[i].name);
  }
  EXPECT_EQ(checked_stage_names(**per_op).back(), "load (per-op executor)");
  EXPECT_EQ((*per_op)->memory_statistics(), nullptr);
  const MemoryStatistics* stats = (*sunk)->memory_statistics();
  ASSERT_NE(stats, nullptr);
  EXPECT_GT(stats->feature_map_bytes, 0u);
  EXPECT_LE(stats->lower_bound_bytes, stats->feature_map_bytes);
  EXPECT_LE(stats->feature_map_bytes, stats->no_reuse_bytes);
  EXPECT_GT(stats->weights_bytes, 0u);
  EXPECT_GT(stats->io_bytes, 0u);
  EXPECT_FALSE(stats->assigner.empty());
  std::cout << format_memory_statistics(*stats);

  const std::vector<float> input = read_npy_floats(samples_dir() / "small_cnn" / "input_0.npy");
  ASSERT_EQ(input.size(), 3u * 16 * 16);
  NamedTensors feeds = {{"input", Tensor::from_vector<float>({1, 3, 16, 16}, input)}};
  std::vector<Tensor> got, expected;
  for (int round = 0; round < 2; ++round) {
    Status a = (*sunk)->run(feeds, got);
    ASSERT_TRUE(a.is_ok()) << a.to_string();
    Status b = (*per_op)->run(feeds, expected);
    ASSERT_TRUE(b.is_ok()) << b.to_string();
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(expected.size(), 1u);
    EXPECT_TRUE(same_bits(got[0], expected[0]));
  }
  // samples/models/small_cnn/output_0.pb, computed by the numpy reference.
  const std::vector<float> numpy = {0.0013369298540055752f, 0.03526658937335014f, 0.07382801175117493f, 0.7016708850860596f,
                                    0.005427271127700806f,  0.10038092732429504f, 0.002177753020077944f, 0.04954397678375244f,
                                    0.030268076807260513f,  9.960094030248001e-05f};
  ASSERT_EQ(got[0].element_count(), 10);
  for (size_t i = 0; i < numpy.size(); ++i) EXPECT_NEAR(got[0].values<float>()[i], numpy[i], 1e-5f) << "class " << i;

  std::vector<RuntimeValue> values;
  Status as_values = (*sunk)->run_values({{"input", RuntimeValue::of(feeds[0].second)}}, values);
  ASSERT_TRUE(as_values.is_ok()) << as_values.to_string();
  ASSERT_EQ(values.size(), 1u);
  EXPECT_TRUE(same_bits(values[0].tensor, expected[0]));
}

TEST(MemoryPlanExecution, TaskSinkRejectsBadInputsLikeThePerOpExecutor) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require(kPlugins).is_ok()) << env.require(kPlugins).to_string();
  const char* text = R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  input %y : float32[2,3]
  %s = Add(%x, %y) "add"
  %r = Relu(%s) "relu"
  output %r
})";
  SessionOptions per_op_options;
  per_op_options.task_sink = false;
  auto sunk = Session::create(env.host(), parse_graph(text).value(), SessionOptions{});
  auto per_op = Session::create(env.host(), parse_graph(text).value(), per_op_options);
  ASSERT_TRUE(sunk.is_ok()) << sunk.status().to_string();
  ASSERT_TRUE(per_op.is_ok()) << per_op.status().to_string();
  ASSERT_TRUE((*sunk)->uses_task_sink());
  const Tensor good = Tensor::from_vector<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  const std::vector<NamedTensors> bad = {
      {{"x", good}, {"z", good}},                                            // unknown
      {{"x", good}},                                                         // not bound
      {{"x", good}, {"y", Tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6})}},  // shape
      {{"x", good}, {"y", Tensor::from_vector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})}},  // dtype
      {{"x", good}, {"x", good}},                                            // twice
  };
  for (const NamedTensors& inputs : bad) {
    std::vector<Tensor> a, b;
    Status from_sink = (*sunk)->run(inputs, a);
    Status from_executor = (*per_op)->run(inputs, b);
    EXPECT_FALSE(from_sink.is_ok());
    EXPECT_EQ(from_sink.code(), from_executor.code());
    EXPECT_EQ(from_sink.message(), from_executor.message());
  }
  std::vector<Tensor> out;
  ASSERT_TRUE((*sunk)->run({{"y", good}, {"x", good}}, out).is_ok());
  EXPECT_EQ(std::vector<float>(out[0].values<float>().begin(), out[0].values<float>().end()),
            (std::vector<float>{2, 0, 6, 0, 10, 0}));
}

TEST(MemoryPlanExecution, DynamicShapesFallBackToThePerOpExecutor) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require(kPlugins).is_ok()) << env.require(kPlugins).to_string();
  auto session = Session::create(env.host(), parse_graph(R"(graph main (opset ""=17) {
  input %x : float32[6]
  %nz = NonZero(%x) "nz"
  output %nz
})").value(), SessionOptions{});
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  EXPECT_FALSE((*session)->uses_task_sink());
  EXPECT_EQ((*session)->memory_statistics(), nullptr);
  std::vector<std::string> stages = checked_stage_names(**session);
  ASSERT_GE(stages.size(), 3u);
  EXPECT_EQ(stages.front(), "verify") << "a graph given directly has no parse stage";
  EXPECT_EQ(stages[stages.size() - 2], "try task sink");
  EXPECT_EQ(stages.back(), "load (per-op executor)");
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->run({{"x", Tensor::from_vector<float>({6}, {0, 1, 0, 2, 0, 3})}}, out).is_ok());
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{1, 3}));
}

TEST(MemoryPlanExecution, GeRunVerbosePrintsMemoryStatistics) {
  const fs::path model = samples_dir() / "small_cnn.onnx";
  const std::string command = std::string(GE_RUN_PATH) + " " + model.string() + " --input input=" +
                              (samples_dir() / "small_cnn" / "input_0.npy").string() + " -v 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  ASSERT_EQ(status, 0) << output;
  for (const char* expected : {"memory plan: assigner '", "planned in ", "feature map ", "no reuse ", "lower bound ",
                               ", ratio ", "weights ", "zero-copy I/O "}) {
    EXPECT_NE(output.find(expected), std::string::npos) << "expected to find: " << expected << "\n" << output;
  }
}

}  // namespace
}  // namespace ge
