// The executor on data-dependent shapes with the real ONNX op library and cpu backend:
// repeated runs whose data changes an output's shape, and loop bodies whose values
// change shape from one iteration to the next.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "ge/graph_text.h"
#include "ge/session.h"
#include "kernel_trace.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

Result<std::unique_ptr<Session>> session_for(const std::string& text, const SessionOptions& options = {}) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx_std", "cpu"}));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
  return Session::create(env.host(), std::move(graph), options);
}

/// A dense layer, a softmax and a Shape-driven Reshape over rows of a symbolic count.
constexpr const char* kSymbolicRows = R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  init %w : float32[4,3] = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 1, 0.75, 0.5, -1]
  init %b : float32[3] = [0.1, -0.2, 0.3]
  init %flat : int64[1] = [-1]
  %h = MatMul(%x, %w) "dense"
  %hb = Add(%h, %b) "bias"
  %r = Relu(%hb) "relu"
  %p = Softmax(%r) {axis: int = -1} "softmax"
  %s = Shape(%p) "shape"
  %f = Reshape(%p, %flat) "flatten"
  output %f
  output %s
})";

std::vector<float> floats(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }

Tensor random_rows(std::mt19937& rng, int64_t rows) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> data(static_cast<size_t>(rows * 4));
  for (float& v : data) v = value(rng);
  return Tensor::from_vector<float>({rows, 4}, data);
}

std::vector<int64_t> int64s(const Tensor& t) { return {t.values<int64_t>().begin(), t.values<int64_t>().end()}; }

// With specialise_after 1 every signature compiles on its first run; with 2 (the
// default) a signature runs on the per-op plans until it comes back.
class SpecialiseAfter : public ::testing::TestWithParam<int> {};

TEST_P(SpecialiseAfter, TwentySignaturesMatchThePerOpExecutor) {
  SessionOptions cached;
  cached.specialisation_cache_size = 3;  // fewer than the signatures: entries get evicted
  cached.specialise_after = GetParam();
  auto specialised = session_for(kSymbolicRows, cached);
  ASSERT_TRUE(specialised.is_ok()) << specialised.status().to_string();
  ASSERT_TRUE((*specialised)->specialises());
  EXPECT_EQ((*specialised)->describe_execution().rfind("specialised per input shape: 0 specialisation(s) held", 0), 0u)
      << (*specialised)->describe_execution();
  SessionOptions per_op;
  per_op.specialisation_cache_size = 0;
  auto reference = session_for(kSymbolicRows, per_op);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  ASSERT_FALSE((*reference)->specialises());
  EXPECT_EQ((*reference)->describe_execution().rfind("per op: ", 0), 0u) << (*reference)->describe_execution();

  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> rows(1, 9);
  std::set<int64_t> seen;
  std::map<int64_t, int> sightings;
  uint64_t first_sightings = 0;
  for (int i = 0; i < 20; ++i) {
    const int64_t n = rows(rng);
    seen.insert(n);
    first_sightings += ++sightings[n] < GetParam() ? 1 : 0;
    const Tensor x = random_rows(rng, n);
    std::vector<Tensor> got, want;
    ASSERT_TRUE((*specialised)->run({{"x", x}}, got).is_ok()) << "rows " << n;
    ASSERT_TRUE((*reference)->run({{"x", x}}, want).is_ok());
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].shape(), (std::vector<int64_t>{n * 3}));
    EXPECT_EQ(int64s(got[1]), (std::vector<int64_t>{n, 3}));
    const std::vector<float> g = floats(got[0]), w = floats(want[0]);
    ASSERT_EQ(g.size(), w.size());
    for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(g[k], w[k], 1e-6f) << "rows " << n << " element " << k;
  }
  const SpecialisationStatistics& stats = (*specialised)->specialisations()->statistics();
  if (GetParam() == 1) EXPECT_GE(stats.misses, seen.size());
  EXPECT_GE(stats.unseen, GetParam() == 1 ? 0u : first_sightings);
  EXPECT_EQ(stats.hits + stats.misses + stats.unseen, 20u);
  EXPECT_EQ(stats.sunk, stats.misses) << "every signature of this graph is static once known";
  EXPECT_EQ(stats.per_op, 0u);
  EXPECT_LE(stats.entries, 3u);
  EXPECT_EQ(stats.evictions, stats.misses - stats.entries);
}

INSTANTIATE_TEST_SUITE_P(ShapeSpecialisation, SpecialiseAfter, ::testing::Values(1, 2));

/// A decoder-like step: rows x[N,4] through a dense layer, appended to a cache past[P,3]
/// (present [P+N,3]), attention scores of the new rows over the whole cache, softmaxed.
constexpr const char* kGrowingCache = R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  input %past : float32[P,3]
  init %w : float32[4,3] = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 1, 0.75, 0.5, -1]
  %h = MatMul(%x, %w) "dense"
  %present = Concat(%past, %h) {axis: int = 0} "append"
  %kt = Transpose(%present) {perm: ints = [1, 0]} "keys"
  %scores = MatMul(%h, %kt) "scores"
  %p = Softmax(%scores) {axis: int = -1} "softmax"
  output %p
  output %present
})";

