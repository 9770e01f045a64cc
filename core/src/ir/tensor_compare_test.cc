// Tests of tensor comparison (ge/tensor_compare.h).
#include "ge/tensor_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ge {
namespace {

const Tolerance kDefault{.rtol = 1e-3, .atol = 1e-5};

Tensor raw16(DataType type, std::vector<int64_t> shape, const std::vector<uint16_t>& bits) {
  Tensor tensor = Tensor::zeros(type, std::move(shape));
  for (size_t i = 0; i < bits.size(); ++i) tensor.data<uint16_t>()[i] = bits[i];
  return tensor;
}

TEST(TensorCompareTest, FloatWithinToleranceMatches) {
  // |1000.9 - 1000| = 0.9 <= 1e-5 + 1e-3 * 1000 = 1.00001.
  const Tensor actual = Tensor::from_vector<float>({2}, {1000.9f, 0.000005f});
  const Tensor expected = Tensor::from_vector<float>({2}, {1000.0f, 0.0f});
  EXPECT_TRUE(compare_tensors(actual, expected, kDefault).matches);
}

TEST(TensorCompareTest, FloatOutsideToleranceReportsFirstElement) {
  // Element [1,0]: |1.01 - 1| = 0.01 > 1e-5 + 1e-3 * 1 = 0.00101.
  const Tensor actual = Tensor::from_vector<float>({2, 2}, {1, 2, 1.01f, 4});
  const Tensor expected = Tensor::from_vector<float>({2, 2}, {1, 2, 1, 4});
  const TensorComparison comparison = compare_tensors(actual, expected, kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_NE(comparison.detail.find("1 of 4 elements differ"), std::string::npos) << comparison.detail;
  EXPECT_NE(comparison.detail.find("first at [1,0]"), std::string::npos) << comparison.detail;
}

TEST(TensorCompareTest, NanEqualsNanOnly) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(
      compare_tensors(Tensor::from_vector<double>({1}, {nan}), Tensor::from_vector<double>({1}, {nan}), kDefault)
          .matches);
  EXPECT_FALSE(
      compare_tensors(Tensor::from_vector<double>({1}, {0.0}), Tensor::from_vector<double>({1}, {nan}), kDefault)
          .matches);
  EXPECT_FALSE(
      compare_tensors(Tensor::from_vector<double>({1}, {nan}), Tensor::from_vector<double>({1}, {0.0}), kDefault)
          .matches);
}

TEST(TensorCompareTest, InfinityEqualsSameInfinityOnly) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(compare_tensors(Tensor::from_vector<float>({1}, {inf}), Tensor::from_vector<float>({1}, {inf}), kDefault)
                  .matches);
  EXPECT_FALSE(
      compare_tensors(Tensor::from_vector<float>({1}, {-inf}), Tensor::from_vector<float>({1}, {inf}), kDefault)
          .matches);
  EXPECT_FALSE(
      compare_tensors(Tensor::from_vector<float>({1}, {3.4e38f}), Tensor::from_vector<float>({1}, {inf}), kDefault)
          .matches);
}

