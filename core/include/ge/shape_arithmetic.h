#pragma once
/// Checked arithmetic for sizes computed from shapes. Dims can come from run-time data
/// (ConstantOfShape, Expand, Reshape, a user's input): an element count or byte size that
/// overflows must be an error, never a wrapped value that allocates too little.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "ge/data_type.h"
#include "ge/status.h"

namespace ge {

/// a * b, or nullopt when the product does not fit in int64.
std::optional<int64_t> checked_multiply(int64_t a, int64_t b);

/// Product of `dims` (1 for a scalar). kInvalidArgument when a dim is negative ("dim 2 of
/// [4,-1] is negative") or the product does not fit in int64 ("[4194304,...] has more
/// than 2^63 elements").
Result<int64_t> checked_element_count(std::span<const int64_t> dims);

/// Bytes of a dense tensor of `type` and `dims`; the element count times the element
/// size must fit in int64 too. Same errors as checked_element_count.
Result<size_t> checked_byte_size(DataType type, std::span<const int64_t> dims);

}  // namespace ge
