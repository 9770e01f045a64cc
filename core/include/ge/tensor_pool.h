#pragma once
/// A caching pool of host tensor storage for the per-op executor's values, run-time
/// workspaces and the task sink's returned outputs: blocks are kept on size-class free
/// lists when their last tensor goes, so after warm-up a run allocates nothing from the
/// system. Size classes are a quarter of a power of two apart (a block wastes at most a
/// fifth of its bytes); the bytes held on the free lists are bounded, and what would go
/// over the bound is released. Thread-safe: tensors may die on any thread. Tensors keep
/// the pool alive, so they may outlive the executor or session that made them.
///
/// Storage is not zeroed: every kernel writes all of its outputs, or declares them zeroed
/// (ZeroedMemory) and the executor zeroes them first (the task sink's arena is reused
/// across runs the same way).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ge/data_type.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge {

struct TensorPoolStatistics {
  uint64_t hits = 0;        ///< allocations served from a free list
  uint64_t misses = 0;      ///< allocations that went to the system
  uint64_t releases = 0;    ///< blocks freed to the system because the bound was reached
  size_t in_use_bytes = 0;  ///< bytes of blocks held by live tensors
  size_t peak_in_use_bytes = 0;
  size_t held_bytes = 0;    ///< bytes on the free lists
  size_t reserved_bytes = 0;  ///< bytes counted by live reserve() handles
};

class TensorPool : public std::enable_shared_from_this<TensorPool> {
 public:
  /// `max_held_bytes` bounds the free lists (default 1 GiB).
  static std::shared_ptr<TensorPool> create(size_t max_held_bytes = size_t{1} << 30);
  ~TensorPool();
  TensorPool(const TensorPool&) = delete;
  TensorPool& operator=(const TensorPool&) = delete;

  /// A tensor of `shape` whose storage comes from the pool (contents unspecified). String
  /// tensors are not pooled: they are Tensor::zeros. Throws std::bad_alloc when the bytes
  /// overflow or exceed the memory limit: callers check with fits() first.
  Tensor allocate(DataType type, std::vector<int64_t> shape);
  /// Raw bytes (at least one, 64-byte aligned) owned by the returned handle.
  std::shared_ptr<void> allocate_bytes(size_t bytes);

  /// Bounds the bytes of the blocks live tensors hold (0: no limit, the default).
  void set_memory_limit(size_t bytes);
  size_t memory_limit() const;
  /// Ok when `bytes` more fit under the memory limit with what is in use and reserved;
  /// else kInvalidArgument "<what> needs 8.0 TiB; limit 23 GiB" (see check_memory_limit).
  Status fits(const std::string& what, size_t bytes) const;
  /// Counts `bytes` GE holds outside the pool (a model's weights, the task sink's arena)
  /// against the memory limit while the returned handle lives. When they do not fit with
  /// what is in use and reserved: the fits() error, and nothing is counted.
  Result<std::shared_ptr<void>> reserve(const std::string& what, size_t bytes);

  TensorPoolStatistics statistics() const;
  /// Frees every block on the free lists.
  void trim();

  /// The size class (its block bytes) `bytes` is served from.
  static size_t block_bytes(size_t bytes);

 private:
  explicit TensorPool(size_t max_held_bytes) : max_held_bytes_(max_held_bytes) {}
  void give_back(void* block, size_t bytes);

  mutable std::mutex mutex_;
  size_t max_held_bytes_;
  size_t memory_limit_ = 0;
  std::vector<std::vector<void*>> free_lists_;  // by size-class index
  TensorPoolStatistics statistics_;
};

}  // namespace ge