TEST(TensorCompareTest, DtypeMustMatch) {
  const TensorComparison comparison =
      compare_tensors(Tensor::from_vector<double>({1}, {1.0}), Tensor::from_vector<float>({1}, {1.0f}), kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_EQ(comparison.detail, "dtype float64 but expected float32");
}

TEST(TensorCompareTest, ShapeMustMatch) {
  const TensorComparison comparison =
      compare_tensors(Tensor::from_vector<float>({1, 2}, {1, 2}), Tensor::from_vector<float>({2}, {1, 2}), kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_EQ(comparison.detail, "shape [1,2] but expected [2]");
}

TEST(TensorCompareTest, IntegersCompareExactly) {
  // Within rtol 1e-3 of each other, but integers must be equal.
  EXPECT_FALSE(compare_tensors(Tensor::from_vector<int32_t>({1}, {100001}), Tensor::from_vector<int32_t>({1}, {100000}),
                               kDefault)
                   .matches);
  // 2^53 + 1 and 2^53 are the same double: compared as int64 they differ.
  const int64_t big = int64_t{1} << 53;
  const TensorComparison comparison =
      compare_tensors(Tensor::from_vector<int64_t>({1}, {big + 1}), Tensor::from_vector<int64_t>({1}, {big}), kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_NE(comparison.detail.find("got 9007199254740993, expected 9007199254740992"), std::string::npos)
      << comparison.detail;
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  EXPECT_FALSE(compare_tensors(Tensor::from_vector<uint64_t>({1}, {top - 1}), Tensor::from_vector<uint64_t>({1}, {top}),
                               kDefault)
                   .matches);
  EXPECT_TRUE(compare_tensors(Tensor::from_vector<int8_t>({3}, {-128, 0, 127}),
                              Tensor::from_vector<int8_t>({3}, {-128, 0, 127}), kDefault)
                  .matches);
}

TEST(TensorCompareTest, BoolsCompareByTruth) {
  EXPECT_TRUE(compare_tensors(Tensor::from_vector<bool>({2}, {true, false}),
                              Tensor::from_vector<bool>({2}, {true, false}), kDefault)
                  .matches);
  const TensorComparison comparison = compare_tensors(Tensor::from_vector<bool>({2}, {true, true}),
                                                      Tensor::from_vector<bool>({2}, {true, false}), kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_NE(comparison.detail.find("got true, expected false"), std::string::npos) << comparison.detail;
}

TEST(TensorCompareTest, StringsCompareExactly) {
  EXPECT_TRUE(
      compare_tensors(Tensor::from_strings({2}, {"a", "b"}), Tensor::from_strings({2}, {"a", "b"}), kDefault).matches);
  const TensorComparison comparison =
      compare_tensors(Tensor::from_strings({2}, {"a", "B"}), Tensor::from_strings({2}, {"a", "b"}), kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_NE(comparison.detail.find("got \"B\", expected \"b\""), std::string::npos) << comparison.detail;
}

TEST(TensorCompareTest, Float16ComparesDecodedValues) {
  // 1.0 vs 1.0009765625 (0x3C01): |diff| 0.000977 <= 1e-5 + 1e-3 = 0.00101.
  EXPECT_TRUE(
      compare_tensors(raw16(DataType::kFloat16, {1}, {0x3C01}), raw16(DataType::kFloat16, {1}, {0x3C00}), kDefault)
          .matches);
  // 1.0 vs 1.001953125 (0x3C02): |diff| 0.00195 > 0.00101.
  EXPECT_FALSE(
      compare_tensors(raw16(DataType::kFloat16, {1}, {0x3C02}), raw16(DataType::kFloat16, {1}, {0x3C00}), kDefault)
          .matches);
  // bfloat16 1.0 vs 1.0078125 (0x3F81).
  EXPECT_FALSE(
      compare_tensors(raw16(DataType::kBFloat16, {1}, {0x3F81}), raw16(DataType::kBFloat16, {1}, {0x3F80}), kDefault)
          .matches);
}

TEST(TensorCompareTest, ComplexComparesBothParts) {
  Tensor expected = Tensor::zeros(DataType::kComplex64, {1});
  Tensor actual = Tensor::zeros(DataType::kComplex64, {1});
  expected.data<float>()[0] = 1;
  expected.data<float>()[1] = 2;
  actual.data<float>()[0] = 1;
  actual.data<float>()[1] = 2;
  EXPECT_TRUE(compare_tensors(actual, expected, kDefault).matches);
  actual.data<float>()[1] = 2.5f;
  const TensorComparison comparison = compare_tensors(actual, expected, kDefault);
  EXPECT_FALSE(comparison.matches);
  EXPECT_NE(comparison.detail.find("imaginary part"), std::string::npos) << comparison.detail;
}

TEST(TensorCompareTest, EmptyTensorsOfSameShapeMatch) {
  EXPECT_TRUE(
      compare_tensors(Tensor::zeros(DataType::kFloat32, {0, 3}), Tensor::zeros(DataType::kFloat32, {0, 3}), kDefault)
          .matches);
}

TEST(TensorCompareTest, CountsMismatchesAndLargestError) {
  // Element [1,0]: |0.5 - 0.25| = 0.25 > 1e-5 + 1e-5 * 0.25; element [1,1] also differs.
  const TensorComparison c = compare_tensors(Tensor::from_vector<float>({2, 2}, {1, 2, 0.5f, 4}),
                                             Tensor::from_vector<float>({2, 2}, {1, 2, 0.25f, 5}), {1e-5, 1e-5});
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.mismatched_elements, 2);
  EXPECT_EQ(c.first_mismatch, 2);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 1.0);
  EXPECT_EQ(c.detail, "2 of 4 elements differ; first at [1,0]: got 0.5, expected 0.25 (|diff| 0.25 > 1.25e-05)");
}

TEST(TensorCompareTest, ToleranceBoundIsInclusive) {
  // |1.00001 - 1| = 1e-5 <= 1e-5 + 1e-5 * 1; |-2.00002 - -2| = 2e-5 <= 1e-5 + 2e-5.
  const TensorComparison c = compare_tensors(Tensor::from_vector<double>({2}, {1.00001, -2.00002}),
                                             Tensor::from_vector<double>({2}, {1.0, -2.0}), {1e-5, 1e-5});
  EXPECT_TRUE(c.matches) << c.detail;
  EXPECT_NEAR(c.max_abs_error, 2e-5, 1e-12);
  EXPECT_EQ(c.mismatched_elements, 0);
  EXPECT_EQ(c.first_mismatch, -1);
  EXPECT_TRUE(c.detail.empty());
  // Absolute tolerance alone; zero tolerance demands equality.
  EXPECT_TRUE(compare_tensors(Tensor::from_vector<float>({1}, {0.1f}), Tensor::from_vector<float>({1}, {0.0f}),
                              {.rtol = 0, .atol = 0.2})
                  .matches);
  EXPECT_FALSE(compare_tensors(Tensor::from_vector<float>({1}, {0.1f}), Tensor::from_vector<float>({1}, {0.0f}), {})
                   .matches);
  EXPECT_TRUE(
      compare_tensors(Tensor::from_vector<float>({1}, {0.1f}), Tensor::from_vector<float>({1}, {0.1f}), {}).matches);
}

TEST(TensorCompareTest, NanOrInfinityAgainstAnotherValueIsAnInfiniteError) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const TensorComparison same =
      compare_tensors(Tensor::from_vector<float>({2}, {nan, inf}), Tensor::from_vector<float>({2}, {nan, inf}), {});
  EXPECT_TRUE(same.matches);
  EXPECT_EQ(same.max_abs_error, 0.0);
  const TensorComparison c = compare_tensors(Tensor::from_vector<float>({2}, {nan, -inf}),
                                             Tensor::from_vector<float>({2}, {1, inf}), kDefault);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.mismatched_elements, 2);
  EXPECT_TRUE(std::isinf(c.max_abs_error));
}

TEST(TensorCompareTest, MismatchedDtypeOrShapeReportsNoElements) {
  const TensorComparison c =
      compare_tensors(Tensor::from_vector<float>({3}, {1, 2, 3}), Tensor::from_vector<float>({1, 3}, {9, 9, 9}), {});
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.mismatched_elements, 0);
  EXPECT_EQ(c.first_mismatch, -1);
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_EQ(c.detail, "shape [3] but expected [1,3]");
}

