// The core's first-fit memory assigner (ge/memory_assigner.h).
#include <algorithm>
#include <numeric>

#include "ge/alignment.h"
#include "ge/memory_assigner.h"

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
    std::vector<size_t> live;  // placed requests whose conflict window is not over, by offset
    std::vector<std::pair<size_t, size_t>> taken;
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
    return plan;
  }
};

}  // namespace

std::shared_ptr<MemoryAssigner> first_fit_assigner() { return std::make_shared<FirstFitAssigner>(); }

}  // namespace ge
