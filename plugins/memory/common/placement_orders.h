#pragma once
// Orders in which greedy assigners place requests. Each is a permutation of request
// indices; ties always fall back to the request index, so results are deterministic.

#include <cstdint>
#include <vector>

#include "ge/plugin_api/memory_assigner.h"

namespace ge::memory {

/// Size descending, then earlier first use (TFLite's greedy by size).
std::vector<uint32_t> largest_first_order(const std::vector<MemoryRequest>& requests);
/// Size times lifetime length descending, then size: the buffers that block most first.
std::vector<uint32_t> largest_area_order(const std::vector<MemoryRequest>& requests);
/// Lifetime length descending, then size: long-lived buffers settle at the bottom.
std::vector<uint32_t> longest_lifetime_order(const std::vector<MemoryRequest>& requests);
/// First use ascending (in execution order, as an on-line allocator would).
std::vector<uint32_t> earliest_first_order(const std::vector<MemoryRequest>& requests);

}  // namespace ge::memory
