#pragma once
// float16 helpers for the nn family's kernel tests: tensors built from, and read back
// as, IEEE binary16 bit patterns written out by hand (1.0 = 0x3c00, 2.0 = 0x4000, ...).

#include <cstdint>
#include <cstring>
#include <vector>

#include "ge/tensor.h"

namespace ge::reference_kernels::testing {

inline Tensor float16_bits(std::vector<int64_t> dims, const std::vector<uint16_t>& bits) {
  Tensor tensor = Tensor::zeros(DataType::kFloat16, std::move(dims));
  std::memcpy(tensor.raw_data(), bits.data(), bits.size() * sizeof(uint16_t));
  return tensor;
}

/// The bit patterns of a float16 tensor (empty when it is not float16).
inline std::vector<uint16_t> bits_of(const Tensor& tensor) {
  if (tensor.dtype() != DataType::kFloat16) return {};
  const auto* bits = static_cast<const uint16_t*>(tensor.raw_data());
  return std::vector<uint16_t>(bits, bits + tensor.element_count());
}

}  // namespace ge::reference_kernels::testing
