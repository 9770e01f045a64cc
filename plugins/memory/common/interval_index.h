#pragma once
// Placed buffers indexed by their live steps, for assigners that need "every placed
// buffer whose lifetime intersects this one" fast on graphs of 100,000 values.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge::memory {

/// A segment tree over step points 0 .. points-1. Each inserted id is kept at the
/// canonical nodes of its interval ("own") and at every ancestor of those ("below"),
/// so that a query visits O(log points) nodes: insert O(log points), query
/// O(log points + answers * log points). Not thread-safe.
class IntervalIndex {
 public:
  explicit IntervalIndex(size_t points);

  /// Adds `id` live over [first, last] (inclusive, both < points).
  void insert(uint32_t id, size_t first, size_t last);

  /// Appends to `out` each inserted id whose interval intersects [first, last], once.
  void query(size_t first, size_t last, std::vector<uint32_t>& out);

  void clear();

 private:
  void mark_ancestors(size_t node, uint32_t id);

  size_t leaves_ = 1;
  std::vector<std::vector<uint32_t>> own_, below_;
  std::vector<uint32_t> node_stamp_, id_stamp_;
  uint32_t stamp_ = 0;
};

}  // namespace ge::memory