// A loop whose signature changes on every run (P grows by one, as in decoding) compiles
// nothing: each step runs on a per-op plan that reuses the kernels of every node whose
// shapes the step did not change, and matches the plain per-op executor. A signature
// that comes back is compiled then.
TEST(ShapeSpecialisation, ASignatureSeenOnceRunsOnPlansThatShareKernels) {
  auto session = session_for(kGrowingCache);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  ASSERT_TRUE((*session)->specialises());
  SessionOptions per_op;
  per_op.specialisation_cache_size = 0;
  auto reference = session_for(kGrowingCache, per_op);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> cache;
  constexpr int kSteps = 12;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> row(4);
    for (float& v : row) v = value(rng);
    const int64_t p = static_cast<int64_t>(cache.size() / 3);
    const NamedTensors inputs = {{"x", Tensor::from_vector<float>({1, 4}, row)},
                                 {"past", Tensor::from_vector<float>({p, 3}, cache)}};
    std::vector<Tensor> got, want;
    Status s = (*session)->run(inputs, got);
    ASSERT_TRUE(s.is_ok()) << "step " << step << ": " << s.to_string();
    ASSERT_TRUE((*reference)->run(inputs, want).is_ok());
    ASSERT_EQ(got.at(0).shape(), (std::vector<int64_t>{1, p + 1}));
    ASSERT_EQ(got.at(1).shape(), (std::vector<int64_t>{p + 1, 3}));
    for (size_t k = 0; k < 2; ++k) {
      const std::vector<float> g = floats(got[k]), w = floats(want.at(k));
      ASSERT_EQ(g.size(), w.size());
      for (size_t e = 0; e < g.size(); ++e) EXPECT_NEAR(g[e], w[e], 1e-6f) << "step " << step << " output " << k;
    }
    cache = floats(got[1]);
  }
  const SpecialisationStatistics& stats = (*session)->specialisations()->statistics();
  EXPECT_EQ(stats.misses, 0u) << "no signature was compiled";
  EXPECT_EQ(stats.unseen, static_cast<uint64_t>(kSteps));
  const std::optional<KernelStatistics> kernels = (*session)->kernel_statistics();
  ASSERT_TRUE(kernels.has_value());
  // The dense layer's shapes never change: prepared once, reused by every later step.
  EXPECT_GE(kernels->reused, static_cast<uint64_t>(kSteps - 1));
  // A signature run again is compiled on its second run, and gives the same numbers.
  const NamedTensors again = {{"x", Tensor::from_vector<float>({1, 4}, {0.5f, -0.25f, 1.0f, 0.0f})},
                              {"past", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6})}};
  std::vector<Tensor> first, second;
  ASSERT_TRUE((*session)->run(again, first).is_ok());
  ASSERT_TRUE((*session)->run(again, second).is_ok());
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.sunk, 1u);
  const std::vector<float> a = floats(first.at(0)), b = floats(second.at(0));
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-6f);
}

// The shape arithmetic an exporter writes before a Reshape (Shape, Gather, Unsqueeze,
// Concat, a Shape with start/end) is computed when a signature's plan is made: the Reshape
// then has static dims and its kernel comes with the plan. Each plan computes its own.
TEST(ShapeSpecialisation, APlanComputesTheShapeValuesOfItsSignature) {
  SessionOptions per_signature;
  per_signature.specialise_after = 100;  // every run on the per-op plans
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  init %zero : int64[] = [0]
  init %two : int64[] = [2]
  init %pair : int64[1] = [2]
  init %axes : int64[1] = [0]
  %s = Shape(%x) "shape"
  %n = Gather(%s, %zero) {axis: int = 0} "rows"
  %two_n = Mul(%n, %two) "double"
  %rows = Unsqueeze(%two_n, %axes) "as_list"
  %tail = Shape(%x) {start: int = -1} "last_dim"
  %half = Div(%tail, %pair) "half"
  %target = Concat(%rows, %half) {axis: int = 0} "target"
  %y = Reshape(%x, %target) "reshape"
  %z = Relu(%y) "relu"
  output %z
  output %target
})", per_signature);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::mt19937 rng(2);
  for (int64_t n : {3, 5, 3, 1}) {
    const Tensor x = random_rows(rng, n);
    std::vector<Tensor> out;
    Status s = (*session)->run({{"x", x}}, out);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{2 * n, 2}));
    EXPECT_EQ(int64s(out.at(1)), (std::vector<int64_t>{2 * n, 2}));
    const std::vector<float> in = floats(x), got = floats(out[0]);
    ASSERT_EQ(in.size(), got.size());
    for (size_t k = 0; k < in.size(); ++k) EXPECT_EQ(got[k], std::max(in[k], 0.0f)) << "rows " << n;
  }
  const std::optional<KernelStatistics> kernels = (*session)->kernel_statistics();
  ASSERT_TRUE(kernels.has_value());
  // Rows 3 again reuses the first plan's kernels (it may still be cached: at least the
  // Relu and Reshape of rows 1 are new, and nothing is prepared per op at run time).
  EXPECT_GT(kernels->reused, 0u);
  EXPECT_EQ(kernels->folded, 3u * 7u) << "three plans (rows 3, 5, 1), each computing its seven shape values ahead";
  EXPECT_EQ((*session)->specialisations()->statistics().misses, 0u);
}

