// The dense host tensor (ge/tensor.h).
#include "ge/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

#include "ge/alignment.h"
#include "ge/minifloat.h"
#include "ge/shape_arithmetic.h"
#include "ge/tensor_desc.h"

namespace ge {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

int64_t Tensor::element_count() const { return ge::element_count(shape_); }

Tensor Tensor::zeros(DataType type, std::vector<int64_t> shape) {
  Tensor tensor;
  tensor.dtype_ = type;
  tensor.shape_ = std::move(shape);
  // A shape whose bytes overflow would allocate a wrapped, too small block.
  Result<size_t> checked_bytes = checked_byte_size(type, tensor.shape_);
  if (!checked_bytes.is_ok()) throw std::bad_array_new_length();
  const int64_t count = tensor.element_count();
  if (type == DataType::kString) {
    auto* strings = new std::string[std::max<int64_t>(count, 1)];
    tensor.storage_ = std::shared_ptr<void>(strings, [](void* p) { delete[] static_cast<std::string*>(p); });
    tensor.data_ = strings;
    return tensor;
  }
  // 64-byte alignment suits vector kernels; never a null pointer, even for empty tensors.
  constexpr size_t kAlignment = 64;
  size_t bytes = *checked_bytes;
  bytes = std::max<size_t>(kAlignment, align_up(bytes, kAlignment));
  void* memory = std::aligned_alloc(kAlignment, bytes);
  if (memory == nullptr) throw std::bad_alloc();
  std::memset(memory, 0, bytes);
  tensor.storage_ = std::shared_ptr<void>(memory, [](void* p) { std::free(p); });
  tensor.data_ = memory;
  return tensor;
}

Tensor Tensor::borrow(DataType type, std::vector<int64_t> shape, void* data) {
  Tensor tensor;
  tensor.dtype_ = type;
  tensor.shape_ = std::move(shape);
  tensor.data_ = data;
  return tensor;
}

Tensor Tensor::share(DataType type, std::vector<int64_t> shape, void* data, std::shared_ptr<void> owner) {
  Tensor tensor = borrow(type, std::move(shape), data);
  tensor.storage_ = std::move(owner);
  return tensor;
}

Tensor Tensor::from_strings(std::vector<int64_t> shape, const std::vector<std::string>& values) {
  Tensor tensor = zeros(DataType::kString, std::move(shape));
  assert(static_cast<size_t>(tensor.element_count()) == values.size());
  for (size_t i = 0; i < values.size(); ++i) tensor.data<std::string>()[i] = values[i];
  return tensor;
}

Tensor Tensor::clone() const {
  if (!defined()) return Tensor();
  Tensor copy = zeros(dtype_, shape_);
  if (dtype_ == DataType::kString) {
    for (int64_t i = 0; i < element_count(); ++i) copy.data<std::string>()[i] = data<std::string>()[i];
  } else if (byte_size() > 0) {
    std::memcpy(copy.data_, data_, byte_size());
  }
  return copy;
}

Result<Tensor> Tensor::reshaped(std::vector<int64_t> shape) const {
  if (ge::element_count(shape) != element_count()) {
    return invalid_argument("cannot reshape " + shape_to_string(shape_) + " to " + shape_to_string(shape) +
                            ": element counts differ");
  }
  Tensor view = *this;
  view.shape_ = std::move(shape);
  return view;
}

double Tensor::scalar_as_double(int64_t index) const {
  switch (dtype_) {
    case DataType::kFloat32: return data<float>()[index];
    case DataType::kFloat64: return data<double>()[index];
    case DataType::kInt8: return data<int8_t>()[index];
    case DataType::kInt16: return data<int16_t>()[index];
    case DataType::kInt32: return data<int32_t>()[index];
    case DataType::kInt64: return static_cast<double>(data<int64_t>()[index]);
    case DataType::kUInt8: return data<uint8_t>()[index];
    case DataType::kUInt16: return data<uint16_t>()[index];
    case DataType::kUInt32: return data<uint32_t>()[index];
    case DataType::kUInt64: return static_cast<double>(data<uint64_t>()[index]);
    case DataType::kBool: return data<uint8_t>()[index] != 0 ? 1.0 : 0.0;
    case DataType::kFloat16: return float16_to_float(data<uint16_t>()[index]);
    case DataType::kBFloat16: return bfloat16_to_float(data<uint16_t>()[index]);
    case DataType::kInt4: return data<int8_t>()[index];
    case DataType::kUInt4: return data<uint8_t>()[index];
    default:
      if (auto format = minifloat_format(dtype_)) return minifloat_to_float(data<uint8_t>()[index], *format);
      return std::nan("");
  }
}

int64_t Tensor::scalar_as_int64(int64_t index) const {
  switch (dtype_) {
    case DataType::kInt64: return data<int64_t>()[index];
    case DataType::kUInt64: return static_cast<int64_t>(data<uint64_t>()[index]);
    case DataType::kInt32: return data<int32_t>()[index];
    case DataType::kUInt32: return data<uint32_t>()[index];
    default: return static_cast<int64_t>(scalar_as_double(index));
  }
}

Result<std::vector<int64_t>> Tensor::to_int64_vector() const {
  switch (dtype_) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
    case DataType::kUInt8: case DataType::kUInt16: case DataType::kUInt32: case DataType::kUInt64:
    case DataType::kBool: break;
    default:
      return invalid_argument("expected an integer tensor, got " + std::string(data_type_name(dtype_)));
  }
  std::vector<int64_t> out(static_cast<size_t>(element_count()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = scalar_as_int64(static_cast<int64_t>(i));
  return out;
}

std::string Tensor::to_string(size_t max_values) const {
  std::ostringstream out;
  out << data_type_name(dtype_) << shape_to_string(shape_) << " {";
  const int64_t count = element_count();
  const int64_t shown = std::min<int64_t>(count, static_cast<int64_t>(max_values));
  for (int64_t i = 0; i < shown; ++i) {
    if (i) out << ", ";
    if (dtype_ == DataType::kString) {
      out << '"' << data<std::string>()[i] << '"';
    } else if (dtype_ == DataType::kBool) {
      out << (data<uint8_t>()[i] ? "true" : "false");
    } else if (dtype_ == DataType::kComplex64 || dtype_ == DataType::kComplex128) {
      out << "?";
    } else if (dtype_ == DataType::kInt64 || dtype_ == DataType::kUInt64 || dtype_ == DataType::kInt32) {
      out << scalar_as_int64(i);
    } else {
      out << scalar_as_double(i);
    }
  }
  if (count > shown) out << (shown > 0 ? ", ..." : "...");
  out << "}";
  return out.str();
}

}  // namespace ge
