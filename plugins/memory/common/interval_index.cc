#include "interval_index.h"

#include <algorithm>

namespace ge::memory {

IntervalIndex::IntervalIndex(size_t points) {
  while (leaves_ < std::max<size_t>(points, 1)) leaves_ <<= 1;
  own_.resize(2 * leaves_);
  below_.resize(2 * leaves_);
  node_stamp_.assign(2 * leaves_, 0);
}

void IntervalIndex::clear() {
  for (auto& list : own_) list.clear();
  for (auto& list : below_) list.clear();
}

void IntervalIndex::mark_ancestors(size_t node, uint32_t id) {
  // Ancestors shared by two canonical nodes are recorded once per insert.
  for (size_t p = node >> 1; p >= 1 && node_stamp_[p] != stamp_; p >>= 1) {
    node_stamp_[p] = stamp_;
    below_[p].push_back(id);
  }
}

void IntervalIndex::insert(uint32_t id, size_t first, size_t last) {
  if (id >= id_stamp_.size()) id_stamp_.resize(static_cast<size_t>(id) + 1, 0);
  ++stamp_;
  for (size_t l = first + leaves_, r = last + leaves_ + 1; l < r; l >>= 1, r >>= 1) {
    if (l & 1) {
      own_[l].push_back(id);
      mark_ancestors(l, id);
      ++l;
    }
    if (r & 1) {
      --r;
      own_[r].push_back(id);
      mark_ancestors(r, id);
    }
  }
}

void IntervalIndex::query(size_t first, size_t last, std::vector<uint32_t>& out) {
  ++stamp_;
  const uint32_t stamp = stamp_;
  auto emit = [&](const std::vector<uint32_t>& ids) {
    for (uint32_t id : ids) {
      if (id_stamp_[id] != stamp) {
        id_stamp_[id] = stamp;
        out.push_back(id);
      }
    }
  };
  // An interval meets [first, last] iff one of its canonical nodes is a canonical node q
  // of the query, a descendant of one (below_[q]) or an ancestor of one (own_ upwards).
  auto visit = [&](size_t q) {
    emit(own_[q]);
    emit(below_[q]);
    for (size_t p = q >> 1; p >= 1 && node_stamp_[p] != stamp; p >>= 1) {
      node_stamp_[p] = stamp;
      emit(own_[p]);
    }
  };
  for (size_t l = first + leaves_, r = last + leaves_ + 1; l < r; l >>= 1, r >>= 1) {
    if (l & 1) visit(l++);
    if (r & 1) visit(--r);
  }
}

}  // namespace ge::memory