// Once its plans fill the cache, a new signature retargets the least recently used plan
// in place: only the nodes downstream of the input whose shape changed are inferred
// again (their shape values computed afresh, their kernels shared or prepared), the rest
// keep their descs and kernels. Every run matches the plain per-op executor, including
// signatures that come back after their plan was retargeted away.
TEST(ShapeSpecialisation, ANewSignatureRetargetsTheLeastRecentlyUsedPlan) {
  const std::string text = R"(graph main (opset ""=17) {
  input %x : float32[N,4]
  input %y : float32[M,3]
  init %zero : int64[] = [0]
  init %two : int64[] = [2]
  init %pair : int64[1] = [2]
  init %axes : int64[1] = [0]
  init %w : float32[3,2] = [0.5, -1, 2, 1, 0.25, -0.5]
  %s = Shape(%x) "shape"
  %n = Gather(%s, %zero) {axis: int = 0} "rows"
  %two_n = Mul(%n, %two) "double"
  %rows = Unsqueeze(%two_n, %axes) "as_list"
  %tail = Shape(%x) {start: int = -1} "last_dim"
  %half = Div(%tail, %pair) "half"
  %target = Concat(%rows, %half) {axis: int = 0} "target"
  %r = Reshape(%x, %target) "reshape"
  %z = Relu(%r) "relu"
  %yw = MatMul(%y, %w) "dense"
  %ys = Softmax(%yw) {axis: int = -1} "softmax"
  output %z
  output %target
  output %ys
})";
  SessionOptions per_signature;
  per_signature.specialise_after = 100;  // every run on the per-op plans
  per_signature.specialisation_cache_size = 2;
  auto session = session_for(text, per_signature);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  SessionOptions per_op;
  per_op.specialisation_cache_size = 0;
  auto reference = session_for(text, per_op);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  auto random = [&](int64_t rows, int64_t cols) {
    std::vector<float> data(static_cast<size_t>(rows * cols));
    for (float& v : data) v = value(rng);
    return Tensor::from_vector<float>({rows, cols}, data);
  };
  const std::vector<std::pair<int64_t, int64_t>> signatures = {{3, 2}, {5, 2}, {1, 2}, {4, 2}, {4, 5},
                                                               {3, 5}, {3, 2}, {6, 1}, {3, 2}, {1, 2}};
  for (const auto& [n, m] : signatures) {
    SCOPED_TRACE("x rows " + std::to_string(n) + ", y rows " + std::to_string(m));
    const NamedTensors inputs = {{"x", random(n, 4)}, {"y", random(m, 3)}};
    std::vector<Tensor> got, want;
    Status s = (*session)->run(inputs, got);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_TRUE((*reference)->run(inputs, want).is_ok());
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].shape(), (std::vector<int64_t>{2 * n, 2}));
    EXPECT_EQ(int64s(got[1]), (std::vector<int64_t>{2 * n, 2}));
    const std::vector<float> x = floats(inputs[0].second), z = floats(got[0]);
    ASSERT_EQ(x.size(), z.size());
    for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(z[k], std::max(x[k], 0.0f));
    ASSERT_EQ(got[2].shape(), (std::vector<int64_t>{m, 2}));
    const std::vector<float> g = floats(got[2]), w = floats(want.at(2));
    ASSERT_EQ(g.size(), w.size());
    for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(g[k], w[k], 1e-6f);
  }
  const std::optional<KernelStatistics> kernels = (*session)->kernel_statistics();
  ASSERT_TRUE(kernels.has_value());
  EXPECT_EQ(kernels->plans_built, 2u) << "two plans fill the cache; every later new signature retargets one";
  EXPECT_GE(kernels->plans_retargeted, 6u);
  // A change of x's rows leaves the dense layer and softmax of y as they were, and a
  // change of y's leaves x's shape arithmetic, Reshape and Relu.
  EXPECT_GT(kernels->nodes_kept, 0u);
  EXPECT_GT(kernels->nodes_reinferred, 0u);
  EXPECT_EQ((*session)->specialisations()->statistics().misses, 0u);
}

// A random op is never computed ahead of a run, even where its inputs are constants and
// its output is a few integers: every run draws again.
TEST(ShapeSpecialisation, APlanNeverComputesARandomOpAhead) {
  SessionOptions per_signature;
  per_signature.specialise_after = 100;
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[N]
  init %logits : float32[1,3] = [0, 0, 0]
  %draw = Multinomial(%logits) {sample_size: int = 16, dtype: int = 7} "draw"
  %y = Relu(%x) "relu"
  output %draw
  output %y
})", per_signature);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::set<std::vector<int64_t>> draws;
  for (int i = 0; i < 6; ++i) {
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->run({{"x", Tensor::from_vector<float>({2}, {-1, 1})}}, out).is_ok());
    draws.insert(int64s(out.at(0)));
  }
  EXPECT_GT(draws.size(), 1u) << "six runs of 16 draws from three classes all alike";
  EXPECT_EQ((*session)->kernel_statistics()->folded, 0u);
}

std::string conv_kernel_of_run(Session& session, const Tensor& x) {
  return e2e_testing::kernel_of_node(session, {{"x", x}}, "conv");
}

bool is_winograd(const std::string& kernel) { return kernel.find("wino") != std::string::npos; }

// A plan for a signature seen once asks for kernels cheap to prepare (no Winograd weight
// transform, kTransientPlanAttribute); the signature compiled on its second run gets the
// backend's usual pick, and both compute the same convolution.
TEST(ShapeSpecialisation, ATransientPlanPreparesNoWinogradConvolution) {
  std::string weights;
  for (int i = 0; i < 32 * 32 * 9; ++i) weights += (i ? ", " : "") + std::to_string(((i * 37) % 19 - 9) / 64.0);
  const std::string text = R"(graph main (opset ""=17) {
  input %x : float32[N,32,12,12]
  init %w : float32[32,32,3,3] = [)" + weights + R"(]
  %y = Conv(%x, %w) {pads: ints = [1, 1, 1, 1]} "conv"
  output %y
})";
  auto session = session_for(text);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  SessionOptions compile_first;
  compile_first.specialise_after = 1;
  auto compiled = session_for(text, compile_first);
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> data(2 * 32 * 12 * 12);
  for (float& v : data) v = value(rng);
  const Tensor x = Tensor::from_vector<float>({2, 32, 12, 12}, data);
  const std::string transient = conv_kernel_of_run(**session, x);
  EXPECT_FALSE(is_winograd(transient)) << transient;
  EXPECT_EQ(conv_kernel_of_run(**session, x), conv_kernel_of_run(**compiled, x)) << "compiled on its second run";
  std::vector<Tensor> once, twice;
  SessionOptions per_signature;
  per_signature.specialise_after = 100;
  auto plans = session_for(text, per_signature);
  ASSERT_TRUE(plans.is_ok());
  ASSERT_TRUE((*plans)->run({{"x", x}}, once).is_ok());
  ASSERT_TRUE((*compiled)->run({{"x", x}}, twice).is_ok());
  const std::vector<float> a = floats(once.at(0)), b = floats(twice.at(0));
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-4f) << k;
}

