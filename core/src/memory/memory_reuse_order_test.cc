// Tests of the memory reuse order (core/src/memory/memory_reuse_order.h): streams ordered so that
// buffers keep a one-stream plan's bytes, or give up the widest concurrent pair.
#include "memory_reuse_order.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ge/runtime/stream_plan.h"
#include "ge/testing/memory_plan.h"
#include "ge/testing/stream_schedule.h"
#include "stream_lifetimes.h"

namespace ge {
namespace {

using ::testing::HasSubstr;
using testing::parse_memory_dsl;
using testing::random_memory_dag;
using testing::random_stream_schedule;
using testing::simulate_plan;
using testing::toy_plan_options;

std::vector<std::shared_ptr<MemoryAssigner>> core_first_fit() { return {first_fit_assigner()}; }

/// A graph's stable order with its dependences, and plans over it.
struct Planned {
  std::vector<const Node*> order;
  std::vector<std::vector<size_t>> predecessors;
  MemoryPlanOptions options = toy_plan_options();

  explicit Planned(const Graph& graph, bool zero_copy_io = true) {
    Result<std::vector<Node*>> nodes = graph.topological_order(TopoOrder::kStable);
    EXPECT_TRUE(nodes.is_ok());
    order.assign(nodes->begin(), nodes->end());
    Result<std::vector<std::vector<size_t>>> dependences = order_predecessors(order);
    EXPECT_TRUE(dependences.is_ok()) << dependences.status().to_string();
    predecessors = std::move(dependences).value();
    options.explicit_order = order;
    options.zero_copy_io = zero_copy_io;
  }

  /// Streams over the order for the dependences plus `extra` (per node, as the reuse order gives).
  StreamPlan streams(int max_streams, const std::vector<std::vector<size_t>>& extra = {}) const {
    std::vector<std::vector<size_t>> all = predecessors;
    for (size_t v = 0; v < extra.size(); ++v) all[v].insert(all[v].end(), extra[v].begin(), extra[v].end());
    StreamPlanOptions stream_options;
    stream_options.max_streams = max_streams;
    Result<StreamPlan> plan = plan_streams(all, stream_options);
    EXPECT_TRUE(plan.is_ok()) << plan.status().to_string();
    return plan.is_ok() ? std::move(plan).value() : StreamPlan{};
  }

