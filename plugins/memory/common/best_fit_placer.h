#pragma once
// The placement step shared by the greedy assigners: take requests one by one in a
// given order and put each into the smallest gap, among the already placed requests
// whose lifetimes intersect its own, that fits it (best fit), else on top of them. With
// several streams "intersect" is requests_conflict(): the placed requests whose conflict
// windows meet, less those a happens-before path separates.

#include <cstdint>
#include <vector>

#include "ge/memory_assigner.h"
#include "interval_index.h"

namespace ge::memory {

class BestFitPlacer {
 public:
  /// Keeps a reference to `requests`; they must outlive the placer.
  explicit BestFitPlacer(const std::vector<MemoryRequest>& requests);

  /// Offsets (multiples of `alignment`) for every request, placed in `order` (a
  /// permutation of request indices). Requests of 0 bytes get offset 0.
  MemoryPlan place(const std::vector<uint32_t>& order, size_t alignment);

 private:
  const std::vector<MemoryRequest>& requests_;
  std::vector<size_t> first_, last_;  // conflict windows on compressed step points
  bool streams_ = false;              // some request has stream lifetimes
  IntervalIndex index_;
  std::vector<uint32_t> conflicts_;
};

}  // namespace ge::memory