// Per op, a view (Unsqueeze, Reshape, ...) whose output is not a graph output shares its
// input's bytes: the chain below allocates only the Relu's output. A view that is a graph
// output is a copy: the caller's result never aliases its input.
TEST(ShapeSpecialisation, ViewsPerOpShareTheirInputsBytesExceptGraphOutputs) {
  const std::string text = R"(graph main (opset ""=17) {
  input %x : float32[N,4096]
  init %axes : int64[1] = [0]
  init %flat : int64[1] = [-1]
  %u = Unsqueeze(%x, %axes) "unsqueeze"
  %r = Reshape(%u, %flat) "reshape"
  %y = Relu(%r) "relu"
  %z = Reshape(%x, %flat) "flat_copy"
  output %y
  output %z
})";
  SessionOptions per_op;
  per_op.specialise_after = 100;
  auto session = session_for(text, per_op);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<float> data(2 * 4096);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 7) - 3.0f;
  const Tensor x = Tensor::from_vector<float>({2, 4096}, data);
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->run({{"x", x}}, out).is_ok());
  ASSERT_EQ(out.size(), 2u);
  const std::vector<float> y = floats(out[0]), z = floats(out[1]);
  ASSERT_EQ(y.size(), data.size());
  ASSERT_EQ(z, data);
  for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(y[i], std::max(data[i], 0.0f)) << i;
  EXPECT_NE(out[1].raw_data(), x.raw_data()) << "a graph output is the caller's own copy";
  // The two outputs were allocated; the views in between took nothing.
  const TensorPoolStatistics pool = (*session)->tensor_pool().statistics();
  EXPECT_EQ(pool.hits + pool.misses, 2u);
}

TEST(ShapeSpecialisation, ARepeatedSignatureAllocatesNothing) {
  auto session = session_for(kSymbolicRows);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::mt19937 rng(3);
  const Tensor x = random_rows(rng, 5);
  std::vector<Tensor> out;
  // Per op once, compiled on the second run, whose outputs live through the third.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*session)->run({{"x", x}}, out).is_ok());
  const uint64_t misses = (*session)->tensor_pool().statistics().misses;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE((*session)->run({{"x", x}}, out).is_ok());
  EXPECT_EQ((*session)->tensor_pool().statistics().misses, misses);
  EXPECT_EQ((*session)->specialisations()->statistics().unseen, 1u);
  EXPECT_EQ((*session)->specialisations()->statistics().misses, 1u);
  EXPECT_EQ((*session)->specialisations()->statistics().hits, 11u);
}

TEST(ShapeSpecialisation, ABadShapeIsRejectedBeforeSpecialising) {
  auto session = session_for(kSymbolicRows);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Status wrong = (*session)->run({{"x", Tensor::from_vector<float>({2, 5}, std::vector<float>(10, 1.0f))}}, out);
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("'x'"), std::string::npos) << wrong.message();
  EXPECT_EQ((*session)->specialisations()->statistics().misses, 0u);
}

TEST(ShapeSpecialisation, SymbolicDimsRunOnTheSimulatedNpu) {
  ASSERT_TRUE(PluginEnvironment::get().require({"npu_sim"}).is_ok());
  SessionOptions npu;
  npu.backend = "npu_sim";
  auto on_npu = session_for(kSymbolicRows, npu);
  ASSERT_TRUE(on_npu.is_ok()) << on_npu.status().to_string();
  auto on_cpu = session_for(kSymbolicRows);
  ASSERT_TRUE(on_cpu.is_ok()) << on_cpu.status().to_string();
  std::mt19937 rng(11);
  for (int64_t rows : {3, 6, 3}) {
    const Tensor x = random_rows(rng, rows);
    std::vector<Tensor> got, want;
    Status s = (*on_npu)->run({{"x", x}}, got);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_TRUE((*on_cpu)->run({{"x", x}}, want).is_ok());
    const std::vector<float> g = floats(got.at(0)), w = floats(want.at(0));
    ASSERT_EQ(g.size(), w.size());
    for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(g[k], w[k], 1e-5f);
  }
  EXPECT_EQ((*on_npu)->specialisations()->statistics().sunk, 2u);
  // A signature that stays dynamic needs the per-op executor, which npu_sim cannot host.
  auto dynamic = session_for(R"(graph main (opset ""=17) {
  input %x : float32[N]
  %nz = NonZero(%x) "nz"
  output %nz
})", npu);
  ASSERT_TRUE(dynamic.is_ok()) << dynamic.status().to_string();
  std::vector<Tensor> out;
  Status refused = (*dynamic)->run({{"x", Tensor::from_vector<float>({2}, {0, 1})}}, out);
  EXPECT_EQ(refused.code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.message().find("host-accessible"), std::string::npos) << refused.to_string();
}

TEST(ShapeSpecialisation, ADeviceThePerOpExecutorCannotUseGetsTheTaskSinksReasonToo) {
  SessionOptions npu;
  npu.backend = "npu_sim";
  auto refused = session_for(R"(graph main (opset ""=17) {
  input %x : float32[4]
  %nz = NonZero(%x) "nz"
  output %nz
})", npu);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("host-accessible"), std::string::npos) << refused.status().to_string();
  EXPECT_NE(refused.status().message().find("the task sink could not run the graph either: "), std::string::npos)
      << refused.status().to_string();
  EXPECT_NE(refused.status().message().find("'nz'"), std::string::npos) << refused.status().to_string();
}

