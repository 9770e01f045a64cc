// The core's first-fit memory assigner (ge/plugin_api/memory_assigner.h).
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>

#include "ge/alignment.h"
#include "ge/plugin_api/memory_assigner.h"

namespace ge {
namespace {

class FirstFitAssigner final : public MemoryAssigner {
 public:
  std::string name() const override { return "builtin_first_fit"; }

  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const override {
    if (alignment == 0) return invalid_argument("first_fit assigner: alignment must be positive");
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return requests[a].first_use < requests[b].first_use; });
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), 0);
    // Lifetimes on several streams (or ones that end before they start) need the general path.
    const bool general = std::any_of(requests.begin(), requests.end(), [](const MemoryRequest& r) {
      return !r.streams.empty() || r.first_use > r.last_use;
    });
    if (general) {
      place_on_streams(requests, order, alignment, plan);
    } else {
      place_on_one_stream(requests, order, alignment, plan);
    }
    return plan;
  }

 private:
  // One stream: the placed requests still live all meet the new one's first step, so
  // they lie apart in bytes; the free bytes below each of them, where there are any, are
  // kept by offset, and the first that fits is taken. O(n log n) plus the gaps too small
  // that a request passes over.
  static void place_on_one_stream(const std::vector<MemoryRequest>& requests, const std::vector<size_t>& order,
                                  size_t alignment, MemoryPlan& plan) {
    std::map<size_t, size_t> live;  // offset -> end of each live placed request
    std::map<size_t, size_t> gaps;  // offset of a live request -> where the free bytes below it start
    using Expiry = std::pair<int64_t, size_t>;
    std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> expiry;  // (last step, offset)
    // The free bytes below the live request at `at`, from the end of the one below it.
    auto update_gap = [&](std::map<size_t, size_t>::iterator at) {
      if (at == live.end()) return;
      const size_t start = at == live.begin() ? 0 : align_up(std::prev(at)->second, alignment);
      if (at->first > start) {
        gaps[at->first] = start;
      } else {
        gaps.erase(at->first);
      }
    };
    for (size_t id : order) {
      const MemoryRequest& request = requests[id];
      if (request.bytes == 0) continue;
      while (!expiry.empty() && expiry.top().first < request.first_use) {
        auto gone = live.find(expiry.top().second);
        expiry.pop();
        gaps.erase(gone->first);
        update_gap(live.erase(gone));
      }
      size_t offset = live.empty() ? 0 : align_up(live.rbegin()->second, alignment);
      for (const auto& [below, start] : gaps) {
        if (below - start >= request.bytes) {
          offset = start;
          break;
        }
      }
      plan.offsets[id] = offset;
      plan.total_bytes = std::max(plan.total_bytes, offset + request.bytes);
      auto at = live.emplace(offset, offset + request.bytes).first;
      update_gap(at);
      update_gap(std::next(at));
      expiry.push({request.last_use, offset});
    }
  }

  // Several streams: live requests may share bytes when events order them, so each new
  // one looks at every live request. O(n * live). Gives the same offsets as the above on
  // one stream.
  static void place_on_streams(const std::vector<MemoryRequest>& requests, const std::vector<size_t>& order,
                               size_t alignment, MemoryPlan& plan) {
    std::vector<size_t> live;  // placed requests whose conflict window is not over, by offset
    for (size_t id : order) {
      const MemoryRequest& request = requests[id];
      if (request.bytes == 0) continue;
      std::erase_if(live, [&](size_t other) { return conflict_window(requests[other]).second < request.first_use; });
      size_t offset = 0;
      for (size_t other : live) {  // sorted by offset
        if (!requests_conflict(request, requests[other])) continue;
        if (plan.offsets[other] >= offset + request.bytes) break;
        offset = std::max(offset, align_up(plan.offsets[other] + requests[other].bytes, alignment));
      }
      plan.offsets[id] = offset;
      plan.total_bytes = std::max(plan.total_bytes, offset + request.bytes);
      live.insert(std::upper_bound(live.begin(), live.end(), offset,
                                   [&](size_t at, size_t other) { return at < plan.offsets[other]; }),
                  id);
    }
  }
};

}  // namespace

std::shared_ptr<MemoryAssigner> first_fit_assigner() { return std::make_shared<FirstFitAssigner>(); }

}  // namespace ge
