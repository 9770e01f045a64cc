// The assigner that replays offsets decided elsewhere (ge/plugin_api/memory_assigner.h).
#include <cstdint>

#include "ge/plugin_api/memory_assigner.h"

namespace ge {
namespace {

class FixedOffsetsAssigner final : public MemoryAssigner {
 public:
  FixedOffsetsAssigner(std::string name, std::vector<size_t> offsets, size_t total_bytes)
      : name_(std::move(name)), offsets_(std::move(offsets)), total_bytes_(total_bytes) {}

  std::string name() const override { return name_; }

  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t) const override {
    if (offsets_.size() != requests.size()) {
      return invalid_argument("the plan places " + std::to_string(offsets_.size()) + " buffers but there are " +
                              std::to_string(requests.size()));
    }
    // The arena is allocated at this size: never more than every buffer side by side.
    uint64_t no_reuse = 0;
    for (const MemoryRequest& request : requests) no_reuse += request.bytes;
    if (total_bytes_ > no_reuse) {
      return invalid_argument("the plan claims a " + std::to_string(total_bytes_) +
                              "-byte feature map, more than its buffers side by side (" + std::to_string(no_reuse) + ")");
    }
    MemoryPlan plan;
    plan.offsets = offsets_;
    plan.total_bytes = total_bytes_;
    return plan;
  }

 private:
  std::string name_;
  std::vector<size_t> offsets_;
  size_t total_bytes_ = 0;
};

}  // namespace

std::shared_ptr<MemoryAssigner> fixed_offsets_assigner(std::string name, std::vector<size_t> offsets,
                                                       size_t total_bytes) {
  return std::make_shared<FixedOffsetsAssigner>(std::move(name), std::move(offsets), total_bytes);
}

}  // namespace ge
