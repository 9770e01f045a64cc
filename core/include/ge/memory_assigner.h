#pragma once
/// Memory assigners place every planned value at an offset of one arena so that values
/// with overlapping lifetimes never overlap in bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/status.h"

namespace ge {

/// One buffer to place: size in bytes (already aligned) and the execution steps
/// [first_use, last_use] during which it is live (inclusive).
struct MemoryRequest {
  size_t bytes = 0;
  int64_t first_use = 0;
  int64_t last_use = 0;
};

struct MemoryPlan {
  std::vector<size_t> offsets;  ///< one per request
  size_t total_bytes = 0;       ///< arena size
};

class MemoryAssigner {
 public:
  virtual ~MemoryAssigner() = default;
  virtual std::string name() const = 0;
  /// Offsets for every request, each a multiple of `alignment`.
  virtual Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const = 0;
};

}  // namespace ge
