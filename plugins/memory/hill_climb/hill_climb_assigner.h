#pragma once
// The `hill_climb` memory assigner, after TVM's unified static memory planner (USMP):
// best-fit placement tried over several orders (largest first, largest size x lifetime,
// longest lifetime, execution order), then a local search over the placement order that
// moves a buffer lying on top of the arena earlier (or swaps two at random) and keeps
// moves that do not grow the arena. Stops at the lower bound (the most bytes live at
// once) or when its budget is spent. Never worse than greedy_by_size: its first order,
// always tried, is that one.

#include <cstdint>

#include "ge/plugin_api/memory_assigner.h"
#include "ge/plugin_options.h"

namespace ge::memory {

struct HillClimbOptions {
  int64_t max_iterations = 2000;       ///< local-search moves at most
  int64_t max_placements = 4'000'000;  ///< requests placed in all, so big graphs stay fast
  double time_budget_ms = 100;         ///< wall-clock guard beyond the first (largest-first) pass
  uint64_t seed = 1;                   ///< the search is deterministic for a seed (within the budget)

  /// Reads max_iterations, max_placements, time_budget_ms and seed from a plugin's
  /// `[plugin.options]`, keeping the defaults for absent keys.
  static HillClimbOptions from(const PluginOptions& options);
};

class HillClimbAssigner final : public MemoryAssigner {
 public:
  explicit HillClimbAssigner(HillClimbOptions options = {}) : options_(options) {}
  std::string name() const override { return "hill_climb"; }
  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const override;

 private:
  HillClimbOptions options_;
};

}  // namespace ge::memory
