// Every assigner on thousands of random graphs and random request sets: each answer is
// valid, the graph runs correctly out of it, and the assigners rank as they promise.

#include <gtest/gtest.h>

#include <random>

#include "ge/memory_plan.h"
#include "ge/testing/memory_plan.h"
#include "greedy_by_size_assigner.h"
#include "hill_climb_assigner.h"
#include "naive_assigner.h"

namespace ge::memory {
namespace {

TEST(AssignersPropertyTest, RandomGraphsEveryAssignerEveryPlanRuns) {
  auto naive = std::make_shared<NaiveAssigner>();
  auto greedy = std::make_shared<GreedyBySizeAssigner>();
  HillClimbOptions search;
  search.max_iterations = 200;  // keeps the test quick; the ranking holds for any budget
  search.time_budget_ms = 1e9;  // the iteration cap alone decides: same answers on any machine
  auto hill = std::make_shared<HillClimbAssigner>(search);
  std::mt19937 rng(99);
  for (int trial = 0; trial < 600; ++trial) {
    auto graph = testing::random_memory_dag(rng, 1 + trial % 50);
    MemoryPlanOptions options = testing::toy_plan_options();
    options.order = trial % 3 == 0 ? ExecutionOrder::kMemoryPriority : ExecutionOrder::kStable;
    size_t totals[3] = {0, 0, 0};
    int k = 0;
    for (const auto& assigner : std::vector<std::shared_ptr<MemoryAssigner>>{naive, greedy, hill}) {
      Result<GraphMemoryPlan> plan = plan_memory(*graph, {assigner}, options);
      ASSERT_TRUE(plan.is_ok()) << assigner->name() << " trial " << trial << ": " << plan.status().to_string();
      ASSERT_EQ(testing::simulate_plan(*graph, *plan), "") << assigner->name() << " trial " << trial;
      EXPECT_GE(plan->feature_map_bytes, plan->statistics.lower_bound_bytes);
      totals[k++] = plan->feature_map_bytes;
    }
    EXPECT_LE(totals[1], totals[0]) << "trial " << trial;
    EXPECT_LE(totals[2], totals[1]) << "trial " << trial;
    Result<GraphMemoryPlan> all = plan_memory(*graph, {naive, greedy, hill}, options);
    ASSERT_TRUE(all.is_ok());
    EXPECT_EQ(all->feature_map_bytes, std::min({totals[0], totals[1], totals[2]}));
    ASSERT_EQ(testing::simulate_plan(*graph, *all), "") << "trial " << trial;
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(AssignersPropertyTest, RandomRequestsAreAlwaysValid) {
  std::mt19937 rng(5);
  HillClimbOptions search;
  search.time_budget_ms = 1e9;  // the iteration cap alone decides: same answers on any machine
  const std::vector<std::shared_ptr<MemoryAssigner>> assigners{std::make_shared<NaiveAssigner>(),
                                                               std::make_shared<GreedyBySizeAssigner>(),
                                                               std::make_shared<HillClimbAssigner>(search)};
  size_t greedy_at_bound = 0, hill_at_bound = 0;
  const int trials = 2000;
  for (int trial = 0; trial < trials; ++trial) {
    const size_t alignment = size_t{1} << (rng() % 10);
    std::vector<MemoryRequest> requests(1 + rng() % 40);
    for (MemoryRequest& r : requests) {
      r.first_use = rng() % 30;
      r.last_use = r.first_use + static_cast<int64_t>(rng() % 8);
      r.bytes = (rng() % 5 == 0 ? 0 : 1 + rng() % 5) * alignment;
    }
    const size_t bound = peak_live_bytes(requests);
    size_t totals[3];
    for (size_t k = 0; k < assigners.size(); ++k) {
      Result<MemoryPlan> plan = assigners[k]->assign(requests, alignment);
      ASSERT_TRUE(plan.is_ok());
      ASSERT_TRUE(validate_assignment(requests, *plan, alignment).is_ok())
          << assigners[k]->name() << " trial " << trial << ": "
          << validate_assignment(requests, *plan, alignment).message();
      ASSERT_GE(plan->total_bytes, bound);
      totals[k] = plan->total_bytes;
    }
    EXPECT_LE(totals[1], totals[0]);
    EXPECT_LE(totals[2], totals[1]);
    greedy_at_bound += totals[1] == bound;
    hill_at_bound += totals[2] == bound;
  }
  // The search pays off: hill_climb reaches the bound clearly more often.
  EXPECT_GT(hill_at_bound, greedy_at_bound + trials / 20) << "greedy " << greedy_at_bound << ", hill " << hill_at_bound;
}

}  // namespace
}  // namespace ge::memory
