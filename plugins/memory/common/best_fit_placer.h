#pragma once
// The placement step shared by the greedy assigners: take requests one by one in a
// given order and put each into the smallest gap, among the already placed requests
// whose lifetimes intersect its own, that fits it (best fit), else on top of them. With
// several streams "intersect" is requests_conflict(): the placed requests whose conflict
// windows meet, less those a happens-before path separates.
//
// Cost: on one stream the gaps come from an OccupancyIndex, O(log^2 n) per request plus
// the byte runs it reads (few where the live buffers pack tightly, as in a fan-out or a
// chain). With several streams each request reads every placed request whose window
// meets its own, to ask requests_conflict(): O(n * such requests).

#include <cstdint>
#include <vector>

#include "ge/plugin_api/memory_assigner.h"
#include "interval_index.h"
#include "occupancy_index.h"

namespace ge::memory {

class BestFitPlacer {
 public:
  /// Keeps a reference to `requests`; they must outlive the placer.
  explicit BestFitPlacer(const std::vector<MemoryRequest>& requests);

  /// Offsets (multiples of `alignment`) for every request, placed in `order` (a
  /// permutation of request indices). Requests of 0 bytes get offset 0.
  MemoryPlan place(const std::vector<uint32_t>& order, size_t alignment);

  /// Byte runs and requests read by every place() so far: a machine-independent measure
  /// of the work, for tests that bound it.
  uint64_t work() const { return occupancy_.work() + conflicts_read_; }

 private:
  const std::vector<MemoryRequest>& requests_;
  std::vector<size_t> first_, last_;  // conflict windows on compressed step points
  bool streams_ = false;              // some request has stream lifetimes
  IntervalIndex index_;               // several streams: placed requests by conflict window
  OccupancyIndex occupancy_;          // one stream: bytes taken, by step
  std::vector<uint32_t> conflicts_;
  std::vector<OccupancyIndex::Range> taken_;
  uint64_t conflicts_read_ = 0;
};

}  // namespace ge::memory
