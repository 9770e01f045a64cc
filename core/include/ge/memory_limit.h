#pragma once
/// The memory limit of a Session (SessionOptions::memory_limit): helpers to state, parse
/// and check it. An allocation the limit cannot hold is a user error named before anything
/// is allocated, not a std::bad_alloc from the system.

#include <cstddef>
#include <string>
#include <string_view>

#include "ge/status.h"

namespace ge {

/// Physical memory of this machine (sysconf), the default limit; 0 when unknown.
size_t physical_memory_bytes();

/// "512 B", "1.5 KiB", "23 GiB", "8.0 TiB": one decimal below 10 of a unit, none above.
std::string format_bytes(size_t bytes);

/// A byte count as given on a command line: digits with an optional binary suffix K, M,
/// G or T (also KB/KiB, ...), case-insensitive, e.g. "4G", "512M", "1048576". Fractions
/// such as "1.5G" are accepted with a suffix. kInvalidArgument on anything else or zero.
Result<size_t> parse_byte_size(std::string_view text);

/// Ok when `bytes` fit in `limit` with `in_use` already taken; else kInvalidArgument
/// "<what> needs 8.0 TiB; limit 23 GiB" (and what is in use, when anything is).
Status check_memory_limit(const std::string& what, size_t bytes, size_t limit, size_t in_use = 0);

}  // namespace ge
