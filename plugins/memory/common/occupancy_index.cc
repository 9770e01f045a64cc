#include "occupancy_index.h"

#include <algorithm>

namespace ge::memory {

OccupancyIndex::OccupancyIndex(size_t points) {
  while (leaves_ < std::max<size_t>(points, 1)) leaves_ <<= 1;
  own_.assign(2 * leaves_, 0);
  below_.assign(2 * leaves_, 0);
  node_stamp_.assign(2 * leaves_, 0);
}

void OccupancyIndex::clear() {
  for (Runs& runs : pool_) runs.clear();
}

void OccupancyIndex::merge(std::vector<uint32_t>& slots, size_t node, size_t begin, size_t end) {
  if (slots[node] == 0) {
    pool_.emplace_back();
    slots[node] = static_cast<uint32_t>(pool_.size());
  }
  Runs& runs = pool_[slots[node] - 1];
  // The runs that overlap or touch [begin, end) become one.
  auto from =
      std::lower_bound(runs.begin(), runs.end(), begin, [](const Range& run, size_t at) { return run.second < at; });
  auto to = std::upper_bound(from, runs.end(), end, [](size_t at, const Range& run) { return at < run.first; });
  work_ += 1 + static_cast<uint64_t>(to - from);
  if (from == to) {
    runs.insert(from, {begin, end});
    return;
  }
  from->first = std::min(from->first, begin);
  from->second = std::max(std::prev(to)->second, end);
  runs.erase(std::next(from), to);
}

void OccupancyIndex::read(const std::vector<uint32_t>& slots, size_t node, std::vector<Range>& out) {
  if (slots[node] == 0) return;
  const Runs& runs = pool_[slots[node] - 1];
  work_ += runs.size();
  out.insert(out.end(), runs.begin(), runs.end());
}

void OccupancyIndex::insert(size_t first, size_t last, size_t begin, size_t end) {
  ++stamp_;
  auto mark_ancestors = [&](size_t node) {
    // Ancestors shared by two canonical nodes take the range once.
    for (size_t p = node >> 1; p >= 1 && node_stamp_[p] != stamp_; p >>= 1) {
      node_stamp_[p] = stamp_;
      merge(below_, p, begin, end);
    }
  };
  for (size_t l = first + leaves_, r = last + leaves_ + 1; l < r; l >>= 1, r >>= 1) {
    if (l & 1) {
      merge(own_, l, begin, end);
      mark_ancestors(l++);
    }
    if (r & 1) {
      merge(own_, --r, begin, end);
      mark_ancestors(r);
    }
  }
}

void OccupancyIndex::query(size_t first, size_t last, std::vector<Range>& out) {
  out.clear();
  ++stamp_;
  // A range inserted over an interval meeting [first, last] sits at a canonical node q of
  // the query (own), below one (q's below) or above one (an ancestor's own).
  auto visit = [&](size_t q) {
    read(own_, q, out);
    read(below_, q, out);
    for (size_t p = q >> 1; p >= 1 && node_stamp_[p] != stamp_; p >>= 1) {
      node_stamp_[p] = stamp_;
      read(own_, p, out);
    }
  };
  for (size_t l = first + leaves_, r = last + leaves_ + 1; l < r; l >>= 1, r >>= 1) {
    if (l & 1) visit(l++);
    if (r & 1) visit(--r);
  }
  std::sort(out.begin(), out.end());
  size_t kept = 0;
  for (const Range& range : out) {
    if (kept > 0 && range.first <= out[kept - 1].second) {
      out[kept - 1].second = std::max(out[kept - 1].second, range.second);
    } else {
      out[kept++] = range;
    }
  }
  out.resize(kept);
}

}  // namespace ge::memory
