#pragma once
/// Weight merging (GE's seed 001): constants whose bytes are identical are stored once --
/// one slot of the memory plan's weights region (MemoryAlias::kIdentical), one copy in a
/// .gem file's weights partition, one host storage in a graph.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge {

/// XXH3-64 (seed 0) of a tensor's raw bytes; 0 for a tensor without data. Not for strings.
uint64_t constant_bytes_hash(const Tensor& tensor);

/// For each of `tensors`, the index of the first earlier tensor holding the same bytes
/// (equal byte size and contents; dtype and shape may differ), or its own index. Null,
/// undefined, string, empty and data-less tensors are never merged. Contents are hashed
/// only where byte sizes collide, and a hash match is confirmed byte for byte.
std::vector<size_t> find_identical_bytes(std::span<const Tensor* const> tensors);

/// Makes the top-level initializers of `graph` that are identical (same dtype, shape and
/// bytes) share the storage of the first of them, so the graph holds their bytes once.
/// Values, names and uses are unchanged (the CSE pass is what merges the values
/// themselves). Returns how many initializers now share another's storage.
size_t share_identical_constants(Graph& graph);

}  // namespace ge
