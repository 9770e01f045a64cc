// The caching pool of host tensor storage (ge/tensor_pool.h).
#include "ge/tensor_pool.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#include "ge/memory_limit.h"
#include "ge/shape_arithmetic.h"

namespace ge {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kMinBlock = 256;

/// Index of the size class serving `bytes`: classes 256, 320, 384, 448, 512, 640, ...
/// (four per doubling).
size_t class_index(size_t bytes) {
  bytes = std::max(bytes, kMinBlock);
  const int octave = std::bit_width(bytes - 1) - 1;  // 2^octave < bytes <= 2^(octave+1)
  const size_t base = size_t{1} << octave;
  const size_t step = base / 4;
  const size_t quarter = (bytes - base + step - 1) / step;  // 1..4
  return static_cast<size_t>(octave - 7) * 4 + (quarter - 1);
}

size_t class_bytes(size_t index) {
  const size_t octave = index / 4 + 7;
  const size_t base = size_t{1} << octave;
  return base + (index % 4 + 1) * (base / 4);
}

}  // namespace

std::shared_ptr<TensorPool> TensorPool::create(size_t max_held_bytes) {
  return std::shared_ptr<TensorPool>(new TensorPool(max_held_bytes));
}

TensorPool::~TensorPool() { trim(); }

size_t TensorPool::block_bytes(size_t bytes) { return class_bytes(class_index(bytes)); }

std::shared_ptr<void> TensorPool::allocate_bytes(size_t bytes) {
  // Size classes past 2^62 would overflow their arithmetic; no system has that memory.
  if (bytes > (size_t{1} << 62)) throw std::bad_alloc();
  const size_t index = class_index(bytes);
  const size_t size = class_bytes(index);
  void* block = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (memory_limit_ != 0 && size > memory_limit_) throw std::bad_alloc();
    if (index < free_lists_.size() && !free_lists_[index].empty()) {
      block = free_lists_[index].back();
      free_lists_[index].pop_back();
      statistics_.held_bytes -= size;
      ++statistics_.hits;
    } else {
      ++statistics_.misses;
    }
    statistics_.in_use_bytes += size;
    statistics_.peak_in_use_bytes = std::max(statistics_.peak_in_use_bytes, statistics_.in_use_bytes);
  }
  if (block == nullptr) {
    block = std::aligned_alloc(kAlignment, size);
    if (block == nullptr) {
      std::lock_guard<std::mutex> lock(mutex_);
      statistics_.in_use_bytes -= size;
      throw std::bad_alloc();
    }
  }
  std::shared_ptr<TensorPool> self = shared_from_this();
  return std::shared_ptr<void>(block, [self, size](void* p) { self->give_back(p, size); });
}

Tensor TensorPool::allocate(DataType type, std::vector<int64_t> shape) {
  if (type == DataType::kString) return Tensor::zeros(type, std::move(shape));
  Result<size_t> bytes = checked_byte_size(type, shape);
  if (!bytes.is_ok()) throw std::bad_array_new_length();
  std::shared_ptr<void> storage = allocate_bytes(*bytes);
  void* data = storage.get();
  return Tensor::share(type, std::move(shape), data, std::move(storage));
}

void TensorPool::give_back(void* block, size_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  statistics_.in_use_bytes -= bytes;
  if (statistics_.held_bytes + bytes > max_held_bytes_) {
    ++statistics_.releases;
    lock.unlock();
    std::free(block);
    return;
  }
  const size_t index = class_index(bytes);
  if (free_lists_.size() <= index) free_lists_.resize(index + 1);
  free_lists_[index].push_back(block);
  statistics_.held_bytes += bytes;
}

void TensorPool::set_memory_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_limit_ = bytes;
}

size_t TensorPool::memory_limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memory_limit_;
}

Status TensorPool::fits(const std::string& what, size_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (memory_limit_ == 0) return Status::ok();
  // A block is its size class: check what the system would be asked for.
  const size_t block = bytes > (size_t{1} << 62) ? bytes : block_bytes(bytes);
  return check_memory_limit(what, block, memory_limit_, statistics_.in_use_bytes + statistics_.reserved_bytes);
}

Result<std::shared_ptr<void>> TensorPool::reserve(const std::string& what, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  GE_RETURN_IF_ERROR(check_memory_limit(what, bytes, memory_limit_, statistics_.in_use_bytes + statistics_.reserved_bytes));
  statistics_.reserved_bytes += bytes;
  std::shared_ptr<TensorPool> self = shared_from_this();
  return std::shared_ptr<void>(nullptr, [self, bytes](void*) {
    std::lock_guard<std::mutex> released(self->mutex_);
    self->statistics_.reserved_bytes -= bytes;
  });
}

TensorPoolStatistics TensorPool::statistics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return statistics_;
}

void TensorPool::trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::vector<void*>& list : free_lists_) {
    for (void* block : list) std::free(block);
    list.clear();
  }
  statistics_.held_bytes = 0;
}

}  // namespace ge
