// The core's first-fit assigner (first_fit_assigner(), ge/plugin_api/memory_assigner.h): the same
// offsets as the scan over every live request it replaced, and valid plans on the
// fan-out that made that scan quadratic (issue 36 item 13).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "ge/alignment.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/memory_plan.h"

namespace ge {
namespace {

// First use order; each request at the lowest aligned offset clear of the live ones.
MemoryPlan reference_first_fit(const std::vector<MemoryRequest>& requests, size_t alignment) {
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].first_use < requests[b].first_use; });
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> live;
  for (size_t id : order) {
    const MemoryRequest& request = requests[id];
    if (request.bytes == 0) continue;
    std::erase_if(live, [&](size_t other) { return requests[other].last_use < request.first_use; });
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    size_t offset = 0;
    for (size_t other : live) {
      if (plan.offsets[other] >= offset + request.bytes) break;
      offset = std::max(offset, align_up(plan.offsets[other] + requests[other].bytes, alignment));
    }
    plan.offsets[id] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + request.bytes);
    live.push_back(id);
  }
  return plan;
}

TEST(FirstFitAssignerTest, SameOffsetsAsScanningEveryLiveRequest) {
  std::mt19937 rng(23);
  const auto assigner = first_fit_assigner();
  for (int trial = 0; trial < 500; ++trial) {
    const size_t alignment = trial % 3 == 0 ? 1 : (trial % 3 == 1 ? 8 : 512);
    std::vector<MemoryRequest> requests;
    for (size_t k = 0, n = 1 + rng() % 80; k < n; ++k) {
      const auto first = static_cast<int64_t>(rng() % 30);
      // Sizes off the alignment too: gap starts are rounded up, gap ends are not.
      const size_t bytes = rng() % 6 == 0 ? 0 : (trial % 2 == 0 ? 1 + rng() % 1500 : alignment * (1 + rng() % 4));
      requests.emplace_back(bytes, first, first + static_cast<int64_t>(rng() % 8));
    }
    Result<MemoryPlan> got = assigner->assign(requests, alignment);
    ASSERT_TRUE(got.is_ok());
    const MemoryPlan want = reference_first_fit(requests, alignment);
    ASSERT_EQ(got->offsets, want.offsets) << "trial " << trial;
    ASSERT_EQ(got->total_bytes, want.total_bytes) << "trial " << trial;
    ASSERT_TRUE(validate_assignment(requests, *got, alignment).is_ok()) << "trial " << trial;
  }
}

TEST(FirstFitAssignerTest, FanOutOfManyLiveValuesPacksTightly) {
  // x -> 200,000 values all live until one op reads them all: the old scan looked at
  // every live request for each new one (2e10 steps); now it is O(n log n).
  constexpr int64_t n = 200'000;
  std::vector<MemoryRequest> requests;
  for (int64_t i = 0; i < n; ++i) requests.emplace_back(512, i + 1, n + 1);
  requests.emplace_back(512, n + 1, n + 2);
  Result<MemoryPlan> plan = first_fit_assigner()->assign(requests, 512);
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->total_bytes, peak_live_bytes(requests));
  EXPECT_TRUE(validate_assignment(requests, *plan, 512).is_ok());
}

}  // namespace
}  // namespace ge