  Result<GraphMemoryPlan> memory(const Graph& graph, const StreamPlan* streams,
                                 const std::vector<std::shared_ptr<MemoryAssigner>>& assigners = core_first_fit()) const {
    MemoryPlanOptions with = options;
    with.streams = streams != nullptr && streams->stream_count > 1 ? streams : nullptr;
    return plan_memory(graph, assigners, with);
  }
};

/// The one-stream plan's offsets, offered as an assigner.
std::shared_ptr<MemoryAssigner> replay(const GraphMemoryPlan& plan) {
  std::vector<size_t> offsets;
  for (const MemoryBuffer& buffer : plan.buffers) offsets.push_back(buffer.offset);
  return fixed_offsets_assigner("one-stream plan", std::move(offsets), plan.feature_map_bytes);
}

/// The plan passes the validator and runs clean in `schedules` random interleavings of its streams.
void expect_runs_clean(const Graph& graph, const GraphMemoryPlan& plan, std::mt19937& rng, int schedules = 8) {
  ASSERT_TRUE(validate_memory_plan(plan).is_ok()) << validate_memory_plan(plan).to_string();
  ASSERT_EQ(simulate_plan(graph, plan), "");
  if (plan.streams.stream_count <= 1) return;
  for (int schedule = 0; schedule < schedules; ++schedule) {
    GraphMemoryPlan reordered = plan;
    reordered.order = random_stream_schedule(plan, rng);
    ASSERT_EQ(reordered.order.size(), plan.order.size()) << "the events deadlock";
    ASSERT_EQ(simulate_plan(graph, reordered), "") << "schedule " << schedule;
  }
}

// a1..a3 and b1..b3: two chains from x that join in c.
constexpr const char* kTwoChains =
    "in x[256]; a1=Conv(x)[256]; a2=Conv(a1)[256]; a3=Conv(a2)[256]; b1=Conv(x)[256]; b2=Conv(b1)[256]; "
    "b3=Conv(b2)[256]; c=Conv(a3,b3)[256]; d=Conv(c)[256]; out d";

TEST(MemoryReuseOrderTest, TwoChainsOnTwoStreamsKeepTheOneStreamBytes) {
  auto g = parse_memory_dsl(kTwoChains);
  Planned planned(*g);
  Result<GraphMemoryPlan> one = planned.memory(*g, nullptr);
  ASSERT_TRUE(one.is_ok()) << one.status().to_string();
  const StreamPlan side_by_side = planned.streams(2);
  ASSERT_EQ(side_by_side.stream_count, 2);
  Result<GraphMemoryPlan> unordered = planned.memory(*g, &side_by_side);
  ASSERT_TRUE(unordered.is_ok());
  ASSERT_GT(unordered->feature_map_bytes, one->feature_map_bytes) << "the chains side by side need more bytes";

  Result<std::vector<std::vector<size_t>>> reuse = memory_reuse_order(*one);
  ASSERT_TRUE(reuse.is_ok()) << reuse.status().to_string();
  ASSERT_EQ(reuse->size(), planned.order.size());
  size_t added = 0;
  for (size_t v = 0; v < reuse->size(); ++v) {
    added += (*reuse)[v].size();
    EXPECT_TRUE(std::is_sorted((*reuse)[v].begin(), (*reuse)[v].end()));
    for (size_t u : (*reuse)[v]) EXPECT_LT(u, v);
  }
  EXPECT_GT(added, 0u) << "the second chain reuses bytes of the first";

  const StreamPlan ordered = planned.streams(2, *reuse);
  Result<GraphMemoryPlan> reusing = planned.memory(*g, &ordered, {replay(*one), first_fit_assigner()});
  ASSERT_TRUE(reusing.is_ok()) << reusing.status().to_string();
  EXPECT_LE(reusing->feature_map_bytes, one->feature_map_bytes);
  std::mt19937 rng(3);
  expect_runs_clean(*g, *reusing, rng);
}

TEST(MemoryReuseOrderTest, WidestConcurrentPairIsSerialisedFirst) {
  // Two branches from x; the a side holds 1 KiB buffers, the b side 256 B ones.
  auto g = parse_memory_dsl(
      "in x[256]; a1=Conv(x)[1024]; a2=Conv(a1)[1024]; a3=Conv(a2)[256]; b1=Conv(x)[256]; b2=Conv(b1)[256]; "
      "b3=Conv(b2)[256]; c=Conv(a3,b3)[256]; out c");
  Planned planned(*g);
  const StreamPlan side_by_side = planned.streams(2);
  ASSERT_EQ(side_by_side.stream_count, 2);
  Result<GraphMemoryPlan> plan = planned.memory(*g, &side_by_side);
  ASSERT_TRUE(plan.is_ok());
  Result<std::vector<std::vector<size_t>>> widest = widest_concurrent_pair_order(*plan);
  ASSERT_TRUE(widest.is_ok()) << widest.status().to_string();
  std::vector<std::pair<std::string, std::string>> edges;
  for (size_t v = 0; v < widest->size(); ++v) {
    for (size_t u : (*widest)[v]) edges.emplace_back(planned.order[u]->name(), planned.order[v]->name());
  }
  ASSERT_FALSE(edges.empty());
  // The widest pair has a 1 KiB buffer on the earlier side at least; nothing of the later
  // side runs before the earlier side is done with it.
  const StreamPlan serialised = planned.streams(2, *widest);
  Result<GraphMemoryPlan> after = planned.memory(*g, &serialised);
  ASSERT_TRUE(after.is_ok()) << after.status().to_string();
  std::mt19937 rng(5);
  expect_runs_clean(*g, *after, rng);
  EXPECT_LE(after->feature_map_bytes, plan->feature_map_bytes);

  // Once nothing is concurrent any more, there is no pair to give.
  const StreamPlan one_stream = planned.streams(1);
  Result<GraphMemoryPlan> single = planned.memory(*g, &one_stream);
  ASSERT_TRUE(single.is_ok());
  EXPECT_THAT(widest_concurrent_pair_order(*single).status().message(), HasSubstr("one stream"));
  EXPECT_THAT(memory_reuse_order(*plan).status().message(), HasSubstr("one-stream plan"));
}

/// Random DAGs on 2-4 streams: ordered for reuse, every plan keeps the one-stream bytes;
/// serialised pair by pair, every intermediate plan is valid; each runs clean in random
/// interleavings of its streams.
TEST(MemoryReuseOrderTest, RandomDagsOrderedForReuseRunCorrectlyInEveryScheduleTried) {
  std::mt19937 rng(20261203);
  int still_parallel = 0, serialised_pairs = 0, several = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    auto graph = random_memory_dag(rng, 3 + trial % 30);
    Planned planned(*graph, rng() % 4 != 0);
    const int max_streams = 2 + static_cast<int>(rng() % 3);
    const StreamPlan side_by_side = planned.streams(max_streams);
    if (side_by_side.stream_count <= 1) continue;
    ++several;
    Result<GraphMemoryPlan> one = planned.memory(*graph, nullptr);
    ASSERT_TRUE(one.is_ok()) << one.status().to_string();

    Result<std::vector<std::vector<size_t>>> reuse = memory_reuse_order(*one);
    ASSERT_TRUE(reuse.is_ok()) << reuse.status().to_string();
    const StreamPlan ordered = planned.streams(max_streams, *reuse);
    Result<GraphMemoryPlan> reusing = planned.memory(*graph, &ordered, {replay(*one), first_fit_assigner()});
    ASSERT_TRUE(reusing.is_ok()) << reusing.status().to_string();
    EXPECT_LE(reusing->feature_map_bytes, one->feature_map_bytes);
    if (ordered.stream_count > 1) {
      ++still_parallel;
      EXPECT_EQ(reusing->statistics.assigner, "one-stream plan") << "the replayed offsets hold on the ordered streams";
    }
    expect_runs_clean(*graph, *reusing, rng, 4);

    // Pair by pair.
    std::vector<std::vector<size_t>> extra(planned.order.size());
    Result<GraphMemoryPlan> current = planned.memory(*graph, &side_by_side);
    ASSERT_TRUE(current.is_ok()) << current.status().to_string();
    for (int pair = 0; pair < 6 && current->streams.stream_count > 1; ++pair) {
      Result<std::vector<std::vector<size_t>>> widest = widest_concurrent_pair_order(*current);
      ASSERT_TRUE(widest.is_ok()) << widest.status().to_string();
      bool any = false;
      for (size_t v = 0; v < extra.size(); ++v) {
        any |= !(*widest)[v].empty();
        extra[v].insert(extra[v].end(), (*widest)[v].begin(), (*widest)[v].end());
      }
      if (!any) break;
      ++serialised_pairs;
      const StreamPlan serialised = planned.streams(max_streams, extra);
      current = planned.memory(*graph, &serialised);
      ASSERT_TRUE(current.is_ok()) << current.status().to_string();
      expect_runs_clean(*graph, *current, rng, 2);
    }
  }
  EXPECT_GT(several, 150);
  EXPECT_GT(still_parallel, 20) << "ordering for reuse keeps some streams";
  EXPECT_GT(serialised_pairs, 200);
}

}  // namespace
}  // namespace ge
