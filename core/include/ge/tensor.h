#pragma once
/// A dense host tensor: element type, static shape and shared, contiguous row-major
/// storage. Copies share storage; use clone() for a deep copy.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/data_type.h"
#include "ge/status.h"

namespace ge {

class Tensor {
 public:
  Tensor() = default;

  /// Allocates zero-initialised storage (strings default-constructed).
  static Tensor zeros(DataType type, std::vector<int64_t> shape);
  /// Wraps caller-owned memory; the caller keeps it alive while the tensor is used.
  static Tensor borrow(DataType type, std::vector<int64_t> shape, void* data);
  /// Wraps memory inside a block `owner` keeps alive (copies of the tensor share it).
  static Tensor share(DataType type, std::vector<int64_t> shape, void* data, std::shared_ptr<void> owner);
  /// Copies `values` into a new tensor of `shape` (element count must match).
  template <typename T>
  static Tensor from_vector(std::vector<int64_t> shape, const std::vector<T>& values);
  static Tensor from_strings(std::vector<int64_t> shape, const std::vector<std::string>& values);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t element_count() const;
  size_t byte_size() const { return static_cast<size_t>(element_count()) * element_size(dtype_); }
  bool defined() const { return dtype_ != DataType::kUndefined; }

  /// Whether this tensor's data and `other`'s lie in one storage block: copies of one
  /// tensor, or share() with one owner (false for borrowed data).
  bool shares_storage_with(const Tensor& other) const { return storage_ != nullptr && storage_ == other.storage_; }

  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }
  template <typename T>
  T* data() { return static_cast<T*>(data_); }
  template <typename T>
  const T* data() const { return static_cast<const T*>(data_); }
  template <typename T>
  std::span<const T> values() const { return {data<T>(), static_cast<size_t>(element_count())}; }

  /// Deep copy with its own storage.
  Tensor clone() const;
  /// Same storage viewed with another shape of equal element count.
  Result<Tensor> reshaped(std::vector<int64_t> shape) const;
  /// Element `index` (flat) converted to double / int64 (numeric and bool types only).
  double scalar_as_double(int64_t index = 0) const;
  int64_t scalar_as_int64(int64_t index = 0) const;
  /// Integer contents (int32/int64/uint*/bool) as int64s; an error otherwise.
  Result<std::vector<int64_t>> to_int64_vector() const;
  /// Summary such as "float32[2,3] {1, 2, 3, ...}" for messages and ge-run.
  std::string to_string(size_t max_values = 8) const;

 private:
  DataType dtype_ = DataType::kUndefined;
  std::vector<int64_t> shape_;
  std::shared_ptr<void> storage_;  // owns data_ unless borrowed
  void* data_ = nullptr;
};

/// Element count of a static shape (1 for a scalar).
int64_t element_count(const std::vector<int64_t>& shape);

template <typename T>
Tensor Tensor::from_vector(std::vector<int64_t> shape, const std::vector<T>& values) {
  Tensor tensor = zeros(data_type_of<T>(), std::move(shape));
  assert(static_cast<size_t>(tensor.element_count()) == values.size());
  T* out = tensor.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace ge
