// StreamSteps and the stream-lifetime helpers of memory planning (stream_lifetimes.h).
#include "stream_lifetimes.h"

#include <algorithm>
#include <unordered_map>

namespace ge {

StreamSteps::StreamSteps(const StreamPlan& plan) : plan_(plan), clocks_(stream_clocks(plan)) {
  for (const std::vector<size_t>& nodes : plan.streams) totals_.push_back(static_cast<int64_t>(nodes.size()));
}

std::vector<int64_t> StreamSteps::made_at(int64_t step) const {
  if (step <= 0) return std::vector<int64_t>(totals_.size(), 0);
  if (static_cast<size_t>(step) > clocks_.size()) return totals_;
  const auto node = static_cast<size_t>(step - 1);
  std::vector<int64_t> clock = clocks_[node];
  --clock[static_cast<size_t>(plan_.stream_of[node])];
  return clock;
}

std::vector<int64_t> StreamSteps::done_at(int64_t step) const {
  if (step <= 0) return std::vector<int64_t>(totals_.size(), 0);
  if (static_cast<size_t>(step) > clocks_.size()) return totals_;
  return clocks_[static_cast<size_t>(step - 1)];
}

int64_t StreamSteps::last_concurrent_step(const std::vector<int64_t>& freed) const {
  auto starts_after = [&](size_t node) {
    const auto own = static_cast<size_t>(plan_.stream_of[node]);
    for (size_t t = 0; t < freed.size() && t < clocks_[node].size(); ++t) {
      if (clocks_[node][t] - (t == own ? 1 : 0) < freed[t]) return false;
    }
    return true;
  };
  int64_t last = 0;
  for (const std::vector<size_t>& nodes : plan_.streams) {
    // What a stream's nodes know only grows along the stream: the ones starting after
    // `freed` are a suffix.
    const auto first_after =
        std::partition_point(nodes.begin(), nodes.end(), [&](size_t v) { return !starts_after(v); });
    if (first_after != nodes.begin()) last = std::max(last, static_cast<int64_t>(*std::prev(first_after)) + 1);
  }
  return last;
}

void clock_max(std::vector<int64_t>& into, const std::vector<int64_t>& other) {
  if (into.size() < other.size()) into.resize(other.size(), 0);
  for (size_t t = 0; t < other.size(); ++t) into[t] = std::max(into[t], other[t]);
}

void clock_min(std::vector<int64_t>& into, const std::vector<int64_t>& other) {
  for (size_t t = 0; t < into.size() && t < other.size(); ++t) into[t] = std::min(into[t], other[t]);
}

std::vector<std::vector<size_t>> order_dependences(std::span<const Node* const> order) {
  std::unordered_map<const Node*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position.emplace(order[i], i);
  std::vector<std::vector<size_t>> dependences(order.size());
  for (size_t v = 0; v < order.size(); ++v) {
    auto add = [&](const Node* before) {
      if (before == nullptr) return;
      if (auto it = position.find(before); it != position.end()) dependences[v].push_back(it->second);
    };
    for (const Value* in : order[v]->inputs()) {
      if (in != nullptr) add(in->producer());
    }
    for (const Node* p : order[v]->control_predecessors()) add(p);
  }
  return dependences;
}

Result<std::vector<std::vector<size_t>>> order_predecessors(const std::vector<const Node*>& order) {
  std::vector<std::vector<size_t>> predecessors = order_dependences(order);
  for (size_t v = 0; v < order.size(); ++v) {
    const Node& node = *order[v];
    if (!node.attributes().empty() && !node.subgraphs().empty()) {
      return unsupported("memory planning on several streams: " + node.describe() +
                         " has subgraphs; stream-aware plans cover graphs without them");
    }
    for (size_t p : predecessors[v]) {
      if (p >= v) {
        return invalid_argument("memory planning on several streams: the order runs " + node.describe() +
                                " before " + order[p]->describe() + ", which it depends on");
      }
    }
  }
  return predecessors;
}

}  // namespace ge
