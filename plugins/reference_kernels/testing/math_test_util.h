#pragma once
// Tensor builders and checks for the math family's kernel tests: every element type,
// float16/bfloat16 given and checked as raw bit patterns (the expected bits come from
// numpy's float16 or from hand conversion, never from the code under test).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/tensor.h"
#include "testing/kernel_test_util.h"

// A namespace of its own: other families' test helpers live in ge::reference_kernels::testing
// with some of the same names.
namespace ge::reference_kernels::testing::math_testing {

/// A tensor of `dims` holding `values` as elements of T (a standard element type).
template <typename T>
Tensor typed(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector<T>(std::move(dims), values);
}

/// A bool tensor (std::vector<bool> has no data(), so it is filled one by one).
inline Tensor bools(std::vector<int64_t> dims, std::vector<int> values) {
  Tensor tensor = Tensor::zeros(DataType::kBool, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) tensor.data<bool>()[i] = values[i] != 0;
  return tensor;
}

/// A float16 or bfloat16 tensor from raw bit patterns.
inline Tensor half_bits(DataType dtype, std::vector<int64_t> dims, std::vector<uint16_t> bits) {
  Tensor tensor = Tensor::zeros(dtype, std::move(dims));
  for (size_t i = 0; i < bits.size(); ++i) tensor.data<uint16_t>()[i] = bits[i];
  return tensor;
}

inline Tensor strings(std::vector<int64_t> dims, std::vector<std::string> values) {
  return Tensor::from_strings(std::move(dims), values);
}

/// Expects a float16/bfloat16 tensor of `dtype` and `dims` with exactly `bits`.
inline void expect_half_bits(const Tensor& actual, DataType dtype, const std::vector<int64_t>& dims,
                             const std::vector<uint16_t>& bits) {
  ASSERT_EQ(actual.dtype(), dtype);
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(actual.data<uint16_t>()[i], bits[i]) << "element " << i;
  }
}

/// Expects exactly `values` (infinities included; NaN matches NaN), which expect_tensor's
/// tolerance arithmetic cannot check for infinities.
template <typename T>
void expect_exact(const Tensor& actual, const std::vector<int64_t>& dims, const std::vector<T>& values) {
  ASSERT_EQ(actual.dtype(), data_type_of<T>());
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const T got = actual.data<T>()[i];
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i << ": " << got;
    } else {
      EXPECT_EQ(got, values[i]) << "element " << i;
    }
  }
}

inline void expect_bools(const Tensor& actual, const std::vector<int64_t>& dims, const std::vector<int>& values) {
  ASSERT_EQ(actual.dtype(), DataType::kBool);
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(actual.data<bool>()[i], values[i] != 0) << "element " << i;
  }
}

inline void expect_strings(const Tensor& actual, const std::vector<int64_t>& dims,
                           const std::vector<std::string>& values) {
  ASSERT_EQ(actual.dtype(), DataType::kString);
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(actual.data<std::string>()[i], values[i]) << "element " << i;
  }
}

}  // namespace ge::reference_kernels::testing::math_testing
