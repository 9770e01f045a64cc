// Memory reuse order: the dependences a plan's byte sharing needs on several streams (core/src/memory/memory_reuse_order.h).
#include "memory_reuse_order.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

namespace ge {

namespace {

void sort_unique(std::vector<size_t>& positions) {
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
}

bool bytes_overlap(const MemoryBuffer& a, const MemoryBuffer& b) {
  return a.bytes > 0 && b.bytes > 0 && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

/// The node positions touching each feature-map buffer of `plan` (writing it, reading it,
/// or using it as workspace), sorted; and, in `before`, the input's other readers ahead of
/// each op that writes over its input in place.
struct BufferTouches {
  std::vector<std::vector<size_t>> touching;  // per buffer
  std::vector<std::vector<size_t>> before;    // per node
};

Result<BufferTouches> buffer_touches(const GraphMemoryPlan& plan) {
  const size_t n = plan.order.size();
  // Step 0 is the entry, step i + 1 runs order[i], step n + 1 is the exit: more steps
  // mean a node spans subgraph steps.
  if (plan.step_count != static_cast<int64_t>(n) + 2) {
    return unsupported("memory reuse order: the plan has " + std::to_string(plan.step_count) + " steps for " +
                       std::to_string(n) + " nodes (subgraphs); stream-aware plans cover graphs without them");
  }
  std::unordered_map<const Node*, size_t> position;
  for (size_t i = 0; i < n; ++i) position.emplace(plan.order[i], i);
  auto position_of = [&](const Node* node) -> std::optional<size_t> {
    if (node == nullptr) return std::nullopt;
    auto it = position.find(node);
    return it == position.end() ? std::nullopt : std::optional<size_t>(it->second);
  };
  BufferTouches result;
  result.before.resize(n);
  result.touching.resize(plan.buffers.size());
  for (const ValuePlacement& p : plan.values) {
    if (p.region != MemoryRegion::kFeatureMap || p.buffer < 0 || static_cast<size_t>(p.buffer) >= plan.buffers.size()) {
      continue;
    }
    std::vector<size_t>& touches = result.touching[static_cast<size_t>(p.buffer)];
    auto touch = [&](const Node* node) {
      if (std::optional<size_t> at = position_of(node)) touches.push_back(*at);
    };
    touch(p.workspace_of);
    if (p.value == nullptr) continue;
    touch(p.value->producer());
    for (const Use& use : p.value->uses()) touch(use.user);
  }
  for (std::vector<size_t>& touches : result.touching) sort_unique(touches);
  // In place: the writer overwrites its input's bytes, so whatever touched the buffer
  // before it (the input's other readers, readers of its views) goes first.
  for (const ValuePlacement& p : plan.values) {
    if (p.in_place_of < 0 || p.region != MemoryRegion::kFeatureMap || p.value == nullptr || p.buffer < 0 ||
        static_cast<size_t>(p.buffer) >= plan.buffers.size()) {
      continue;
    }
    const std::optional<size_t> writer = position_of(p.value->producer());
    if (!writer) continue;
    for (size_t touch : result.touching[static_cast<size_t>(p.buffer)]) {
      if (touch < *writer) result.before[*writer].push_back(touch);
    }
  }
  return result;
}

/// Buffer indices of `plan` by first use (stable).
std::vector<size_t> buffers_by_first_use(const GraphMemoryPlan& plan) {
  std::vector<size_t> order(plan.buffers.size());
  for (size_t b = 0; b < order.size(); ++b) order[b] = b;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plan.buffers[a].first_use < plan.buffers[b].first_use;
  });
  return order;
}

/// Adds "every position of `earlier` before every position of `later`" to `before`.
void order_all(const std::vector<size_t>& earlier, const std::vector<size_t>& later,
               std::vector<std::vector<size_t>>& before) {
  for (size_t v : later) {
    // Touches of apart lifetimes are apart too; the check keeps the result a DAG whatever the plan says.
    for (size_t u : earlier) {
      if (u < v) before[v].push_back(u);
    }
  }
}

}  // namespace

