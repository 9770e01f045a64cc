#include "naive_assigner.h"

#include "ge/alignment.h"

namespace ge::memory {

Result<MemoryPlan> NaiveAssigner::assign(const std::vector<MemoryRequest>& requests, size_t alignment) const {
  if (alignment == 0) return invalid_argument("naive assigner: alignment must be positive");
  MemoryPlan plan;
  plan.offsets.reserve(requests.size());
  for (const MemoryRequest& r : requests) {
    plan.offsets.push_back(plan.total_bytes);
    plan.total_bytes += align_up(r.bytes, alignment);
  }
  return plan;
}

}  // namespace ge::memory
