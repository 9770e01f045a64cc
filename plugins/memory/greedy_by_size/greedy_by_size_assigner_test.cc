#include "greedy_by_size_assigner.h"

#include <gtest/gtest.h>

#include "ge/memory_plan.h"
#include "ge/testing/memory_plan.h"

namespace ge::memory {
namespace {

constexpr size_t U = 512;  // one alignment unit; [128] float32 in the DSL

size_t offset_of(const GraphMemoryPlan& plan, const Graph& graph, const char* name) {
  return plan.find(graph.find_value(name))->offset;
}

TEST(GreedyBySizeAssignerTest, GoldenOffsetsChainWithSkips) {
  // step: 1 alloc a(2U) | 2 alloc b(1U) | 3 alloc c(3U), free b | 4 alloc d(1U), free a c
  //       5 alloc e(4U) | 6 f (graph output), free d e          lower bound 6U (steps 3, 4)
  // Largest first: e@0; c@0 (e not live with c); a above c @3U; b above c and a @5U;
  // d above c/e/a @5U (b is dead by 4). Arena 6U = the bound.
  auto graph = testing::parse_memory_dsl(
      "in x[128]; a=Conv(x)[256]; b=Conv(a)[128]; c=Conv(b)[384]; d=Conv(c,a)[128]; e=Conv(d)[512]; f=Conv(e,d)[128]; "
      "out f");
  Result<GraphMemoryPlan> plan = plan_memory(*graph, {std::make_shared<GreedyBySizeAssigner>()}, testing::toy_plan_options());
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(offset_of(*plan, *graph, "e"), 0u);
  EXPECT_EQ(offset_of(*plan, *graph, "c"), 0u);
  EXPECT_EQ(offset_of(*plan, *graph, "a"), 3 * U);
  EXPECT_EQ(offset_of(*plan, *graph, "b"), 5 * U);
  EXPECT_EQ(offset_of(*plan, *graph, "d"), 5 * U);
  EXPECT_EQ(plan->feature_map_bytes, 6 * U);
  EXPECT_EQ(plan->statistics.lower_bound_bytes, 6 * U);
}

TEST(GreedyBySizeAssignerTest, GoldenOffsetsWhereLargestFirstMissesTheBound) {
  // step: 1 alloc v1(4U) | 2 alloc v2(4U), free v1 | 3 alloc v3(3U) | 4 alloc v4(1U),
  //       free v2 | 5 alloc v5(4U, unused), free v3 v4 v5 | 6 y (graph output)
  // lower bound 8U (step 4: v2 v3 v4; step 5: v3 v4 v5).
  // Largest first: v1@0; v2@4U; v5@0; v3 above v5 and v2 @8U; v4 @11U -> 12U.
  auto graph = testing::parse_memory_dsl(
      "in x[128]; v1=Conv(x)[512]; v2=Conv(v1)[512]; v3=Conv(x)[384]; v4=Conv(v2)[128]; v5=Conv(v3,v4)[512]; "
      "y=Conv(x)[128]; out y");
  Result<GraphMemoryPlan> plan = plan_memory(*graph, {std::make_shared<GreedyBySizeAssigner>()}, testing::toy_plan_options());
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(offset_of(*plan, *graph, "v1"), 0u);
  EXPECT_EQ(offset_of(*plan, *graph, "v2"), 4 * U);
  EXPECT_EQ(offset_of(*plan, *graph, "v5"), 0u);
  EXPECT_EQ(offset_of(*plan, *graph, "v3"), 8 * U);
  EXPECT_EQ(offset_of(*plan, *graph, "v4"), 11 * U);
  EXPECT_EQ(plan->feature_map_bytes, 12 * U);
  EXPECT_EQ(plan->statistics.lower_bound_bytes, 8 * U);
}

TEST(GreedyBySizeAssignerTest, InPlaceChainIsOneBuffer) {
  // 1 a=Conv | 2 b=Relu(a) over a | 3 c=Conv(b) | 4 d=Add(c,b) over c (its first input) | 5 e
  auto graph = testing::parse_memory_dsl(
      "in x[128]; a=Conv(x)[256]; b=Relu(a); c=Conv(b)[256]; d=Add(c,b); e=Conv(d)[128]; out e");
  Result<GraphMemoryPlan> plan = plan_memory(*graph, {std::make_shared<GreedyBySizeAssigner>()}, testing::toy_plan_options());
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  // Buffers: {a,b} [1,4] 2U and {c,d} [3,5] 2U (d in place over c, which dies at 4).
  EXPECT_EQ(plan->buffers.size(), 2u);
  EXPECT_EQ(offset_of(*plan, *graph, "a"), 0u);
  EXPECT_EQ(offset_of(*plan, *graph, "b"), 0u);
  EXPECT_EQ(offset_of(*plan, *graph, "c"), 2 * U);
  EXPECT_EQ(offset_of(*plan, *graph, "d"), 2 * U);
  EXPECT_EQ(plan->feature_map_bytes, 4 * U);
}

TEST(GreedyBySizeAssignerTest, BestFitTakesTheSmallestGap) {
  // Requests (size, steps): r0 4U [3,6], r1 6U [5,5], r2 2U [3,6], r3 1U [3,3], r4 3U [5,6].
  // Order r1 r0 r4 r2 r3: r1@0, r0@6U, r4@10U, r2@13U. r3 meets r0 and r2 only: gaps
  // [0,6U) and [10U,13U); the smaller one that fits wins -> r3@10U (first fit: @0).
  GreedyBySizeAssigner greedy;
  Result<MemoryPlan> plan =
      greedy.assign({{4 * U, 3, 6}, {6 * U, 5, 5}, {2 * U, 3, 6}, {1 * U, 3, 3}, {3 * U, 5, 6}}, U);
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->offsets, (std::vector<size_t>{6 * U, 0, 13 * U, 10 * U, 10 * U}));
  EXPECT_EQ(plan->total_bytes, 15 * U);
}

TEST(GreedyBySizeAssignerTest, EdgeCases) {
  GreedyBySizeAssigner greedy;
  Result<MemoryPlan> empty = greedy.assign({}, U);
  ASSERT_TRUE(empty.is_ok());
  EXPECT_EQ(empty->total_bytes, 0u);
  // Zero-byte requests take no room; unaligned sizes still land on aligned offsets.
  Result<MemoryPlan> plan = greedy.assign({{0, 0, 9}, {100, 0, 1}, {100, 1, 2}}, 64);
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->offsets, (std::vector<size_t>{0, 0, 128}));
  EXPECT_TRUE(validate_assignment({{0, 0, 9}, {100, 0, 1}, {100, 1, 2}}, *plan, 64).is_ok());
  EXPECT_FALSE(greedy.assign({{1, 0, 0}}, 0).is_ok());
}

}  // namespace
}  // namespace ge::memory
