#include "placement_orders.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace ge::memory {
namespace {

template <typename Key>
std::vector<uint32_t> sorted_by(const std::vector<MemoryRequest>& requests, Key key) {
  std::vector<uint32_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return key(requests[a]) < key(requests[b]); });
  return order;
}

// Negated so that "descending" sorts ascending; lifetimes are bounded by the step count.
long double length(const MemoryRequest& r) { return static_cast<long double>(r.last_use - r.first_use + 1); }

}  // namespace

std::vector<uint32_t> largest_first_order(const std::vector<MemoryRequest>& requests) {
  return sorted_by(requests, [](const MemoryRequest& r) {
    return std::make_tuple(-static_cast<long double>(r.bytes), r.first_use);
  });
}

std::vector<uint32_t> largest_area_order(const std::vector<MemoryRequest>& requests) {
  return sorted_by(requests, [](const MemoryRequest& r) {
    return std::make_tuple(-static_cast<long double>(r.bytes) * length(r), -static_cast<long double>(r.bytes),
                           r.first_use);
  });
}

std::vector<uint32_t> longest_lifetime_order(const std::vector<MemoryRequest>& requests) {
  return sorted_by(requests, [](const MemoryRequest& r) {
    return std::make_tuple(-length(r), -static_cast<long double>(r.bytes), r.first_use);
  });
}

std::vector<uint32_t> earliest_first_order(const std::vector<MemoryRequest>& requests) {
  return sorted_by(requests, [](const MemoryRequest& r) { return r.first_use; });
}

}  // namespace ge::memory
