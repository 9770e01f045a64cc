// Tests of the per-op executor (ge/executor.h).
#include "ge/executor.h"

#include <gtest/gtest.h>

#include "ge/testing/fake_components.h"

namespace ge {
namespace {

using testing::FakeBackend;
using testing::FakeOps;

struct Fixture {
  Fixture() { ops.add_library(std::make_shared<FakeOps>()); }
  OpRegistry ops;
  FakeBackend backend;
};

std::unique_ptr<Graph> chain_graph(std::vector<Dim> dims) {
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, dims));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({3}, {10, 20, 30}));
  Node* a = g->add_node("AddOne", {x}, 1, "a");
  Node* b = g->add_node("Twice", {a->output(0)}, 1, "b");
  Node* c = g->add_node("Sum2", {b->output(0), w}, 1, "c", {"y"});
  g->add_output(c->output(0));
  g->add_output(a->output(0));
  return g;
}

TEST(Executor, RunsNodesInOrderWithInitializers) {
  Fixture f;
  auto graph = chain_graph({Dim::of(3)});
  ASSERT_TRUE(f.ops.infer_graph(*graph).is_ok());
  auto exec = Executor::create(std::move(graph), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
  std::vector<Tensor> outputs;
  Status s = (*exec)->run({{"x", Tensor::from_vector<float>({3}, {1, 2, 3})}}, outputs);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_EQ(outputs.size(), 2u);
  // y = (x + 1) * 2 + w
  EXPECT_EQ(std::vector<float>(outputs[0].values<float>().begin(), outputs[0].values<float>().end()),
            (std::vector<float>{14, 26, 38}));
  EXPECT_EQ(outputs[1].data<float>()[2], 4.0f);
  const int prepared = f.backend.prepared;
  ASSERT_TRUE((*exec)->run({{"x", Tensor::from_vector<float>({3}, {0, 0, 0})}}, outputs).is_ok());
  EXPECT_EQ(f.backend.prepared, prepared) << "same shapes reuse the prepared kernels";
  EXPECT_EQ(outputs[0].data<float>()[0], 12.0f);
}

TEST(Executor, ReusesPooledStorageAfterWarmUp) {
  Fixture f;
  auto graph = chain_graph({Dim::of(3)});
  ASSERT_TRUE(f.ops.infer_graph(*graph).is_ok());
  auto exec = Executor::create(std::move(graph), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
  std::vector<Tensor> outputs;
  const Tensor x = Tensor::from_vector<float>({3}, {1, 2, 3});
  // The outputs of one run are alive during the next: two runs reach the steady state.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE((*exec)->run({{"x", x}}, outputs).is_ok());
  const uint64_t misses = (*exec)->pool().statistics().misses;
  EXPECT_GT(misses, 0u);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*exec)->run({{"x", x}}, outputs).is_ok());
  EXPECT_EQ((*exec)->pool().statistics().misses, misses) << "no allocation after warm-up";
  EXPECT_GE((*exec)->pool().statistics().hits, 15u);
  EXPECT_EQ(std::vector<float>(outputs[0].values<float>().begin(), outputs[0].values<float>().end()),
            (std::vector<float>{14, 26, 38}));
}

