// Caller-bound outputs (RunOptions::bound_outputs, issue 39): a run writes a bound output
// into the caller's buffer on every way of running (the task sink, the per-op plans of
// shapes that change every run, the simulated NPU's staging), in place where a kernel
// produces it, and refuses a binding that cannot be right.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ge/graph_text.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

Result<std::unique_ptr<Session>> session_for(const std::string& text, const SessionOptions& options = {}) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx_std", "cpu", "npu_sim"}));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
  return Session::create(env.host(), std::move(graph), options);
}

std::vector<float> floats(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }

std::vector<float> random_floats(std::mt19937& rng, size_t count) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> data(count);
  for (float& v : data) v = value(rng);
  return data;
}

constexpr const char* kDense = R"(graph main (opset ""=17) {
  input %x : float32[2,4]
  init %w : float32[4,3] = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 1, 0.75, 0.5, -1]
  %h = MatMul(%x, %w) "dense"
  %y = Relu(%h) "relu"
  output %y
  output %h
})";

/// A decoder-like step (as in dynamic_shapes_test): a cache past[P,3] grows by the new
/// rows; `present` is what a decode loop binds to a buffer it reuses.
constexpr const char* kGrowingCache = R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  input %past : float32[P,3]
  init %w : float32[4,3] = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 1, 0.75, 0.5, -1]
  %h = MatMul(%x, %w) "dense"
  %present = Concat(%past, %h) {axis: int = 0} "append"
  %kt = Transpose(%present) {perm: ints = [1, 0]} "keys"
  %scores = MatMul(%h, %kt) "scores"
  %p = Softmax(%scores) {axis: int = -1} "softmax"
  %rows = Shape(%present) {end: int = 1} "rows"
  output %p
  output %present
  output %rows
})";

// On the task sink (cpu, a static graph) and through the simulated NPU's staging buffers,
// the bound output is the caller's buffer, holds what an unbound run returns, and the
// outputs not bound still come from the engine.
TEST(BoundOutputs, StaticGraphsWriteIntoTheCallersBuffer) {
  for (const std::string backend : {"cpu", "npu_sim"}) {
    SCOPED_TRACE(backend);
    SessionOptions options;
    options.backend = backend;
    auto session = session_for(kDense, options);
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    if (backend == "cpu") {
      EXPECT_TRUE((*session)->uses_task_sink());
    }
    std::mt19937 rng(3);
    std::vector<float> buffer(6, -99.0f);
    for (int run = 0; run < 3; ++run) {
      const NamedTensors inputs = {{"x", Tensor::from_vector<float>({2, 4}, random_floats(rng, 8))}};
      std::vector<Tensor> want;
      ASSERT_TRUE((*session)->run(inputs, want).is_ok());
      const NamedTensors bound = {{"y", Tensor::borrow(DataType::kFloat32, {2, 3}, buffer.data())}};
      RunOptions run_options;
      run_options.bound_outputs = &bound;
      std::vector<Tensor> got;
      Status s = (*session)->run(inputs, got, run_options);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      ASSERT_EQ(got.size(), 2u);
      EXPECT_EQ(got[0].raw_data(), buffer.data()) << "the output returned is the caller's tensor";
      EXPECT_EQ(buffer, floats(want[0])) << "run " << run;
      EXPECT_NE(got[1].raw_data(), buffer.data());
      EXPECT_EQ(floats(got[1]), floats(want[1]));
    }
  }
}

