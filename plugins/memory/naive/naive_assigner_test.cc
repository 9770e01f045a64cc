#include "naive_assigner.h"

#include <gtest/gtest.h>

#include "ge/memory_plan.h"
#include "ge/testing/memory_plan.h"

namespace ge::memory {
namespace {

// Sizes in the DSL are float32 elements: [128] = 512 bytes = one alignment unit U.
constexpr const char* kChainWithSkips =
    "in x[128]; a=Conv(x)[256]; b=Conv(a)[128]; c=Conv(b)[384]; d=Conv(c,a)[128]; e=Conv(d)[512]; f=Conv(e,d)[128]; "
    "out f";

TEST(NaiveAssignerTest, GoldenOffsets) {
  // step: 1 alloc a(2U) | 2 alloc b(1U) | 3 alloc c(3U), free b | 4 alloc d(1U), free a c
  //       5 alloc e(4U) | 6 f (graph output), free d e
  // No reuse: a@0, b@2U, c@3U, d@6U, e@7U.
  auto graph = testing::parse_memory_dsl(kChainWithSkips);
  Result<GraphMemoryPlan> plan = plan_memory(*graph, {std::make_shared<NaiveAssigner>()});
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  auto offset = [&](const char* name) { return plan->find(graph->find_value(name))->offset; };
  EXPECT_EQ(offset("a"), 0u);
  EXPECT_EQ(offset("b"), 1024u);
  EXPECT_EQ(offset("c"), 1536u);
  EXPECT_EQ(offset("d"), 3072u);
  EXPECT_EQ(offset("e"), 3584u);
  EXPECT_EQ(plan->feature_map_bytes, 5632u);
  EXPECT_EQ(plan->statistics.lower_bound_bytes, 3072u);  // a+b+c at step 3, a+c+d at step 4
}

TEST(NaiveAssignerTest, RoundsEachRequestToTheAlignment) {
  NaiveAssigner naive;
  Result<MemoryPlan> plan = naive.assign({{100, 0, 1}, {64, 0, 1}, {0, 0, 1}, {65, 5, 6}}, 64);
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->offsets, (std::vector<size_t>{0, 128, 192, 192}));
  EXPECT_EQ(plan->total_bytes, 320u);
  EXPECT_FALSE(naive.assign({{1, 0, 0}}, 0).is_ok());
  Result<MemoryPlan> empty = naive.assign({}, 512);
  ASSERT_TRUE(empty.is_ok());
  EXPECT_EQ(empty->total_bytes, 0u);
}

}  // namespace
}  // namespace ge::memory