// Each value goes back to the pool after its last use, not at the end of the run: a chain
// of six steps holds about two of its tensors at a time, and a value read again later (a
// fan-out) stays until that read.
TEST(Executor, ReleasesEachValueAfterItsLastUse) {
  Fixture f;
  constexpr int64_t kCount = 1 << 16;  // 256 KiB per tensor
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, {Dim::of(kCount)}));
  Value* first = g->add_node("AddOne", {x}, 1, "first")->output(0);
  Value* v = first;
  for (int i = 0; i < 5; ++i) v = g->add_node("Twice", {v}, 1, "twice_" + std::to_string(i))->output(0);
  Node* sum = g->add_node("Sum2", {v, first}, 1, "sum", {"y"});  // `first` is read again here
  g->add_output(sum->output(0));
  ASSERT_TRUE(f.ops.infer_graph(*g).is_ok());
  auto exec = Executor::create(std::move(g), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
  const Tensor input = Tensor::from_vector<float>({kCount}, std::vector<float>(kCount, 1.0f));
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*exec)->run({{"x", input}}, outputs).is_ok());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].data<float>()[0], 2.0f * 32 + 2.0f);  // (1 + 1) * 2^5 + (1 + 1)
  EXPECT_EQ(outputs[0].data<float>()[kCount - 1], 66.0f);
  const size_t tensor_bytes = kCount * sizeof(float);
  // Alive at most: `first`, the step's input and output, and the result.
  EXPECT_LE((*exec)->pool().statistics().peak_in_use_bytes, 4 * tensor_bytes);
  EXPECT_GE((*exec)->pool().statistics().peak_in_use_bytes, 3 * tensor_bytes);
  outputs.clear();
  EXPECT_EQ((*exec)->pool().statistics().in_use_bytes, 0u) << "nothing stays held after the run";
}

TEST(Executor, ZeroesWhatAKernelDeclaresZeroedBeforeEachLaunch) {
  // Atomic clean per op: Accumulate's output comes from the pool (run 2 reuses run 1's
  // block of `a`, which holds 2, 3, 4) and must be zero when the kernel starts.
  Fixture f;
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {3}));
  Node* a = g->add_node("Accumulate", {x}, 1, "a");
  g->add_output(g->add_node("AddOne", {a->output(0)}, 1, "y")->output(0));
  g->add_output(g->add_node("Accumulate", {x}, 1, "z")->output(0));
  ASSERT_TRUE(f.ops.infer_graph(*g).is_ok());
  auto exec = Executor::create(std::move(g), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
  std::vector<Tensor> outputs;
  for (float start : {2.0f, -5.0f, 7.0f}) {
    const int memsets = testing::FakeStream::memsets;
    Status s = (*exec)->run({{"x", Tensor::from_vector<float>({3}, {start, start + 1, start + 2})}}, outputs);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(testing::FakeStream::memsets - memsets, 2) << "one memset per Accumulate launch";
    EXPECT_EQ(std::vector<float>(outputs[0].values<float>().begin(), outputs[0].values<float>().end()),
              (std::vector<float>{start + 1, start + 2, start + 3}));
    EXPECT_EQ(std::vector<float>(outputs[1].values<float>().begin(), outputs[1].values<float>().end()),
              (std::vector<float>{start, start + 1, start + 2}));
  }
  EXPECT_GT((*exec)->pool().statistics().hits, 0u) << "the runs must reuse pooled (dirty) storage";
}

TEST(Executor, RejectsBadBindings) {
  Fixture f;
  auto graph = chain_graph({Dim::of(3)});
  ASSERT_TRUE(f.ops.infer_graph(*graph).is_ok());
  auto exec = Executor::create(std::move(graph), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok());
  std::vector<Tensor> out;
  Status unknown = (*exec)->run({{"z", Tensor::from_vector<float>({3}, {1, 2, 3})}}, out);
  EXPECT_EQ(unknown.message(), "unknown input 'z'; the model's inputs are: x");
  Status shape = (*exec)->run({{"x", Tensor::from_vector<float>({4}, {1, 2, 3, 4})}}, out);
  EXPECT_EQ(shape.message(), "input 'x' has shape [4] but the model expects float32[3]");
  Status dtype = (*exec)->run({{"x", Tensor::from_vector<int64_t>({3}, {1, 2, 3})}}, out);
  EXPECT_EQ(dtype.message(), "input 'x' has dtype int64 but the model expects float32");
  Status missing = (*exec)->run({}, out);
  EXPECT_EQ(missing.message(), "input 'x' is not bound; the model's inputs are: x");
  Status twice = (*exec)->run({{"x", Tensor::from_vector<float>({3}, {1, 2, 3})}, {"x", Tensor::from_vector<float>({3}, {1, 2, 3})}}, out);
  EXPECT_EQ(twice.message(), "input 'x' is bound twice");
}