Result<std::vector<std::vector<size_t>>> memory_reuse_order(const GraphMemoryPlan& plan) {
  if (plan.streams.stream_count > 1) {
    return unsupported("memory reuse order: the plan is already made for " + std::to_string(plan.streams.stream_count) +
                       " streams; it needs a one-stream plan");
  }
  GE_ASSIGN_OR_RETURN(BufferTouches touches, buffer_touches(plan));
  std::vector<std::vector<size_t>>& before = touches.before;
  const std::vector<std::vector<size_t>>& touching = touches.touching;
  const std::vector<size_t> by_first_use = buffers_by_first_use(plan);
  // Each buffer after the earlier buffers whose bytes it reuses.
  std::vector<size_t> earlier_touches;
  for (size_t i = 0; i < by_first_use.size(); ++i) {
    const MemoryBuffer& later = plan.buffers[by_first_use[i]];
    const std::vector<size_t>& later_touches = touching[by_first_use[i]];
    if (later_touches.empty()) continue;
    earlier_touches.clear();
    for (size_t j = 0; j < i; ++j) {
      const MemoryBuffer& earlier = plan.buffers[by_first_use[j]];
      if (earlier.last_use >= later.first_use || !bytes_overlap(earlier, later)) continue;
      const std::vector<size_t>& touches = touching[by_first_use[j]];
      earlier_touches.insert(earlier_touches.end(), touches.begin(), touches.end());
    }
    if (earlier_touches.empty()) continue;
    sort_unique(earlier_touches);
    order_all(earlier_touches, later_touches, before);
  }
  for (std::vector<size_t>& positions : before) sort_unique(positions);
  return before;
}

Result<std::vector<std::vector<size_t>>> widest_concurrent_pair_order(const GraphMemoryPlan& plan) {
  if (plan.streams.stream_count <= 1) {
    return unsupported("memory reuse order: the plan runs on one stream; nothing in it is concurrent");
  }
  GE_ASSIGN_OR_RETURN(BufferTouches touches, buffer_touches(plan));
  const std::vector<std::vector<size_t>>& touching = touches.touching;
  const StreamPlan& streams = plan.streams;
  if (streams.stream_of.size() != plan.order.size()) {
    return invalid_argument("memory reuse order: the stream plan places " + std::to_string(streams.stream_of.size()) +
                            " nodes, the order has " + std::to_string(plan.order.size()));
  }
  const std::vector<std::vector<int64_t>> clocks = stream_clocks(streams);
  auto happens_before = [&](size_t u, size_t v) {
    const auto s = static_cast<size_t>(streams.stream_of[u]);
    return u < v && clocks[v][s] >= clocks[u][s];
  };
  const std::vector<size_t> by_first_use = buffers_by_first_use(plan);
  // The widest pair: the most bytes two buffers could share; then the closest in time.
  std::optional<std::pair<size_t, size_t>> best;
  size_t best_bytes = 0;
  int64_t best_gap = 0;
  for (size_t j = 0; j < by_first_use.size(); ++j) {
    const MemoryBuffer& later = plan.buffers[by_first_use[j]];
    const std::vector<size_t>& later_touches = touching[by_first_use[j]];
    if (later_touches.empty() || later.bytes == 0) continue;
    for (size_t i = 0; i < j; ++i) {
      const MemoryBuffer& earlier = plan.buffers[by_first_use[i]];
      const std::vector<size_t>& earlier_touches = touching[by_first_use[i]];
      if (earlier.last_use >= later.first_use || earlier_touches.empty() || earlier.bytes == 0) continue;
      const size_t bytes = std::min(earlier.bytes, later.bytes);
      const int64_t gap = later.first_use - earlier.last_use;
      if (best && (bytes < best_bytes || (bytes == best_bytes && gap >= best_gap))) continue;
      const bool ordered = std::all_of(earlier_touches.begin(), earlier_touches.end(), [&](size_t u) {
        return std::all_of(later_touches.begin(), later_touches.end(), [&](size_t v) { return happens_before(u, v); });
      });
      if (ordered) continue;
      best = std::pair(by_first_use[i], by_first_use[j]);
      best_bytes = bytes;
      best_gap = gap;
    }
  }
  std::vector<std::vector<size_t>> before(plan.order.size());
  if (best) order_all(touching[best->first], touching[best->second], before);
  return before;
}

}  // namespace ge
