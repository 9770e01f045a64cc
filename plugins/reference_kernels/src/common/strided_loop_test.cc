// Tests of the strided loop that broadcasting and Transpose walk.

#include "common/strided_loop.h"

#include <gtest/gtest.h>

namespace ge::reference_kernels {
namespace {

TEST(StridedLoop, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes({2, 3, 4}, {3, 1}), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({2, 1}, {3}), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(broadcast_shapes({}, {5}), (std::vector<int64_t>{5}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 3}), (std::vector<int64_t>{0, 3}));
  EXPECT_FALSE(broadcast_shapes({2, 3}, {2}).has_value());
}

TEST(StridedLoop, BroadcastStridesAreZeroOnUnitAxes) {
  EXPECT_EQ(broadcast_strides({3, 1}, 3), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(broadcast_strides({2, 3, 4}, 3), (std::vector<int64_t>{12, 4, 1}));
}

TEST(StridedLoop, ContiguousOperandsMergeIntoOneRun) {
  std::optional<StridedLoop> loop = make_strided_loop({2, 3, 4}, {{12, 4, 1}, {12, 4, 1}});
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->rank, 1);
  EXPECT_EQ(loop->inner_size(), 24);
}

TEST(StridedLoop, BroadcastKeepsTheAxesThatDiffer) {
  // [2,3,4] + [3,1]: B repeats each value 4 times and restarts per block of 3 rows.
  std::optional<StridedLoop> loop = make_strided_loop({2, 3, 4}, {{12, 4, 1}, {0, 1, 0}});
  ASSERT_TRUE(loop.has_value());
  ASSERT_EQ(loop->rank, 3);
  std::vector<int64_t> rows, b_offsets;
  for_each_run(*loop, [&](int64_t row, int64_t, int64_t b_offset) {
    rows.push_back(row);
    b_offsets.push_back(b_offset);
  });
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(b_offsets, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(loop->inner_stride(1), 0);
}

TEST(StridedLoop, EmptyOutputRunsNothing) {
  std::optional<StridedLoop> loop = make_strided_loop({2, 0, 3}, {{0, 3, 1}, {0, 3, 1}});
  ASSERT_TRUE(loop.has_value());
  int runs = 0;
  for_each_run(*loop, [&](int64_t, int64_t, int64_t) { ++runs; });
  EXPECT_EQ(runs, 0);
}

TEST(StridedLoop, ScalarIsOneRunOfOne) {
  std::optional<StridedLoop> loop = make_strided_loop({}, {{}, {}});
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->rank, 1);
  EXPECT_EQ(loop->inner_size(), 1);
}

}  // namespace
}  // namespace ge::reference_kernels
