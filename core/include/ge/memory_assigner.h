#pragma once
/// Memory assigners place every planned buffer at an offset of one arena so that buffers
/// with overlapping lifetimes never overlap in bytes. They are plugins (kind
/// `memory_assigner`); the planner in ge/memory_plan.h runs every configured one on the
/// same requests, validates each answer and keeps the smallest valid arena.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ge/status.h"

namespace ge {

/// One buffer to place: size in bytes (already a multiple of the alignment) and the
/// execution steps [first_use, last_use] during which it is live (inclusive). Two
/// requests conflict when their step ranges intersect; a request of 0 bytes conflicts
/// with nothing.
struct MemoryRequest {
  size_t bytes = 0;
  int64_t first_use = 0;
  int64_t last_use = 0;
};

/// An assigner's answer.
struct MemoryPlan {
  std::vector<size_t> offsets;  ///< one per request, each a multiple of the alignment
  size_t total_bytes = 0;       ///< arena size: at least max(offset + bytes) over requests
};

class MemoryAssigner {
 public:
  virtual ~MemoryAssigner() = default;
  virtual std::string name() const = 0;
  /// Offsets for every request, each a multiple of `alignment`, such that conflicting
  /// requests do not overlap. Must be deterministic for the same input and must not
  /// throw. May be called concurrently from several threads.
  virtual Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const = 0;
};

/// The lower bound every assignment of `requests` must reach or exceed: the most bytes
/// live at any one step. O(n log n).
inline size_t peak_live_bytes(const std::vector<MemoryRequest>& requests) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (step, +bytes at first use / -bytes after last use)
  events.reserve(requests.size() * 2);
  for (const MemoryRequest& r : requests) {
    if (r.bytes == 0) continue;
    events.emplace_back(r.first_use, static_cast<int64_t>(r.bytes));
    events.emplace_back(r.last_use + 1, -static_cast<int64_t>(r.bytes));
  }
  // At equal steps the frees sort first: a buffer dying at s-1 never meets one born at s.
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return static_cast<size_t>(peak);
}

}  // namespace ge
