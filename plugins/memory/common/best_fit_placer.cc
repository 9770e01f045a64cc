#include "best_fit_placer.h"

#include <algorithm>

#include "ge/alignment.h"

namespace ge::memory {
namespace {

// Step points actually used, so that the index is as small as the request count.
std::vector<int64_t> step_points(const std::vector<MemoryRequest>& requests) {
  std::vector<int64_t> points;
  points.reserve(requests.size() * 2);
  for (const MemoryRequest& r : requests) {
    const auto [first, last] = conflict_window(r);
    points.push_back(first);
    points.push_back(last);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

}  // namespace

BestFitPlacer::BestFitPlacer(const std::vector<MemoryRequest>& requests)
    : requests_(requests), index_(0), occupancy_(0) {
  const std::vector<int64_t> points = step_points(requests);
  auto position = [&](int64_t step) {
    return static_cast<size_t>(std::lower_bound(points.begin(), points.end(), step) - points.begin());
  };
  first_.reserve(requests.size());
  last_.reserve(requests.size());
  for (const MemoryRequest& r : requests) {
    const auto [first, last] = conflict_window(r);
    first_.push_back(position(first));
    last_.push_back(position(last));
    streams_ = streams_ || !r.streams.empty();
  }
  if (streams_) {
    index_ = IntervalIndex(points.size());
  } else {
    occupancy_ = OccupancyIndex(points.size());
  }
}

MemoryPlan BestFitPlacer::place(const std::vector<uint32_t>& order, size_t alignment) {
  index_.clear();
  occupancy_.clear();
  MemoryPlan plan;
  plan.offsets.assign(requests_.size(), 0);
  for (uint32_t id : order) {
    const size_t bytes = requests_[id].bytes;
    if (bytes == 0 || first_[id] > last_[id]) continue;
    // The bytes the conflicting placed requests take, sorted by begin. On one stream as
    // their union (gaps between touching or overlapping ranges are none either way).
    taken_.clear();
    if (streams_) {
      conflicts_.clear();
      index_.query(first_[id], last_[id], conflicts_);
      conflicts_read_ += conflicts_.size();
      for (uint32_t c : conflicts_) {
        // With several streams, windows that meet may still be ordered by events.
        if (!requests_conflict(requests_[id], requests_[c])) continue;
        taken_.emplace_back(plan.offsets[c], plan.offsets[c] + requests_[c].bytes);
      }
      std::sort(taken_.begin(), taken_.end());
    } else {
      occupancy_.query(first_[id], last_[id], taken_);
    }
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (const auto& [begin, end] : taken_) {
      const size_t start = align_up(cursor, alignment);
      if (begin > start) {
        const size_t gap = begin - start;
        if (gap >= bytes && gap < best_gap) {
          best = start;
          best_gap = gap;
        }
      }
      cursor = std::max(cursor, end);
    }
    if (best == SIZE_MAX) best = align_up(cursor, alignment);
    plan.offsets[id] = best;
    plan.total_bytes = std::max(plan.total_bytes, best + bytes);
    if (streams_) {
      index_.insert(id, first_[id], last_[id]);
    } else {
      occupancy_.insert(first_[id], last_[id], best, best + bytes);
    }
  }
  return plan;
}

}  // namespace ge::memory
