#pragma once
// Test support for multi-stream plans: random interleavings of a plan's streams, to run a
// plan through testing::simulate_plan (ge/testing/memory_plan.h) in orders the streams allow.

#include <algorithm>
#include <random>
#include <vector>

#include "ge/memory_plan.h"

namespace ge::testing {

/// A random order of the plan's nodes that its streams allow: each stream's nodes in
/// their order, each event's wait after its record. Empty if the events deadlock.
inline std::vector<const Node*> random_stream_schedule(const GraphMemoryPlan& plan, std::mt19937& rng) {
  const StreamPlan& streams = plan.streams;
  std::vector<size_t> next(streams.streams.size(), 0);
  std::vector<char> done(plan.order.size(), 0);
  std::vector<std::vector<size_t>> waits(plan.order.size());
  for (const StreamEvent& e : streams.events) waits[e.consumer].push_back(e.producer);
  std::vector<const Node*> schedule;
  while (schedule.size() < plan.order.size()) {
    std::vector<size_t> ready;
    for (size_t s = 0; s < next.size(); ++s) {
      if (next[s] >= streams.streams[s].size()) continue;
      const size_t v = streams.streams[s][next[s]];
      if (std::all_of(waits[v].begin(), waits[v].end(), [&](size_t u) { return done[u] != 0; })) ready.push_back(s);
    }
    if (ready.empty()) return {};
    const size_t s = ready[rng() % ready.size()];
    const size_t v = streams.streams[s][next[s]++];
    done[v] = 1;
    schedule.push_back(plan.order[v]);
  }
  return schedule;
}

}  // namespace ge::testing
