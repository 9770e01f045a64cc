#include "latency_statistics.h"

#include <gtest/gtest.h>

namespace ge::tools {
namespace {

TEST(LatencyStatisticsTest, ExactWhileTheRunsFitTheReservoir) {
  LatencyStatistics statistics(16);
  for (double v : {4.0, 1.0, 3.0, 2.0}) statistics.add(v);
  EXPECT_EQ(statistics.count(), 4u);
  EXPECT_DOUBLE_EQ(statistics.min(), 1.0);
  EXPECT_DOUBLE_EQ(statistics.max(), 4.0);
  EXPECT_DOUBLE_EQ(statistics.mean(), 2.5);
  EXPECT_DOUBLE_EQ(statistics.quantile(0.5), 2.5);  // the mean of the middle two, as before
  EXPECT_DOUBLE_EQ(statistics.quantile(1.0), 4.0);
  statistics.add(10.0);
  EXPECT_DOUBLE_EQ(statistics.quantile(0.5), 3.0);
}

TEST(LatencyStatisticsTest, ConstantMemoryAndCloseQuantilesOverManyRuns) {
  // The issue: one vector entry per run grew without bound.
  LatencyStatistics statistics(4096);
  constexpr int kRuns = 1000000;
  for (int i = 0; i < kRuns; ++i) statistics.add(static_cast<double>(i % 1000));  // uniform on 0..999
  EXPECT_EQ(statistics.count(), static_cast<uint64_t>(kRuns));
  EXPECT_EQ(statistics.sample_size(), 4096u);
  EXPECT_DOUBLE_EQ(statistics.min(), 0.0);
  EXPECT_DOUBLE_EQ(statistics.max(), 999.0);
  EXPECT_NEAR(statistics.quantile(0.5), 500.0, 30.0);
  EXPECT_NEAR(statistics.quantile(0.9), 900.0, 30.0);
  EXPECT_NEAR(statistics.quantile(0.99), 990.0, 15.0);
}

TEST(LatencyStatisticsTest, NoRunsGiveZeros) {
  LatencyStatistics statistics;
  EXPECT_EQ(statistics.count(), 0u);
  EXPECT_DOUBLE_EQ(statistics.quantile(0.5), 0.0);
}

}  // namespace
}  // namespace ge::tools
