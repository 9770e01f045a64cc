// The memory-priority execution order (memory_priority_order) and the planner using it.
#include "ge/memory_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ge/testing/memory_plan.h"

namespace ge {
namespace {

using testing::parse_memory_dsl;
using testing::plan_or_die;
using testing::toy_plan_options;

TEST(MemoryPriorityOrderTest, LowersTheBound) {
  // Three 5120-byte a_i each reduced to a 512-byte b_i. Stable order makes all a_i first
  // (peak a1+a2+a3+b1 = 31 x 512); memory priority finishes each branch first
  // (a1 b1 a2 b2 a3 b3: peak b1+b2+a3+b3 = 13 x 512).
  const char* text =
      "in x[128]; a1=Conv(x)[1280]; a2=Conv(x)[1280]; a3=Conv(x)[1280]; b1=Conv(a1)[128]; b2=Conv(a2)[128]; "
      "b3=Conv(a3)[128]; s=Sum(b1,b2,b3); out s";
  auto g = parse_memory_dsl(text);
  GraphMemoryPlan stable = plan_or_die(*g);
  EXPECT_EQ(stable.statistics.lower_bound_bytes, 31u * 512);

  MemoryPlanOptions options = toy_plan_options();
  options.order = ExecutionOrder::kMemoryPriority;
  GraphMemoryPlan priority = plan_or_die(*g, options);
  EXPECT_EQ(priority.statistics.lower_bound_bytes, 13u * 512);
  std::vector<std::string> names;
  for (const Node* n : priority.order) names.push_back(n->name());
  EXPECT_EQ(names, (std::vector<std::string>{"n_a1", "n_b1", "n_a2", "n_b2", "n_a3", "n_b3", "n_s"}));

  // The planner plans for exactly the order memory_priority_order gives.
  Result<std::vector<const Node*>> order = memory_priority_order(*g);
  ASSERT_TRUE(order.is_ok()) << order.status().to_string();
  EXPECT_EQ(*order, priority.order);
}

}  // namespace
}  // namespace ge
