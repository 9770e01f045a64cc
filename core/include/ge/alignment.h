#pragma once
/// Rounding sizes and offsets up to an alignment, for every memory planner and allocator.

#include <cstddef>

namespace ge {

/// `value` rounded up to a multiple of `alignment`; `value` itself for alignment 0 or 1.
/// The caller keeps `value + alignment` within size_t.
constexpr size_t align_up(size_t value, size_t alignment) {
  return alignment <= 1 ? value : (value + alignment - 1) / alignment * alignment;
}

}  // namespace ge
