#include "hill_climb_assigner.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "best_fit_placer.h"
#include "placement_orders.h"

namespace ge::memory {

HillClimbOptions HillClimbOptions::from(const PluginOptions& options) {
  HillClimbOptions o;
  o.max_iterations = options.get_int("max_iterations", o.max_iterations);
  o.max_placements = options.get_int("max_placements", o.max_placements);
  o.time_budget_ms = options.get_double("time_budget_ms", o.time_budget_ms);
  o.seed = static_cast<uint64_t>(options.get_int("seed", static_cast<int64_t>(o.seed)));
  return o;
}

Result<MemoryPlan> HillClimbAssigner::assign(const std::vector<MemoryRequest>& requests, size_t alignment) const {
  if (alignment == 0) return invalid_argument("hill_climb assigner: alignment must be positive");
  if (requests.size() >= UINT32_MAX) return invalid_argument("hill_climb assigner: too many requests");
  const auto start = std::chrono::steady_clock::now();
  const size_t bound = peak_live_bytes(requests);
  const int64_t n = static_cast<int64_t>(requests.size());
  int64_t placements = 0;
  BestFitPlacer placer(requests);

  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  // Largest first always runs (so the answer is never worse than greedy_by_size); the
  // other starting orders and the search only while the budget lasts.
  std::vector<uint32_t> best_order;
  MemoryPlan best;
  bool have_best = false;
  for (auto make_order : {largest_first_order, largest_area_order, longest_lifetime_order, earliest_first_order}) {
    if (have_best && (elapsed_ms() > options_.time_budget_ms || placements + n > options_.max_placements)) break;
    std::vector<uint32_t> order = make_order(requests);
    MemoryPlan plan = placer.place(order, alignment);
    placements += n;
    if (!have_best || plan.total_bytes < best.total_bytes) {
      best = std::move(plan);
      best_order = std::move(order);
      have_best = true;
    }
    if (best.total_bytes <= bound) return best;
  }

  // Local search from the best order found so far.
  std::mt19937_64 rng(options_.seed);
  std::vector<uint32_t> order = best_order;
  MemoryPlan current = best;
  std::vector<uint32_t> tops;
  for (int64_t iteration = 0; iteration < options_.max_iterations && n > 1; ++iteration) {
    if (placements + n > options_.max_placements || elapsed_ms() > options_.time_budget_ms) break;

    // The buffers that define the arena's top are the ones worth moving.
    tops.clear();
    for (uint32_t id = 0; id < requests.size(); ++id) {
      if (requests[id].bytes > 0 && current.offsets[id] + requests[id].bytes == current.total_bytes) tops.push_back(id);
    }
    std::vector<uint32_t> candidate = order;
    const uint32_t top = tops.empty() ? 0 : tops[rng() % tops.size()];
    const auto at = std::find(candidate.begin(), candidate.end(), top);
    if (!tops.empty() && at != candidate.begin() && rng() % 4 != 0) {
      // Place the top buffer earlier, before a random one of those placed before it.
      const auto to = candidate.begin() + static_cast<int64_t>(rng() % static_cast<uint64_t>(at - candidate.begin()));
      std::rotate(to, at, at + 1);
    } else {
      std::swap(candidate[rng() % candidate.size()], candidate[rng() % candidate.size()]);
    }
    MemoryPlan plan = placer.place(candidate, alignment);
    placements += n;
    // Equal arenas are accepted half the time, to walk across plateaus.
    if (plan.total_bytes < current.total_bytes || (plan.total_bytes == current.total_bytes && rng() % 2 == 0)) {
      order = std::move(candidate);
      current = std::move(plan);
      if (current.total_bytes < best.total_bytes) {
        best = current;
        if (best.total_bytes <= bound) break;
      }
    }
  }
  return best;
}

}  // namespace ge::memory
