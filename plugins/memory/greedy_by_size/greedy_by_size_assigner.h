#pragma once
// The `greedy_by_size` memory assigner (TFLite's arena planner, Pisarchyk & Lee 2020):
// buffers from the largest down (ties: earlier first use, then request order), each put
// into the smallest gap that fits among the placed buffers whose lifetimes intersect its
// own, else on top of them.

#include "ge/plugin_api/memory_assigner.h"

namespace ge::memory {

class GreedyBySizeAssigner final : public MemoryAssigner {
 public:
  std::string name() const override { return "greedy_by_size"; }
  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const override;
};

}  // namespace ge::memory
