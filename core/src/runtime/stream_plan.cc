#include "ge/runtime/stream_plan.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace ge {

Result<StreamPlan> plan_streams(const std::vector<std::vector<size_t>>& predecessors, const StreamPlanOptions& options) {
  if (options.max_streams < 1) {
    return invalid_argument("plan_streams: max_streams must be at least 1, got " + std::to_string(options.max_streams));
  }
  const size_t n = predecessors.size();
  for (size_t v = 0; v < n; ++v) {
    for (size_t u : predecessors[v]) {
      if (u >= v) {
        return invalid_argument("plan_streams: node " + std::to_string(v) + " has predecessor " + std::to_string(u) +
                                ", which is not earlier in the topological order");
      }
    }
  }
  const auto max_streams = static_cast<size_t>(options.max_streams);
  StreamPlan plan;
  plan.stream_of.assign(n, -1);
  // Vector clocks: known[s][t] is how many nodes of stream t are ordered before the next
  // node of stream s (through stream order and events); node_clock[v] is its stream's
  // clock right after v, i.e. what a wait on an event recorded after v implies.
  std::vector<std::vector<int64_t>> known;
  std::vector<std::vector<int64_t>> node_clock(n);
  std::vector<int64_t> position(n, 0);  // 1-based position on its stream
  for (size_t v = 0; v < n; ++v) {
    int stream = -1;
    for (size_t u : predecessors[v]) {
      const int s = plan.stream_of[u];
      if (plan.streams[static_cast<size_t>(s)].back() == u) {
        stream = s;
        break;
      }
    }
    if (stream < 0 && plan.streams.size() < max_streams) {
      stream = static_cast<int>(plan.streams.size());
      plan.streams.emplace_back();
      known.emplace_back(max_streams, 0);
    }
    if (stream < 0) {
      stream = 0;
      for (size_t s = 1; s < plan.streams.size(); ++s) {
        if (plan.streams[s].size() < plan.streams[static_cast<size_t>(stream)].size()) stream = static_cast<int>(s);
      }
    }
    const auto s = static_cast<size_t>(stream);
    std::vector<int64_t>& clock = known[s];
    // Candidates: per other stream, the latest predecessor not yet ordered before v.
    std::vector<size_t> latest(max_streams, n);
    for (size_t u : predecessors[v]) {
      const auto t = static_cast<size_t>(plan.stream_of[u]);
      if (t == s || clock[t] >= position[u]) continue;
      if (latest[t] == n || position[u] > position[latest[t]]) latest[t] = u;
    }
    // Drop a candidate that another candidate's event already implies.
    std::vector<size_t> needed;
    for (size_t t = 0; t < max_streams; ++t) {
      const size_t c = latest[t];
      if (c == n) continue;
      bool implied = false;
      for (size_t t2 = 0; t2 < max_streams && !implied; ++t2) {
        const size_t d = latest[t2];
        implied = t2 != t && d != n && node_clock[d][t] >= position[c];
      }
      if (!implied) needed.push_back(c);
    }
    for (size_t u : needed) {
      plan.events.push_back({u, v});
      for (size_t t = 0; t < max_streams; ++t) clock[t] = std::max(clock[t], node_clock[u][t]);
    }
    plan.stream_of[v] = stream;
    plan.streams[s].push_back(v);
    position[v] = ++clock[s];
    node_clock[v] = clock;
  }
  plan.stream_count = static_cast<int>(plan.streams.size());
  std::sort(plan.events.begin(), plan.events.end(), [](const StreamEvent& a, const StreamEvent& b) {
    return a.consumer != b.consumer ? a.consumer < b.consumer : a.producer < b.producer;
  });
  return plan;
}

}  // namespace ge