// A decode loop binds `present` to a buffer of the new length at every step: the per-op
// plans (one signature per step) write it in place through the Concat's kernel, and a
// folded shape value bound too is copied into its buffer. Same numbers as unbound runs.
TEST(BoundOutputs, ADecodeLoopBindsItsCacheOnPlansOfNewShapes) {
  auto session = session_for(kGrowingCache);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  SessionOptions per_op;
  per_op.specialisation_cache_size = 0;
  auto reference = session_for(kGrowingCache, per_op);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  std::mt19937 rng(5);
  std::vector<float> cache;
  for (int step = 0; step < 12; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto p = static_cast<int64_t>(cache.size() / 3);
    const NamedTensors inputs = {{"x", Tensor::from_vector<float>({1, 4}, random_floats(rng, 4))},
                                 {"past", Tensor::from_vector<float>({p, 3}, cache)}};
    std::vector<float> present(static_cast<size_t>((p + 1) * 3), -99.0f);
    std::vector<int64_t> rows(1, -1);
    const NamedTensors bound = {{"present", Tensor::borrow(DataType::kFloat32, {p + 1, 3}, present.data())},
                                {"rows", Tensor::borrow(DataType::kInt64, {1}, rows.data())}};
    RunOptions options;
    options.bound_outputs = &bound;
    std::vector<Tensor> got, want;
    Status s = (*session)->run(inputs, got, options);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_TRUE((*reference)->run(inputs, want).is_ok());
    EXPECT_EQ(got.at(1).raw_data(), present.data());
    EXPECT_EQ(present, floats(want.at(1)));
    EXPECT_EQ(rows, (std::vector<int64_t>{p + 1}));
    EXPECT_EQ(got.at(2).raw_data(), rows.data());
    const std::vector<float> g = floats(got.at(0)), w = floats(want.at(0));
    ASSERT_EQ(g.size(), w.size());
    for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(g[k], w[k], 1e-6f);
    cache = present;
  }
  EXPECT_EQ((*session)->specialisations()->statistics().misses, 0u) << "every step ran on a per-op plan";
}

// A binding that cannot be right fails before or instead of writing, naming the output:
// the wrong shape or dtype, a name the model has no output of, one bound twice, and a
// buffer that overlaps an input (the run would read what it overwrote) or another bound
// output. The session keeps running afterwards.
TEST(BoundOutputs, BindingsThatCannotBeRightAreRefused) {
  auto session = session_for(kGrowingCache);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<float> past(6, 0.5f), x(4, 1.0f), buffer(64, 0.0f);
  const NamedTensors inputs = {{"x", Tensor::borrow(DataType::kFloat32, {1, 4}, x.data())},
                               {"past", Tensor::borrow(DataType::kFloat32, {2, 3}, past.data())}};
  auto refused = [&](const NamedTensors& bound, const std::string& expected) {
    RunOptions options;
    options.bound_outputs = &bound;
    std::vector<Tensor> out;
    Status s = (*session)->run(inputs, out, options);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find(expected), std::string::npos) << s.message();
  };
  refused({{"present", Tensor::borrow(DataType::kFloat32, {2, 3}, buffer.data())}},
          "output 'present' is bound to float32[2,3], but this run computes float32[3,3]");
  refused({{"present", Tensor::borrow(DataType::kFloat64, {3, 3}, buffer.data())}}, "output 'present' is bound to float64[3,3]");
  refused({{"logits", Tensor::borrow(DataType::kFloat32, {1, 3}, buffer.data())}},
          "bound output 'logits' is not an output of the model (its outputs: 'p', 'present', 'rows')");
  refused({{"present", Tensor::borrow(DataType::kFloat32, {3, 3}, buffer.data())},
           {"present", Tensor::borrow(DataType::kFloat32, {3, 3}, buffer.data() + 16)}},
          "output 'present' is bound twice");
  refused({{"present", Tensor::borrow(DataType::kFloat32, {3, 3}, past.data())}},
          "bound output 'present' overlaps the memory of input 'past'");
  refused({{"present", Tensor::borrow(DataType::kFloat32, {3, 3}, buffer.data())},
           {"p", Tensor::borrow(DataType::kFloat32, {1, 3}, buffer.data() + 4)}},
          "bound output 'p' overlaps the memory of bound output 'present'");
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->run(inputs, out).is_ok());
  EXPECT_EQ(out.at(1).shape(), (std::vector<int64_t>{3, 3}));
}

}  // namespace
}  // namespace ge
