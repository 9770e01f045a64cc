#pragma once
// Bytes taken over steps, for best-fit placement in any order on graphs of 10^6 values:
// "which bytes do the placed buffers live at any step of [first, last] hold" answered as a
// few coalesced byte ranges, not as one range per placed buffer (a fan-out of n values
// all live together is one range, so placing it is O(n log^2 n), not O(n^2)).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ge::memory {

/// A segment tree over step points 0 .. points-1 whose nodes hold byte ranges merged into
/// disjoint, non-touching runs: a range inserted over [first, last] is merged at the
/// canonical nodes of that interval ("own") and at their ancestors ("below"). A query
/// visits O(log points) nodes and reads their runs, so its cost is O(log points) plus the
/// runs it reads; work() counts those. Not thread-safe.
class OccupancyIndex {
 public:
  using Range = std::pair<size_t, size_t>;  // bytes [first, second)

  explicit OccupancyIndex(size_t points);

  /// Records bytes [begin, end) (begin < end) as taken over steps [first, last]
  /// (inclusive, first <= last < points).
  void insert(size_t first, size_t last, size_t begin, size_t end);

  /// Sets `out` to the union of the byte ranges inserted over steps meeting [first, last]:
  /// sorted, disjoint, and no two touching.
  void query(size_t first, size_t last, std::vector<Range>& out);

  /// Forgets every range (keeps the memory for the next round).
  void clear();

  /// Runs read and merged by queries and inserts since construction: a measure of the
  /// work done that does not depend on the machine.
  uint64_t work() const { return work_; }

 private:
  using Runs = std::vector<Range>;  // sorted by begin, disjoint, not touching
  void merge(std::vector<uint32_t>& slots, size_t node, size_t begin, size_t end);
  void read(const std::vector<uint32_t>& slots, size_t node, std::vector<Range>& out);

  size_t leaves_ = 1;
  std::vector<uint32_t> own_, below_;  // per node: 1 + its index in pool_, 0 when empty
  std::vector<Runs> pool_;
  std::vector<uint32_t> node_stamp_;
  uint32_t stamp_ = 0;
  uint64_t work_ = 0;
};

}  // namespace ge::memory