// A symbolic-dim graph on npu_sim whose specialisation still has a data-dependent shape:
// the run's error says why those input shapes did not compile to the task sink.
TEST(ShapeSpecialisation, ASignatureTheSimulatedNpuCannotSinkSaysWhy) {
  ASSERT_TRUE(PluginEnvironment::get().require({"npu_sim"}).is_ok());
  SessionOptions npu;
  npu.backend = "npu_sim";
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[N]
  %nz = NonZero(%x) "nz"
  output %nz
})", npu);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> outputs;
  Status status = (*session)->run({{"x", Tensor::from_vector<float>({3}, {1, 0, 2})}}, outputs);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("these input shapes do not: "), std::string::npos) << status.to_string();
}

TEST(ShapeSpecialisation, ASignatureThatStaysDynamicRunsPerOpAndIsRemembered) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[N]
  %nz = NonZero(%x) "nz"
  %y = Mul(%nz, %nz) "square"
  output %y
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  ASSERT_TRUE((*session)->specialises());
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*session)->run({{"x", Tensor::from_vector<float>({4}, {0, 2, 0, 3})}}, out).is_ok());
    EXPECT_EQ(int64s(out.at(0)), (std::vector<int64_t>{1, 9}));
  }
  const SpecialisationStatistics& stats = (*session)->specialisations()->statistics();
  EXPECT_EQ(stats.unseen, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.per_op, 1u);
  EXPECT_EQ(stats.hits, 1u);
}

/// Runs `text` through a partitioning session and a plain per-op one on the same inputs
/// and expects the same outputs.
class PartitionCheck {
 public:
  explicit PartitionCheck(const std::string& text) {
    auto sunk = session_for(text);
    EXPECT_TRUE(sunk.is_ok()) << sunk.status().to_string();
    SessionOptions plain;
    plain.task_sink = false;
    auto per_op = session_for(text, plain);
    EXPECT_TRUE(per_op.is_ok()) << per_op.status().to_string();
    if (sunk.is_ok() && per_op.is_ok()) {
      sunk_ = std::move(sunk).value();
      per_op_ = std::move(per_op).value();
    }
  }
  bool ready() const { return sunk_ && per_op_; }
  Session& sunk() { return *sunk_; }
  PartitionStatistics partition() const { return *sunk_->partition_statistics(); }

  void expect_same(const NamedTensors& inputs) {
    std::vector<Tensor> got, want;
    Status s = sunk_->run(inputs, got);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    s = per_op_->run(inputs, want);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].shape(), want[i].shape()) << "output " << i;
      ASSERT_EQ(got[i].dtype(), want[i].dtype());
      if (got[i].dtype() == DataType::kFloat32) {
        for (int64_t k = 0; k < got[i].element_count(); ++k) {
          EXPECT_NEAR(got[i].data<float>()[k], want[i].data<float>()[k], 1e-5f) << "output " << i << " element " << k;
        }
      } else {
        EXPECT_EQ(int64s(got[i]), int64s(want[i])) << "output " << i;
      }
    }
  }

 private:
  std::unique_ptr<Session> sunk_, per_op_;
};

TEST(Partition, IfBranchesAreSunkOnceTheirSignatureRepeats) {
  PartitionCheck check(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  input %flag : bool[]
  init %w : float32[3,3] = [1, 0, 2, 0, 1, 0, -1, 0, 1]
  %h = MatMul(%x, %w) "before"
  %y = If(%flag) {then_branch: graph = graph then_g {
    capture %h
    init %two : float32[] = [2]
    %a = Mul(%h, %two) "double"
    %b = Relu(%a) "relu"
    output %b
  }, else_branch: graph = graph else_g {
    capture %h
    %c = Neg(%h) "negate"
    %d = Sigmoid(%c) "squash"
    output %d
  }} "choose"
  %z = Add(%y, %h) "after"
  %out = Tanh(%z) "after_tanh"
  output %out
})");
  ASSERT_TRUE(check.ready());
  const Tensor x = Tensor::from_vector<float>({2, 3}, {1, -2, 3, -0.5f, 0.25f, 4});
  for (bool flag : {true, false, true, true, false, false, true}) {
    Tensor f = Tensor::zeros(DataType::kBool, {});
    f.data<uint8_t>()[0] = flag ? 1 : 0;
    check.expect_same({{"x", x}, {"flag", f}});
  }
  const PartitionStatistics p = check.partition();
  EXPECT_EQ(p.clusters, 1u) << "Add and Tanh after the If";
  EXPECT_EQ(p.clustered_nodes, 2u);
  EXPECT_EQ(p.cluster_runs, 7u);
  // Each branch runs per op the first time its signature is seen, then sunk.
  EXPECT_EQ(p.per_op_body_runs, 2u);
  EXPECT_EQ(p.body_runs, 5u);
}

TEST(Partition, LoopBodyWithSteadyShapesIsSunk) {
  PartitionCheck check(R"(graph main (opset ""=17) {
  input %trips : int64[]
  input %x : float32[4]
  init %cond : bool[] = [true]
  %final = Loop(%trips, %cond, %x) {body: graph = graph body {
    input %i : int64[]
    input %c : bool[]
    input %state : float32[4]
    init %half : float32[] = [0.5]
    init %one : float32[] = [1]
    %scaled = Mul(%state, %half) "scale"
    %next = Add(%scaled, %one) "shift"
    %c_out = Identity(%c) "keep_going"
    output %c_out
    output %next
  }} "loop"
  output %final
})");
  ASSERT_TRUE(check.ready());
  const Tensor x = Tensor::from_vector<float>({4}, {8, -4, 0, 2});
  for (int64_t trips : {5, 1, 3}) check.expect_same({{"trips", Tensor::from_vector<int64_t>({}, {trips})}, {"x", x}});
  const PartitionStatistics p = check.partition();
  EXPECT_EQ(p.per_op_body_runs, 1u) << "only the first iteration runs node by node";
  EXPECT_EQ(p.body_runs, 8u);
}

