#include "output_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ge::tools {
namespace {

TensorComparison compare(const Tensor& actual, const Tensor& expected, double rtol = 1e-5, double atol = 1e-5) {
  Result<TensorComparison> result = compare_tensors(actual, expected, rtol, atol);
  EXPECT_TRUE(result.is_ok()) << result.status().to_string();
  return result.is_ok() ? *result : TensorComparison();
}

TEST(OutputCompareTest, WithinToleranceMatches) {
  // |1.00001 - 1| = 1e-5 <= 1e-5 + 1e-5 * 1; |-2.00002 - -2| = 2e-5 <= 1e-5 + 2e-5.
  TensorComparison c =
      compare(Tensor::from_vector<double>({2}, {1.00001, -2.00002}), Tensor::from_vector<double>({2}, {1.0, -2.0}));
  EXPECT_TRUE(c.matches) << c.detail;
  EXPECT_NEAR(c.max_abs_error, 2e-5, 1e-12);
  EXPECT_EQ(c.mismatched_elements, 0);
  EXPECT_TRUE(c.detail.empty());
}

TEST(OutputCompareTest, ReportsFirstMismatchWithIndex) {
  // Element [1,0]: |0.5 - 0.25| = 0.25 > 1e-5 + 1e-5 * 0.25; element [1,1] also differs.
  TensorComparison c = compare(Tensor::from_vector<float>({2, 2}, {1, 2, 0.5f, 4}),
                               Tensor::from_vector<float>({2, 2}, {1, 2, 0.25f, 5}));
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.mismatched_elements, 2);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 1.0);
  EXPECT_EQ(c.detail.rfind("2 of 4 elements differ; first at [1,0]: got 0.5, expected 0.25", 0), 0u) << c.detail;
}

TEST(OutputCompareTest, AbsoluteToleranceAlone) {
  TensorComparison c =
      compare(Tensor::from_vector<float>({1}, {0.1f}), Tensor::from_vector<float>({1}, {0.0f}), 0.0, 0.2);
  EXPECT_TRUE(c.matches);
}

TEST(OutputCompareTest, NanAndInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(
      compare(Tensor::from_vector<float>({2}, {nan, inf}), Tensor::from_vector<float>({2}, {nan, inf})).matches);
  TensorComparison c = compare(Tensor::from_vector<float>({2}, {nan, -inf}), Tensor::from_vector<float>({2}, {1, inf}));
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.mismatched_elements, 2);
  EXPECT_TRUE(std::isinf(c.max_abs_error));
}

TEST(OutputCompareTest, DtypeAndShapeMustMatch) {
  TensorComparison dtype = compare(Tensor::from_vector<double>({1}, {1}), Tensor::from_vector<float>({1}, {1}));
  EXPECT_FALSE(dtype.matches);
  EXPECT_EQ(dtype.detail, "dtype float64 but expected float32");
  TensorComparison shape = compare(Tensor::from_vector<float>({1, 2}, {1, 2}), Tensor::from_vector<float>({2}, {1, 2}));
  EXPECT_FALSE(shape.matches);
  EXPECT_EQ(shape.detail, "shape [1,2] but expected [2]");
}

TEST(OutputCompareTest, IntegersBoolsAndFloat16) {
  EXPECT_TRUE(compare(Tensor::from_vector<int64_t>({2}, {3, -4}), Tensor::from_vector<int64_t>({2}, {3, -4})).matches);
  EXPECT_FALSE(compare(Tensor::from_vector<int32_t>({1}, {3}), Tensor::from_vector<int32_t>({1}, {4})).matches);
  EXPECT_FALSE(
      compare(Tensor::from_vector<bool>({2}, {true, false}), Tensor::from_vector<bool>({2}, {true, true})).matches);
  // 0x3C00 = 1.0 and 0x3C01 = 1.0009765625 in binary16: differ by 2^-10.
  Tensor a = Tensor::zeros(DataType::kFloat16, {1});
  Tensor b = Tensor::zeros(DataType::kFloat16, {1});
  a.data<uint16_t>()[0] = 0x3C00;
  b.data<uint16_t>()[0] = 0x3C01;
  TensorComparison c = compare(a, b);
  EXPECT_FALSE(c.matches);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.0009765625);
  EXPECT_TRUE(compare(a, b, 0.0, 0.001).matches);
}

TEST(OutputCompareTest, Strings) {
  EXPECT_TRUE(compare(Tensor::from_strings({1}, {"ab"}), Tensor::from_strings({1}, {"ab"})).matches);
  TensorComparison c = compare(Tensor::from_strings({2}, {"ab", "c"}), Tensor::from_strings({2}, {"ab", "d"}));
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.detail, "1 of 2 elements differ; first at [1]: got \"c\", expected \"d\"");
}

}  // namespace
}  // namespace ge::tools
