// Tests of shape arithmetic (ge/shape_arithmetic.h).
#include "ge/shape_arithmetic.h"

#include <gtest/gtest.h>

#include <new>
#include <vector>

#include "ge/tensor.h"

namespace ge {
namespace {

constexpr int64_t kTwoTo22 = int64_t{1} << 22;

TEST(ShapeArithmeticTest, CountsAndBytesOfOrdinaryShapes) {
  EXPECT_EQ(*checked_element_count(std::vector<int64_t>{}), 1);  // a scalar
  EXPECT_EQ(*checked_element_count(std::vector<int64_t>{2, 3, 4}), 24);
  EXPECT_EQ(*checked_byte_size(DataType::kFloat32, std::vector<int64_t>{2, 3, 4}), 96u);
  EXPECT_EQ(*checked_multiply(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_FALSE(checked_multiply(int64_t{1} << 31, int64_t{1} << 33).has_value());
}

TEST(ShapeArithmeticTest, AZeroDimMakesAnEmptyTensorHoweverLargeTheOthers) {
  EXPECT_EQ(*checked_element_count(std::vector<int64_t>{kTwoTo22, kTwoTo22, kTwoTo22, 0}), 0);
}

TEST(ShapeArithmeticTest, OverflowIsAnErrorNamingTheDims) {
  // Unchecked, these wrap to 0 and 4 elements.
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{kTwoTo22, kTwoTo22, kTwoTo22}, std::vector<int64_t>{(int64_t{1} << 62) + 1, 4, 1}}) {
    Result<int64_t> count = checked_element_count(dims);
    ASSERT_FALSE(count.is_ok());
    EXPECT_EQ(count.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(count.status().message().find("has more than 2^63 elements"), std::string::npos)
        << count.status().message();
  }
  Result<int64_t> count = checked_element_count(std::vector<int64_t>{kTwoTo22, kTwoTo22, kTwoTo22});
  EXPECT_EQ(count.status().message(), "shape [4194304,4194304,4194304] has more than 2^63 elements");
  // The count fits, the bytes do not.
  Result<size_t> bytes = checked_byte_size(DataType::kFloat32, std::vector<int64_t>{int64_t{1} << 62});
  ASSERT_FALSE(bytes.is_ok());
  EXPECT_NE(bytes.status().message().find("more than 2^63 bytes"), std::string::npos) << bytes.status().message();
}

TEST(ShapeArithmeticTest, ANegativeDimIsAnError) {
  Result<int64_t> count = checked_element_count(std::vector<int64_t>{2, -3});
  ASSERT_FALSE(count.is_ok());
  EXPECT_EQ(count.status().message(), "dim 1 of [2,-3] is negative (-3)");
}

TEST(ShapeArithmeticTest, TensorStorageOfAnOverflowingShapeIsRefused) {
  // It allocated the wrapped size (0 bytes) and kept the dims.
  EXPECT_THROW(Tensor::zeros(DataType::kFloat32, {kTwoTo22, kTwoTo22, kTwoTo22}), std::bad_alloc);
  EXPECT_EQ(Tensor::zeros(DataType::kFloat32, {2, 3}).byte_size(), 24u);
}

}  // namespace
}  // namespace ge