TEST(Partition, APartitionedLoopBodyWhoseShapesGrowRunsPerOpWhereInferenceWasWrong) {
  for (const char* state : {"float32[?]", "float32[1]"}) {
  SCOPED_TRACE(state);
  // The body holds an If (so it is partitioned in place, not sunk whole); its state grows
  // by one element per iteration although its static inference saw only the first.
  std::string text = R"(graph main (opset ""=17) {
  input %trips : int64[]
  input %flag : bool[]
  init %cond : bool[] = [true]
  init %start : float32[1] = [1]
  %acc = Loop(%trips, %cond, %start) {body: graph = graph body {
    input %i : int64[]
    input %c : bool[]
    input %prev : STATE
    capture %flag
    init %axes : int64[1] = [0]
    init %two : float32[] = [2]
    %fi = Cast(%i) {to: int = 1} "as_float"
    %item = Unsqueeze(%fi, %axes) "item"
    %grown = Concat(%prev, %item) {axis: int = 0} "append"
    %doubled = Mul(%grown, %two) "double"
    %next = If(%flag) {then_branch: graph = graph keep {
      capture %doubled
      %k = Identity(%doubled) "keep"
      output %k
    }, else_branch: graph = graph negate {
      capture %doubled
      %n = Neg(%doubled) "negate"
      output %n
    }} "maybe_negate"
    %c_out = Identity(%c) "keep_going"
    output %c_out
    output %next
  }} "loop"
  output %acc
})";
  text.replace(text.find("STATE"), 5, state);
  PartitionCheck check(text);
  ASSERT_TRUE(check.ready());
  for (int64_t trips : {4, 4, 2, 5}) {
    for (bool flag : {true, false}) {
      Tensor f = Tensor::zeros(DataType::kBool, {});
      f.data<uint8_t>()[0] = flag ? 1 : 0;
      check.expect_same({{"trips", Tensor::from_vector<int64_t>({}, {trips})}, {"flag", f}});
    }
  }
  std::vector<Tensor> out;
  Tensor t = Tensor::zeros(DataType::kBool, {});
  t.data<uint8_t>()[0] = 1;
  ASSERT_TRUE(check.sunk().run({{"trips", Tensor::from_vector<int64_t>({}, {3})}, {"flag", t}}, out).is_ok());
  // 1 -> [2, 0] -> [4, 0, 2] -> [8, 0, 4, 4]
  EXPECT_EQ(floats(out.at(0)), (std::vector<float>{8, 0, 4, 4}));
  }
}

TEST(Partition, NonZeroSplitsAStaticPrefixFromASpecialisedSuffix) {
  PartitionCheck check(R"(graph main (opset ""=17) {
  input %x : float32[6]
  init %scale : float32[] = [3]
  init %offset : float32[] = [-1]
  init %axes : int64[1] = [0]
  %a = Mul(%x, %scale) "prefix_scale"
  %b = Add(%a, %offset) "prefix_offset"
  %nz = NonZero(%b) "keep"
  %idx = Squeeze(%nz, %axes) "flatten_index"
  %kept = Gather(%b, %idx) {axis: int = 0} "gather"
  %sq = Mul(%kept, %kept) "square"
  %sum = ReduceSum(%sq) {keepdims: int = 0} "total"
  output %sum
  output %idx
})");
  ASSERT_TRUE(check.ready());
  // x*3-1 is zero at 1/3: the kept count varies, and repeats.
  const float third = 1.0f / 3.0f;
  const std::vector<std::vector<float>> data = {{1, third, 2, third, 0, 1},
                                                {third, third, third, third, 5, third},
                                                {1, third, 2, third, 0, 1},
                                                {1, third, 2, third, 0, 1},
                                                {third, third, third, third, 5, third}};
  for (const auto& values : data) check.expect_same({{"x", Tensor::from_vector<float>({6}, values)}});
  const PartitionStatistics p = check.partition();
  EXPECT_EQ(p.clusters, 2u);
  EXPECT_EQ(p.dynamic_clusters, 1u);
  EXPECT_EQ(p.per_op_nodes, 1u) << "only NonZero";
  const std::string described = check.sunk().describe_partition();
  EXPECT_NE(described.find("cluster 1 (static): Mul 'prefix_scale'; Add 'prefix_offset';"), std::string::npos)
      << described;
  EXPECT_NE(described.find("cluster 2 (specialised per input shapes at run time): Squeeze 'flatten_index';"),
            std::string::npos)
      << described;
  EXPECT_NE(described.find("per op: NonZero 'keep' (dynamic shape)"), std::string::npos) << described;
  // The prefix runs sunk every time; the suffix from the second sighting of its signature.
  EXPECT_EQ(p.cluster_runs, 5u + 3u);
}

/// Weights as text IR: `count` values of a fixed pseudo-random sequence in [-0.25, 0.25].
std::string weights(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-0.25f, 0.25f);
  std::string text = "[";
  for (size_t i = 0; i < count; ++i) text += (i ? ", " : "") + std::to_string(value(rng));
  return text + "]";
}