TEST(Executor, SpecialisesNamedDimsPerRun) {
  Fixture f;
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("N")}));
  Value* y = g->add_input("y", TensorDesc(DataType::kFloat32, {Dim::named("N")}));
  g->add_output(g->add_node("Sum2", {x, y}, 1, "s")->output(0));
  ASSERT_TRUE(f.ops.infer_graph(*g).is_ok());
  auto exec = Executor::create(std::move(g), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*exec)->run({{"x", Tensor::from_vector<float>({2}, {1, 2})}, {"y", Tensor::from_vector<float>({2}, {3, 4})}}, out).is_ok());
  EXPECT_EQ(out[0].shape(), std::vector<int64_t>{2});
  EXPECT_EQ(out[0].data<float>()[1], 6.0f);
  ASSERT_TRUE((*exec)->run({{"x", Tensor::from_vector<float>({1}, {5})}, {"y", Tensor::from_vector<float>({1}, {1})}}, out).is_ok());
  EXPECT_EQ(out[0].data<float>()[0], 6.0f);
  Status mismatch = (*exec)->run({{"x", Tensor::from_vector<float>({1}, {5})}, {"y", Tensor::from_vector<float>({2}, {1, 2})}}, out);
  EXPECT_FALSE(mismatch.is_ok());
  EXPECT_NE(mismatch.message().find("named dims must agree"), std::string::npos) << mismatch.message();
}

// A plan for a new input signature takes the kernel an earlier plan prepared for a node
// whose input and output descs did not change (prepacked weights are not made again), and
// prepares only the nodes whose shapes did; the kernels kept per node are bounded.
TEST(Executor, PlansShareTheKernelsOfNodesWhoseShapesDidNotChange) {
  for (const size_t cache_size : {size_t{8}, size_t{1}}) {
    SCOPED_TRACE("cache_size " + std::to_string(cache_size));
    Fixture f;
    auto g = std::make_unique<Graph>();
    Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("N")}));
    Value* z = g->add_input("z", TensorDesc(DataType::kFloat32, {Dim::named("M")}));
    g->add_output(g->add_node("AddOne", {x}, 1, "a")->output(0));
    g->add_output(g->add_node("Twice", {z}, 1, "b")->output(0));
    ASSERT_TRUE(f.ops.infer_graph(*g).is_ok());
    ExecutorOptions options;
    options.cache_size = cache_size;
    auto exec = Executor::create(std::move(g), f.backend, f.ops, options);
    ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
    auto run = [&](std::vector<float> xs, std::vector<float> zs) {
      std::vector<Tensor> out;
      const int64_t n = static_cast<int64_t>(xs.size()), m = static_cast<int64_t>(zs.size());
      Status s = (*exec)->run({{"x", Tensor::from_vector<float>({n}, xs)}, {"z", Tensor::from_vector<float>({m}, zs)}}, out);
      EXPECT_TRUE(s.is_ok()) << s.to_string();
      if (!s.is_ok()) return;
      for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(out[0].data<float>()[i], xs[i] + 1);
      for (size_t i = 0; i < zs.size(); ++i) EXPECT_EQ(out[1].data<float>()[i], zs[i] * 2);
    };
    run({1, 2, 3}, {4, 5});
    EXPECT_EQ(f.backend.prepared, 2);
    run({6, 7, 8}, {1, 2, 3, 4});  // N unchanged: AddOne's kernel comes from the first plan
    EXPECT_EQ(f.backend.prepared, 3);
    EXPECT_EQ((*exec)->kernel_statistics().reused, 1u);
    run({9}, {5, 6});  // M as in the first plan: Twice's kernel is that plan's, if still kept
    const KernelStatistics stats = (*exec)->kernel_statistics();
    EXPECT_EQ(f.backend.prepared, cache_size == 1 ? 5 : 4);
    EXPECT_EQ(stats.reused, cache_size == 1 ? 1u : 2u);
    EXPECT_EQ(stats.prepared, static_cast<uint64_t>(f.backend.prepared));
    EXPECT_EQ(stats.evicted, cache_size == 1 ? 3u : 0u);
  }
}

