#pragma once
// The `naive` memory assigner: every buffer in its own bytes, one after another. The
// reference the others are measured against, and a fallback that cannot fail.

#include "ge/plugin_api/memory_assigner.h"

namespace ge::memory {

class NaiveAssigner final : public MemoryAssigner {
 public:
  std::string name() const override { return "naive"; }
  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const override;
};

}  // namespace ge::memory