/// Convolutions of 16 channels (blocked at -O2 on cpu) on both sides of a Reshape to
/// dims computed from data, which runs per op: c2 is blocked (three convolutions use it)
/// and read, through a reorder to plain, after the Reshape by a cluster specialised at
/// run time, whose inputs are keyed by plain shapes. (A PaddleOCR recogniser gave wrong
/// Softmax outputs at -O2 where such a reorder landed in a later cluster than c2.)
std::string blocked_across_a_partition() {
  const std::string w = weights(16 * 16 * 9, 1), v = weights(16 * 16 * 9, 2), u = weights(16 * 16 * 9, 3),
                    t = weights(16 * 16 * 9, 4);
  return R"(graph main (opset ""=17) {
  input %x : float32[1,16,8,8]
  init %w1 : float32[16,16,3,3] = )" + w + R"(
  init %w2 : float32[16,16,3,3] = )" + v + R"(
  init %w3 : float32[16,16,3,3] = )" + u + R"(
  init %w4 : float32[16,16,3,3] = )" + t + R"(
  init %big : float32[] = [1e9]
  init %one : int64[] = [1]
  init %ax0 : int64[1] = [0]
  init %head : int64[2] = [1, 16]
  init %ax3 : int64[1] = [3]
  init %back_shape : int64[4] = [1, 16, 8, -1]
  %c1 = Conv(%x, %w1) {pads: ints = [1, 1, 1, 1]} "conv1"
  %r1 = Relu(%c1) "relu1"
  %c2 = Conv(%r1, %w2) {pads: ints = [1, 1, 1, 1]} "conv2"
  %gt = Greater(%x, %big) "never"
  %gi = Cast(%gt) {to: int = 7} "count_cast"
  %n = ReduceSum(%gi) {keepdims: int = 0} "count"
  %m = Sub(%n, %one) "minus_one"
  %mu = Unsqueeze(%m, %ax0) "as_dim"
  %shape = Concat(%head, %mu) {axis: int = 0} "shape"
  %flat = Reshape(%c2, %shape) "data_dependent"
  %sm = Softmax(%flat) {axis: int = -1} "softmax"
  %mean = ReduceMean(%sm) {axes: ints = [2], keepdims: int = 1} "mean"
  %scale = Unsqueeze(%mean, %ax3) "scale"
  %back = Reshape(%sm, %back_shape) "back"
  %z = Mul(%c2, %back) "weighted"
  %c3 = Conv(%c2, %w3) {pads: ints = [1, 1, 1, 1]} "conv3"
  %r3 = Relu(%c3) "relu3"
  %y = Mul(%r3, %scale) "scaled"
  %c4 = Conv(%c2, %w4) {pads: ints = [1, 1, 1, 1]} "conv4"
  output %y
  output %c4
  output %sm
  output %z
})";
}

TEST(Partition, ABlockedFormatNeverCrossesAClusterBoundary) {
  ASSERT_TRUE(PluginEnvironment::get().require({"layout_assignment"}).is_ok());
  PartitionCheck check(blocked_across_a_partition());
  ASSERT_TRUE(check.ready());
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int run = 0; run < 3; ++run) {  // the specialised cluster compiles on its second sighting
    std::vector<float> x(16 * 8 * 8);
    for (float& e : x) e = value(rng);
    check.expect_same({{"x", Tensor::from_vector<float>({1, 16, 8, 8}, x)}});
  }
  EXPECT_GE(check.partition().clusters, 2u) << check.sunk().describe_partition();
  // The per-op executor's graph is the one from before the layout phase; its clusters
  // get blocked formats inside them only.
  for (const auto& node : check.sunk().graph().nodes()) {
    EXPECT_NE(node->op_type(), "TransData") << node->describe();
    for (const Value* out : node->outputs()) EXPECT_TRUE(out->desc().is_plain()) << out->name();
  }
}

// A single static step after the specialised suffix (the product of a pooled value) is
// specialised with it rather than run per op; a static run of two or more after it stays
// a static cluster of its own.
std::string pooled_then(const std::string& tail) {
  return R"(graph main (opset ""=17) {
  input %x : float32[6]
  init %axes : int64[1] = [0]
  init %half : float32[] = [0.5]
  %nz = NonZero(%x) "keep"
  %idx = Squeeze(%nz, %axes) "flatten_index"
  %kept = Gather(%x, %idx) {axis: int = 0} "gather"
  %sum = ReduceSum(%kept) {keepdims: int = 0} "total"
)" + tail + "}";
}

TEST(Partition, AStaticStepAfterTheSpecialisedSuffixJoinsIt) {
  const std::vector<std::vector<float>> data = {{1, 0, 2, 0, 0, 1}, {0, 3, 0, 0, 5, 0}, {1, 0, 2, 0, 0, 1},
                                                {0, 3, 0, 0, 5, 0}, {1, 0, 2, 0, 0, 1}};
  PartitionCheck one(pooled_then("  %y = Mul(%sum, %half) \"halve\"\n  output %y\n"));
  ASSERT_TRUE(one.ready());
  for (const auto& values : data) one.expect_same({{"x", Tensor::from_vector<float>({6}, values)}});
  std::string described = one.sunk().describe_partition();
  EXPECT_NE(described.find("(specialised per input shapes at run time): Squeeze 'flatten_index'; Gather 'gather'; "
                           "ReduceSum 'total'; Mul 'halve';"),
            std::string::npos)
      << described;
  EXPECT_EQ(one.partition().per_op_nodes, 1u) << "only NonZero: " << described;

  PartitionCheck two(pooled_then("  %a = Mul(%sum, %half) \"halve\"\n  %y = Add(%a, %half) \"shift\"\n  output %y\n"));
  ASSERT_TRUE(two.ready());
  for (const auto& values : data) two.expect_same({{"x", Tensor::from_vector<float>({6}, values)}});
  described = two.sunk().describe_partition();
  EXPECT_NE(described.find("(specialised per input shapes at run time): Squeeze 'flatten_index'; Gather 'gather'; "
                           "ReduceSum 'total';\n"),
            std::string::npos)
      << described;
  EXPECT_NE(described.find("(static): Mul 'halve'; Add 'shift';"), std::string::npos) << described;
  EXPECT_EQ(two.partition().per_op_nodes, 1u) << "only NonZero: " << described;
}

