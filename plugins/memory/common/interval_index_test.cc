#include "interval_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "best_fit_placer.h"
#include "placement_orders.h"

namespace ge::memory {
namespace {

TEST(IntervalIndexTest, FindsExactlyTheIntersectingIntervals) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t points = 1 + rng() % 70;
    IntervalIndex index(points);
    std::vector<std::pair<size_t, size_t>> intervals;
    for (uint32_t id = 0; id < 60; ++id) {
      size_t a = rng() % points, b = rng() % points;
      if (a > b) std::swap(a, b);
      intervals.push_back({a, b});
      index.insert(id, a, b);
      // Query a random range after every insert and compare with a linear scan.
      size_t qa = rng() % points, qb = rng() % points;
      if (qa > qb) std::swap(qa, qb);
      std::vector<uint32_t> got;
      index.query(qa, qb, got);
      std::sort(got.begin(), got.end());
      std::vector<uint32_t> want;
      for (uint32_t j = 0; j < intervals.size(); ++j) {
        if (intervals[j].first <= qb && qa <= intervals[j].second) want.push_back(j);
      }
      ASSERT_EQ(got, want) << "trial " << trial << " query [" << qa << ", " << qb << "]";
    }
  }
}

TEST(IntervalIndexTest, ClearForgetsEverything) {
  IntervalIndex index(8);
  index.insert(0, 1, 5);
  index.clear();
  std::vector<uint32_t> got;
  index.query(0, 7, got);
  EXPECT_TRUE(got.empty());
}

TEST(PlacementOrdersTest, SortKeys) {
  // bytes, first, last
  std::vector<MemoryRequest> r{{512, 0, 0}, {1024, 2, 3}, {512, 1, 9}, {1024, 1, 1}};
  EXPECT_EQ(largest_first_order(r), (std::vector<uint32_t>{3, 1, 0, 2}));
  // areas: 512, 2048, 5120, 1024
  EXPECT_EQ(largest_area_order(r), (std::vector<uint32_t>{2, 1, 3, 0}));
  // lengths: 1, 2, 9, 1
  EXPECT_EQ(longest_lifetime_order(r), (std::vector<uint32_t>{2, 1, 3, 0}));
  EXPECT_EQ(earliest_first_order(r), (std::vector<uint32_t>{0, 2, 3, 1}));
}

TEST(BestFitPlacerTest, StepsNeedNotBeDense) {
  // Steps far apart compress to four points; 0-byte requests take no room.
  std::vector<MemoryRequest> r{{512, 1000000, 2000000}, {512, 2000000, 3000000}, {0, 0, 5}, {512, 3000001, 3000002}};
  BestFitPlacer placer(r);
  MemoryPlan plan = placer.place({0, 1, 2, 3}, 512);
  EXPECT_EQ(plan.offsets, (std::vector<size_t>{0, 512, 0, 0}));
  EXPECT_EQ(plan.total_bytes, 1024u);
}

}  // namespace
}  // namespace ge::memory
