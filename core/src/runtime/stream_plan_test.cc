// Tests of stream planning and its validation (ge/runtime/stream_plan.h).
#include "ge/runtime/stream_plan.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace ge {
namespace {

using Preds = std::vector<std::vector<size_t>>;

StreamPlan plan_ok(const Preds& preds, int max_streams) {
  StreamPlanOptions options;
  options.max_streams = max_streams;
  auto plan = plan_streams(preds, options);
  EXPECT_TRUE(plan.is_ok()) << plan.status().to_string();
  return plan.is_ok() ? *plan : StreamPlan{};
}

/// reach[u][v]: v runs after u given stream order and `events` except `skip`.
std::vector<std::vector<bool>> ordering(const StreamPlan& plan, size_t n, size_t skip) {
  std::vector<std::vector<size_t>> next(n);
  for (const auto& stream : plan.streams) {
    for (size_t i = 1; i < stream.size(); ++i) next[stream[i - 1]].push_back(stream[i]);
  }
  for (size_t e = 0; e < plan.events.size(); ++e) {
    if (e != skip) next[plan.events[e].producer].push_back(plan.events[e].consumer);
  }
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (size_t u = n; u-- > 0;) {
    for (size_t w : next[u]) {
      reach[u][w] = true;
      for (size_t x = 0; x < n; ++x) {
        if (reach[w][x]) reach[u][x] = true;
      }
    }
  }
  return reach;
}

bool all_dependencies_ordered(const Preds& preds, const StreamPlan& plan, size_t skip) {
  const auto reach = ordering(plan, preds.size(), skip);
  for (size_t v = 0; v < preds.size(); ++v) {
    for (size_t u : preds[v]) {
      if (!reach[u][v]) return false;
    }
  }
  return true;
}

TEST(StreamPlan, OneStreamHasNoEvents) {
  const Preds preds = {{}, {0}, {0}, {1, 2}};
  const StreamPlan plan = plan_ok(preds, 1);
  EXPECT_EQ(plan.stream_count, 1);
  EXPECT_EQ(plan.streams[0], (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(plan.events.empty());
}

TEST(StreamPlan, FourBranchesJoinWithThreeEvents) {
  // Branch i is nodes 2i, 2i+1; node 8 joins the four branch ends.
  const Preds preds = {{}, {0}, {}, {2}, {}, {4}, {}, {6}, {1, 3, 5, 7}};
  const StreamPlan plan = plan_ok(preds, 4);
  EXPECT_EQ(plan.stream_count, 4);
  EXPECT_EQ(plan.stream_of, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 0}));
  EXPECT_EQ(plan.events, (std::vector<StreamEvent>{{3, 8}, {5, 8}, {7, 8}}));
}

TEST(StreamPlan, DiamondOnTwoStreams) {
  const Preds preds = {{}, {0}, {0}, {1, 2}};
  const StreamPlan plan = plan_ok(preds, 2);
  EXPECT_EQ(plan.stream_of, (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(plan.events, (std::vector<StreamEvent>{{0, 2}, {2, 3}}));
}

TEST(StreamPlan, PrunesEventImpliedByEarlierWait) {
  // a=0, x=1 on stream 0; c=2 waits for a; d=3 needs a and c: a is already known.
  const Preds preds = {{}, {0}, {0}, {2, 0}};
  const StreamPlan plan = plan_ok(preds, 2);
  EXPECT_EQ(plan.stream_of, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(plan.events, (std::vector<StreamEvent>{{0, 2}}));
}

TEST(StreamPlan, PrunesEventImpliedByAnotherCandidate) {
  // a=0, b=1 on s0; c=2 waits for a on s1; f=3 opens s2; v=4 continues f and needs a
  // and c: waiting for c already orders a.
  const Preds preds = {{}, {0}, {0}, {}, {3, 0, 2}};
  const StreamPlan plan = plan_ok(preds, 3);
  EXPECT_EQ(plan.stream_of, (std::vector<int>{0, 0, 1, 2, 2}));
  EXPECT_EQ(plan.events, (std::vector<StreamEvent>{{0, 2}, {2, 4}}));
}

TEST(StreamPlan, ExtraNodesJoinTheShortestStream) {
  // Three independent sources on two streams: the third goes to a stream of one node.
  const StreamPlan plan = plan_ok({{}, {}, {}}, 2);
  EXPECT_EQ(plan.stream_count, 2);
  EXPECT_EQ(plan.stream_of, (std::vector<int>{0, 1, 0}));
  EXPECT_TRUE(plan.events.empty());
}

TEST(StreamPlan, RejectsBadInput) {
  StreamPlanOptions options;
  options.max_streams = 0;
  auto bad_option = plan_streams({{}}, options);
  ASSERT_FALSE(bad_option.is_ok());
  EXPECT_NE(bad_option.status().message().find("max_streams"), std::string::npos);
  options.max_streams = 2;
  auto forward = plan_streams({{}, {2}, {}}, options);
  ASSERT_FALSE(forward.is_ok());
  EXPECT_EQ(forward.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(forward.status().message().find("node 1 has predecessor 2"), std::string::npos);
  EXPECT_FALSE(plan_streams({{0}}, options).is_ok());
}

TEST(StreamPlan, ValidatorRejectsMalformedPlans) {
  const Preds preds = {{}, {0}, {0}, {1, 2}};  // a diamond
  const StreamPlan good = plan_ok(preds, 2);
  ASSERT_EQ(good.stream_count, 2);
  ASSERT_TRUE(validate_stream_plan(preds, good).is_ok());
  auto expect_error = [&](StreamPlan plan, const std::string& needle) {
    const Status status = validate_stream_plan(preds, plan);
    ASSERT_FALSE(status.is_ok()) << needle;
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find(needle), std::string::npos) << status.message();
  };
  StreamPlan plan = good;
  plan.stream_count = 5000;
  expect_error(plan, "stream count 5000");
  plan = good;
  plan.stream_of[3] = 7;
  expect_error(plan, "node 3 is on stream 7");
  plan = good;
  plan.stream_of.pop_back();
  expect_error(plan, "places 3 nodes");
  plan = good;
  std::swap(plan.streams[0], plan.streams[1]);
  expect_error(plan, "node list does not hold node");
  plan = good;
  plan.events.push_back({3, 1});
  expect_error(plan, "does not go forward");
  plan = good;
  plan.events.push_back(plan.events.front());
  expect_error(plan, "listed twice");
  plan = good;
  plan.events.clear();
  expect_error(plan, "no stream order or event orders them");
  // Everything on one stream needs no event at all.
  StreamPlan single = plan_ok(preds, 1);
  EXPECT_TRUE(validate_stream_plan(preds, single).is_ok());
  single.events.push_back({0, 1});
  expect_error(single, "stays on one stream");
}

TEST(StreamPlan, RandomDagsAreOrderedAndEventsMinimal) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 1 + rng() % 40;
    const double density = (rng() % 100) / 400.0;
    Preds preds(n);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    for (size_t v = 1; v < n; ++v) {
      for (size_t u = 0; u < v; ++u) {
        if (coin(rng) < density) preds[v].push_back(u);
      }
    }
    const int max_streams = 1 + static_cast<int>(rng() % 5);
    const StreamPlan plan = plan_ok(preds, max_streams);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_LE(plan.stream_count, max_streams);
    ASSERT_EQ(plan.stream_of.size(), n);
    size_t placed = 0;
    for (size_t s = 0; s < plan.streams.size(); ++s) {
      for (size_t i = 0; i < plan.streams[s].size(); ++i) {
        EXPECT_EQ(plan.stream_of[plan.streams[s][i]], static_cast<int>(s));
        if (i > 0) {
          EXPECT_LT(plan.streams[s][i - 1], plan.streams[s][i]);
        }
      }
      placed += plan.streams[s].size();
    }
    EXPECT_EQ(placed, n);
    size_t cross_edges = 0;
    for (size_t v = 0; v < n; ++v) {
      for (size_t u : preds[v]) cross_edges += plan.stream_of[u] != plan.stream_of[v];
    }
    EXPECT_LE(plan.events.size(), cross_edges);
    for (const StreamEvent& e : plan.events) EXPECT_NE(plan.stream_of[e.producer], plan.stream_of[e.consumer]);
    EXPECT_TRUE(all_dependencies_ordered(preds, plan, SIZE_MAX));
    EXPECT_TRUE(validate_stream_plan(preds, plan).is_ok()) << validate_stream_plan(preds, plan).to_string();
    for (size_t e = 0; e < plan.events.size(); ++e) {
      EXPECT_FALSE(all_dependencies_ordered(preds, plan, e)) << "event " << plan.events[e].producer << "->"
                                                             << plan.events[e].consumer << " is redundant";
      // The validator agrees with the reachability oracle: without any one event the
      // plan leaves a dependency unordered.
      StreamPlan fewer = plan;
      fewer.events.erase(fewer.events.begin() + static_cast<std::ptrdiff_t>(e));
      EXPECT_FALSE(validate_stream_plan(preds, fewer).is_ok());
    }
  }
}

}  // namespace
}  // namespace ge
