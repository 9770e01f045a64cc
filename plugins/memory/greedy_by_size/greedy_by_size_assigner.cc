#include "greedy_by_size_assigner.h"

#include "best_fit_placer.h"
#include "placement_orders.h"

namespace ge::memory {

Result<MemoryPlan> GreedyBySizeAssigner::assign(const std::vector<MemoryRequest>& requests, size_t alignment) const {
  if (alignment == 0) return invalid_argument("greedy_by_size assigner: alignment must be positive");
  if (requests.size() >= UINT32_MAX) return invalid_argument("greedy_by_size assigner: too many requests");
  BestFitPlacer placer(requests);
  return placer.place(largest_first_order(requests), alignment);
}

}  // namespace ge::memory
