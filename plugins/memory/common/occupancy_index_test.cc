#include "occupancy_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "best_fit_placer.h"
#include "ge/alignment.h"
#include "placement_orders.h"

namespace ge::memory {
namespace {

using Range = OccupancyIndex::Range;

// The union of `ranges`, sorted, disjoint and not touching.
std::vector<Range> union_of(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<Range> out;
  for (const Range& r : ranges) {
    if (!out.empty() && r.first <= out.back().second) {
      out.back().second = std::max(out.back().second, r.second);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

TEST(OccupancyIndexTest, QueryIsTheUnionOfTheRangesLiveThen) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t points = 1 + rng() % 50;
    OccupancyIndex index(points);
    struct Placed {
      size_t first, last;
      Range bytes;
    };
    std::vector<Placed> placed;
    for (int k = 0; k < 60; ++k) {
      size_t a = rng() % points, b = rng() % points;
      if (a > b) std::swap(a, b);
      const size_t begin = rng() % 40, end = begin + 1 + rng() % 8;
      placed.push_back({a, b, {begin, end}});
      index.insert(a, b, begin, end);
      size_t qa = rng() % points, qb = rng() % points;
      if (qa > qb) std::swap(qa, qb);
      std::vector<Range> want;
      for (const Placed& p : placed) {
        if (p.first <= qb && qa <= p.last) want.push_back(p.bytes);
      }
      std::vector<Range> got;
      index.query(qa, qb, got);
      ASSERT_EQ(got, union_of(want)) << "trial " << trial << " query [" << qa << ", " << qb << "]";
    }
    index.clear();
    std::vector<Range> got{{1, 2}};
    index.query(0, points - 1, got);
    EXPECT_TRUE(got.empty());
  }
}

// The placer as it was before OccupancyIndex: every placed request whose window meets,
// one range each. The reference the fast path must match offset for offset.
MemoryPlan reference_best_fit(const std::vector<MemoryRequest>& requests, const std::vector<uint32_t>& order,
                              size_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<uint32_t> placed;
  for (uint32_t id : order) {
    const MemoryRequest& r = requests[id];
    if (r.bytes == 0 || r.first_use > r.last_use) continue;
    std::vector<Range> taken;
    for (uint32_t c : placed) {
      if (requests[c].first_use <= r.last_use && r.first_use <= requests[c].last_use) {
        taken.emplace_back(plan.offsets[c], plan.offsets[c] + requests[c].bytes);
      }
    }
    std::sort(taken.begin(), taken.end());
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (const auto& [begin, end] : taken) {
      const size_t start = align_up(cursor, alignment);
      if (begin > start && begin - start >= r.bytes && begin - start < best_gap) {
        best = start;
        best_gap = begin - start;
      }
      cursor = std::max(cursor, end);
    }
    if (best == SIZE_MAX) best = align_up(cursor, alignment);
    plan.offsets[id] = best;
    plan.total_bytes = std::max(plan.total_bytes, best + r.bytes);
    placed.push_back(id);
  }
  return plan;
}

TEST(BestFitPlacerTest, SameOffsetsAsPlacingAgainstEveryConflict) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t steps = 1 + static_cast<int64_t>(rng() % 40);
    // Unaligned sizes too (alignment 4 or 8), to keep the rounding of gap starts honest.
    const size_t alignment = trial % 2 == 0 ? 4 : 8;
    std::vector<MemoryRequest> requests;
    for (size_t k = 0, n = 1 + rng() % 60; k < n; ++k) {
      const int64_t first = static_cast<int64_t>(rng() % static_cast<uint64_t>(steps));
      const int64_t last = first + static_cast<int64_t>(rng() % 6);
      requests.emplace_back(rng() % 5 == 0 ? 0 : 1 + rng() % 24, first, last);
    }
    BestFitPlacer placer(requests);
    for (auto make_order : {largest_first_order, largest_area_order, longest_lifetime_order, earliest_first_order}) {
      const std::vector<uint32_t> order = make_order(requests);
      const MemoryPlan got = placer.place(order, alignment);
      const MemoryPlan want = reference_best_fit(requests, order, alignment);
      ASSERT_EQ(got.offsets, want.offsets) << "trial " << trial;
      ASSERT_EQ(got.total_bytes, want.total_bytes) << "trial " << trial;
    }
  }
}

// x -> n values all live until one op reads them all (issue 36 item 13), and a chain of
// n values each live for two steps. Placing against every conflicting request read
// n^2 / 2 of them on the fan-out; the runs read stay O(n log n) on both.
std::vector<MemoryRequest> fan_out(int64_t n) {
  std::vector<MemoryRequest> requests;
  for (int64_t i = 0; i < n; ++i) requests.emplace_back(512, i + 1, n + 1);
  requests.emplace_back(512, n + 1, n + 2);
  return requests;
}

std::vector<MemoryRequest> chain(int64_t n) {
  std::vector<MemoryRequest> requests;
  for (int64_t i = 0; i < n; ++i) requests.emplace_back(512 * (1 + i % 3), i + 1, i + 2);
  return requests;
}

TEST(BestFitPlacerTest, WorkOnFanOutAndChainIsNearLinear) {
  constexpr int64_t n = 100'000;
  for (const auto& requests : {fan_out(n), chain(n)}) {
    BestFitPlacer placer(requests);
    const MemoryPlan plan = placer.place(largest_first_order(requests), 512);
    if (requests.size() == n + 1) {
      EXPECT_EQ(plan.total_bytes, peak_live_bytes(requests));  // the fan-out packs tightly
    }
    // A few log2(n) nodes per insert and per query, about one run each (1.1e7 measured on
    // both); placing against every conflict read n^2 / 2 = 5e9 on the fan-out.
    EXPECT_LT(placer.work(), 10u * n * 17) << "work " << placer.work();
  }
}

}  // namespace
}  // namespace ge::memory