TEST(Executor, InfersDataDependentShapesAtRunTime) {
  Fixture f;
  auto g = std::make_unique<Graph>();
  Value* n = g->add_input("n", TensorDesc::of(DataType::kInt64, {}));
  Node* range = g->add_node("DynamicRange", {n}, 1, "range");
  g->add_output(g->add_node("Twice", {range->output(0)}, 1, "twice")->output(0));
  ASSERT_TRUE(f.ops.infer_graph(*g).is_ok());
  auto exec = Executor::create(std::move(g), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
  std::vector<Tensor> out;
  Tensor four = Tensor::from_vector<int64_t>({}, {4});
  Status s = (*exec)->run({{"n", four}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(out[0].shape(), std::vector<int64_t>{4});
  EXPECT_EQ(out[0].data<float>()[3], 6.0f);
}

TEST(Executor, UnsupportedOpIsNamedBeforeAnyRun) {
  Fixture f;
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
  g->add_output(g->add_node("Mystery", {x}, 1, "m")->output(0));
  auto exec = Executor::create(std::move(g), f.backend, f.ops);
  ASSERT_FALSE(exec.is_ok());
  EXPECT_EQ(exec.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(exec.status().message(), "backend 'fake' cannot run Mystery 'm' with inputs (float32[2]): no kernel for Mystery");
}

TEST(Executor, ATrippedCancellationTokenStopsTheRunBeforeItsNextNode) {
  Fixture f;
  auto graph = chain_graph({Dim::of(3)});
  ASSERT_TRUE(f.ops.infer_graph(*graph).is_ok());
  auto exec = Executor::create(std::move(graph), f.backend, f.ops);
  ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
  const Tensor x = Tensor::from_vector<float>({3}, {1, 2, 3});
  std::vector<Tensor> outputs;
  CancellationToken token;
  ASSERT_TRUE((*exec)->run({{"x", x}}, outputs, RunOptions{&token}).is_ok()) << "an untripped token changes nothing";
  EXPECT_EQ(outputs[0].data<float>()[0], 14.0f);

  token.cancel();
  const int prepared = f.backend.prepared;
  Status s = (*exec)->run({{"x", x}}, outputs, RunOptions{&token});
  EXPECT_EQ(s.code(), StatusCode::kCancelled) << s.to_string();
  EXPECT_EQ(s.message(), "the run was cancelled (its CancellationToken was tripped) before AddOne 'a'");
  EXPECT_EQ(f.backend.prepared, prepared);

  // The executor stays usable: without the token, or once it is reset.
  ASSERT_TRUE((*exec)->run({{"x", x}}, outputs).is_ok());
  token.reset();
  ASSERT_TRUE((*exec)->run({{"x", x}}, outputs, RunOptions{&token}).is_ok());
  EXPECT_EQ(outputs[0].data<float>()[0], 14.0f);
}

TEST(EvaluateNode, RunsOneNodeOnConstantInputs) {
  Fixture f;
  Graph g;
  Value* x = g.add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
  Value* y = g.add_input("y", TensorDesc::of(DataType::kFloat32, {2}));
  Node* sum = g.add_node("Sum2", {x, y}, 1, "s");
  auto out = evaluate_node(*sum, {Tensor::from_vector<float>({2}, {1, 2}), Tensor::from_vector<float>({2}, {10, 20})},
                           f.backend, f.ops);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].data<float>()[1], 22.0f);
  EXPECT_EQ(g.node_count(), 1u) << "the node's own graph is untouched";
  auto wrong = evaluate_node(*sum, {Tensor::from_vector<float>({2}, {1, 2})}, f.backend, f.ops);
  EXPECT_FALSE(wrong.is_ok());
}

}  // namespace
}  // namespace ge