TEST(TensorCompareTest, IntegerErrorIsTheDifference) {
  const TensorComparison c = compare_tensors(Tensor::from_vector<int32_t>({2}, {3, -7}),
                                             Tensor::from_vector<int32_t>({2}, {3, -4}), {.rtol = 1, .atol = 10});
  EXPECT_FALSE(c.matches);  // tolerance does not apply to integers
  EXPECT_EQ(c.max_abs_error, 3.0);
  EXPECT_EQ(c.detail, "1 of 2 elements differ; first at [1]: got -7, expected -4");
}

TEST(TensorCompareTest, Float8ComparesDecodedValues) {
  Tensor a = Tensor::zeros(DataType::kFloat8E4M3FN, {1});
  Tensor b = Tensor::zeros(DataType::kFloat8E4M3FN, {1});
  a.data<uint8_t>()[0] = 0x38;  // 1.0
  b.data<uint8_t>()[0] = 0x39;  // 1.125
  EXPECT_FALSE(compare_tensors(a, b, kDefault).matches);
  EXPECT_TRUE(compare_tensors(a, b, {.rtol = 0, .atol = 0.125}).matches);
}

TEST(TensorCompareTest, TensorWithoutDataIsAMismatchThatSaysSo) {
  // A default tensor is a scalar of undefined dtype with no storage.
  const TensorComparison c = compare_tensors(Tensor(), Tensor(), kDefault);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.first_mismatch, -1);
  EXPECT_EQ(c.detail, "a non-empty tensor has no data");
}

TEST(CompareValuesTest, OptionalsMatchOnlyLikeOptionals) {
  const RuntimeValue empty = RuntimeValue::empty_optional(ValueKind::kOptional, DataType::kFloat32);
  const RuntimeValue present = RuntimeValue::of(Tensor::from_vector<float>({1}, {1}));
  EXPECT_TRUE(compare_values(empty, empty, kDefault).matches);
  const TensorComparison c = compare_values(empty, present, kDefault);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.detail, "optional is empty, expected present");
  EXPECT_EQ(compare_values(present, empty, kDefault).detail, "optional is present, expected empty");
}

TEST(CompareValuesTest, SequencesCompareElementByElement) {
  auto sequence = [](std::vector<float> values) {
    std::vector<Tensor> items;
    for (float v : values) items.push_back(Tensor::from_vector<float>({1}, {v}));
    return RuntimeValue::of_sequence(std::move(items), DataType::kFloat32);
  };
  EXPECT_TRUE(compare_values(sequence({1, 2}), sequence({1, 2}), kDefault).matches);
  EXPECT_EQ(compare_values(sequence({1}), sequence({1, 2}), kDefault).detail,
            "the sequence has 1 elements, expected 2");
  const TensorComparison c = compare_values(sequence({1, 5, 7}), sequence({1, 2, 3}), kDefault);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.mismatched_elements, 2);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 4.0);
  EXPECT_EQ(c.detail.rfind("sequence element 1: 1 of 1 elements differ; first at [0]: got 5, expected 2", 0), 0u)
      << c.detail;
  const TensorComparison kind =
      compare_values(RuntimeValue::of(Tensor::from_vector<float>({1}, {1})), sequence({1}), kDefault);
  EXPECT_FALSE(kind.matches);
  EXPECT_NE(kind.detail.find("expected seq"), std::string::npos) << kind.detail;
}

}  // namespace
}  // namespace ge
