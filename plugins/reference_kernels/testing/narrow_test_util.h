#pragma once
// Tensors of the 4- and 8-bit types (float8, float4e2m1, int4, uint4) for kernel tests,
// given and checked as their one-byte codes (expected codes worked out by hand from the
// formats, never from the code under test).

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ge/tensor.h"

namespace ge::reference_kernels::testing {

/// A `dtype` tensor of `dims` holding the byte codes `codes`.
inline Tensor codes(DataType dtype, std::vector<int64_t> dims, std::vector<uint8_t> codes) {
  Tensor tensor = Tensor::zeros(dtype, std::move(dims));
  for (size_t i = 0; i < codes.size(); ++i) tensor.data<uint8_t>()[i] = codes[i];
  return tensor;
}

/// Expects `actual` to be a `dtype` tensor of `dims` holding the byte codes `expected`.
inline void expect_codes(const Tensor& actual, DataType dtype, const std::vector<int64_t>& dims,
                         const std::vector<uint8_t>& expected) {
  ASSERT_EQ(actual.dtype(), dtype);
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(static_cast<int>(actual.data<uint8_t>()[i]), static_cast<int>(expected[i])) << "element " << i;
  }
}

}  // namespace ge::reference_kernels::testing