/// An 8 kHz / 16 kHz model: the else branch squeezes an axis of extent 2, which only an
/// input of another rate would make valid. Inference of that branch fails.
constexpr const char* kUntakenBranchFails = R"(graph main (opset ""=17) {
  input %x : float32[1,4,2]
  input %sr : int64[]
  init %rate : int64[] = [16000]
  init %axis : int64[1] = [2]
  %is16k = Equal(%sr, %rate) "is_16k"
  %y = If(%is16k) {then_branch: graph = graph rate_16k {
    capture %x
    %a = Relu(%x) "relu"
    output %a
  }, else_branch: graph = graph rate_8k {
    capture %x
    capture %axis
    %s = Squeeze(%x, %axis) "squeeze"
    %t = Sigmoid(%s) "squash"
    output %t
  }} "by_rate"
  output %y
})";

TEST(ControlFlowInference, ABranchThatFailsInferenceFailsOnlyWhenTaken) {
  for (bool task_sink : {true, false}) {
    SessionOptions options;
    options.task_sink = task_sink;
    auto session = session_for(kUntakenBranchFails, options);
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    const Tensor x = Tensor::from_vector<float>({1, 4, 2}, {1, -1, 2, -2, 3, -3, 4, -4});
    std::vector<Tensor> out;
    for (int i = 0; i < 3; ++i) {
      Status s = (*session)->run({{"x", x}, {"sr", Tensor::from_vector<int64_t>({}, {16000})}}, out);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{1, 4, 2}));
      EXPECT_EQ(floats(out[0]), (std::vector<float>{1, 0, 2, 0, 3, 0, 4, 0}));
    }
    for (int i = 0; i < 2; ++i) {
      Status taken = (*session)->run({{"x", x}, {"sr", Tensor::from_vector<int64_t>({}, {8000})}}, out);
      ASSERT_FALSE(taken.is_ok()) << "task_sink " << task_sink;
      EXPECT_NE(taken.to_string().find("Squeeze"), std::string::npos) << taken.to_string();
      EXPECT_NE(taken.to_string().find("must be 1"), std::string::npos) << taken.to_string();
    }
  }
}

TEST(ControlFlowInference, ALoopBodyThatFailsIsStillAnError) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[1,4,2]
  init %trips : int64[] = [2]
  init %cond : bool[] = [true]
  init %axis : int64[1] = [2]
  %y = Loop(%trips, %cond, %x) {body: graph = graph body {
    input %i : int64[]
    input %c : bool[]
    input %state : float32[1,4,2]
    capture %axis
    %s = Squeeze(%state, %axis) "squeeze"
    output %c
    output %s
  }} "loop"
  output %y
})");
  // Wherever it is found (at compile time or in the first iteration), it is an error.
  Status status = session.status();
  if (session.is_ok()) {
    std::vector<Tensor> out;
    status = (*session)->run({{"x", Tensor::from_vector<float>({1, 4, 2}, std::vector<float>(8, 1.0f))}}, out);
  }
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.to_string().find("must be 1"), std::string::npos) << status.to_string();
}

TEST(DynamicShapes, RepeatedRunsReinferDataDependentShapes) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[6]
  %nz = NonZero(%x) "nz"
  %y = Mul(%nz, %nz) "square"
  output %y
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Status first = (*session)->run({{"x", Tensor::from_vector<float>({6}, {0, 1, 0, 2, 0, 3})}}, out);
  ASSERT_TRUE(first.is_ok()) << first.to_string();
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(int64s(out[0]), (std::vector<int64_t>{1, 9, 25}));
  // Same input shape, more non-zeros: the output grows, the plan is kept.
  Status second = (*session)->run({{"x", Tensor::from_vector<float>({6}, {1, 1, 0, 1, 1, 1})}}, out);
  ASSERT_TRUE(second.is_ok()) << second.to_string();
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(int64s(out[0]), (std::vector<int64_t>{0, 1, 9, 16, 25}));
}

TEST(DynamicShapes, CompressSelectsAsManyRowsAsTheConditionHolds) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : int64[3,2]
  input %keep : bool[3]
  %rows = Compress(%x, %keep) {axis: int = 0} "select"
  %flat = Compress(%x, %keep) "select_flat"
  output %rows
  output %flat
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Tensor x = Tensor::from_vector<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor keep = Tensor::zeros(DataType::kBool, {3});
  keep.data<uint8_t>()[0] = 1;
  keep.data<uint8_t>()[2] = 1;
  Status s = (*session)->run({{"x", x}, {"keep", keep}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(int64s(out[0]), (std::vector<int64_t>{1, 2, 5, 6}));
  EXPECT_EQ(int64s(out.at(1)), (std::vector<int64_t>{1, 3}));  // flattened x[0], x[2]
}

TEST(DynamicShapes, LoopCarriedValueGrowsEachIteration) {
  // acc = Concat(acc, [i]) for i in 0..3: the body's Concat output has a new shape on
  // every iteration.
  auto session = session_for(R"(graph main (opset ""=17) {
  input %trips : int64[]
  init %cond : bool[] = [true]
  init %start : int64[1] = [7]
  %acc = Loop(%trips, %cond, %start) {body: graph = graph body {
    input %i : int64[]
    input %c : bool[]
    input %prev : int64[?]
    init %axes : int64[1] = [0]
    %item = Unsqueeze(%i, %axes) "item"
    %next = Concat(%prev, %item) {axis: int = 0} "append"
    %c_out = Identity(%c) "keep_going"
    output %c_out
    output %next
  }} "loop"
  output %acc
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Status s = (*session)->run({{"trips", Tensor::from_vector<int64_t>({}, {4})}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(int64s(out.at(0)), (std::vector<int64_t>{7, 0, 1, 2, 3}));
  s = (*session)->run({{"trips", Tensor::from_vector<int64_t>({}, {2})}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(int64s(out.at(0)), (std::vector<int64_t>{7, 0, 1}));
}

}  // namespace
}  // namespace ge
