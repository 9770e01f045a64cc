// Stream planning (ge/runtime/stream_plan.h): nodes onto ordered streams, and the events.
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

std::vector<std::vector<int64_t>> stream_clocks(const StreamPlan& plan) {
  const size_t n = plan.stream_of.size();
  const auto stream_count = static_cast<size_t>(std::max(plan.stream_count, 0));
  std::vector<std::vector<size_t>> waits(n);  // per consumer: producers
  for (const StreamEvent& event : plan.events) {
    if (event.producer < event.consumer && event.consumer < n) waits[event.consumer].push_back(event.producer);
  }
  // known[s][t]: how many nodes of stream t complete before the next node of stream s.
  std::vector<std::vector<int64_t>> known(stream_count, std::vector<int64_t>(stream_count, 0));
  std::vector<std::vector<int64_t>> clocks(n);
  for (size_t v = 0; v < n; ++v) {
    const auto s = static_cast<size_t>(plan.stream_of[v]);
    std::vector<int64_t>& clock = known[s];
    for (size_t u : waits[v]) {
      for (size_t t = 0; t < stream_count; ++t) clock[t] = std::max(clock[t], clocks[u][t]);
    }
    ++clock[s];
    clocks[v] = clock;
  }
  return clocks;
}

Status validate_stream_plan(const std::vector<std::vector<size_t>>& predecessors, const StreamPlan& plan) {
  constexpr int kMaxStreams = 1024;
  const size_t n = predecessors.size();
  auto bad = [](const std::string& what) { return invalid_argument("stream plan: " + what); };
  if (plan.stream_count < 0 || plan.stream_count > kMaxStreams) {
    return bad("stream count " + std::to_string(plan.stream_count) + " is outside 0.." + std::to_string(kMaxStreams));
  }
  const auto stream_count = static_cast<size_t>(plan.stream_count);
  if (n > 0 && stream_count == 0) return bad("no stream for " + std::to_string(n) + " nodes");
  if (plan.stream_of.size() != n || plan.streams.size() != stream_count) {
    return bad("it places " + std::to_string(plan.stream_of.size()) + " nodes on " + std::to_string(plan.streams.size()) +
               " stream lists, but the graph has " + std::to_string(n) + " nodes and the plan " +
               std::to_string(stream_count) + " streams");
  }
  std::vector<size_t> listed(stream_count, 0);
  for (size_t v = 0; v < n; ++v) {
    const int s = plan.stream_of[v];
    if (s < 0 || static_cast<size_t>(s) >= stream_count) {
      return bad("node " + std::to_string(v) + " is on stream " + std::to_string(s) + " of " + std::to_string(stream_count));
    }
    const std::vector<size_t>& list = plan.streams[static_cast<size_t>(s)];
    size_t& cursor = listed[static_cast<size_t>(s)];
    if (cursor >= list.size() || list[cursor] != v) {
      return bad("stream " + std::to_string(s) + "'s node list does not hold node " + std::to_string(v) + " in order");
    }
    ++cursor;
  }
  for (size_t s = 0; s < stream_count; ++s) {
    if (listed[s] != plan.streams[s].size()) return bad("stream " + std::to_string(s) + "'s node list holds unknown nodes");
  }
  std::vector<std::vector<size_t>> waits(n);  // per consumer: producers
  for (size_t e = 0; e < plan.events.size(); ++e) {
    const StreamEvent& event = plan.events[e];
    const std::string label = "event " + std::to_string(e) + " (" + std::to_string(event.producer) + " -> " +
                              std::to_string(event.consumer) + ")";
    if (event.producer >= event.consumer || event.consumer >= n) return bad(label + " does not go forward between nodes");
    if (plan.stream_of[event.producer] == plan.stream_of[event.consumer]) return bad(label + " stays on one stream");
    if (std::find(waits[event.consumer].begin(), waits[event.consumer].end(), event.producer) != waits[event.consumer].end()) {
      return bad(label + " is listed twice");
    }
    waits[event.consumer].push_back(event.producer);
  }
  const std::vector<std::vector<int64_t>> clocks = stream_clocks(plan);
  for (size_t v = 0; v < n; ++v) {
    const auto s = static_cast<size_t>(plan.stream_of[v]);
    for (size_t u : predecessors[v]) {
      if (u >= v) {
        return bad("node " + std::to_string(v) + " has predecessor " + std::to_string(u) + ", which is not earlier");
      }
      const auto t = static_cast<size_t>(plan.stream_of[u]);
      if (clocks[v][t] < clocks[u][t]) {
        return bad("node " + std::to_string(v) + " (stream " + std::to_string(s) + ") depends on node " +
                   std::to_string(u) + " (stream " + std::to_string(t) + ") but no stream order or event orders them");
      }
    }
  }
  return Status::ok();
}

}  // namespace ge
