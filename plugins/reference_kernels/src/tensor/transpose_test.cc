// Transpose kernel tests on x = arange(24) as [2,3,4]; values printed by numpy's
// x.transpose(perm) (/usr/bin/python3) or generated from the index formula shown.

#include <gtest/gtest.h>

#include <cstring>

#include "testing/kernel_test_util.h"
#include "testing/narrow_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(TransposeKernel, DefaultPermReversesAxes) {
  KernelTest test("Transpose");
  test.input(f32_iota({2, 3, 4})).output(F::kFloat32, {4, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {4, 3, 2},
                       {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23});
}

TEST(TransposeKernel, SwapLeadingAxesKeepsRowsContiguous) {
  KernelTest test("Transpose");
  test.input(f32_iota({2, 3, 4})).attribute("perm", std::vector<int64_t>{1, 0, 2}).output(F::kFloat32, {3, 2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 2, 4},
                       {0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23});
}

TEST(TransposeKernel, SwapTrailingAxesInt64) {
  std::vector<int64_t> x(24);
  for (int i = 0; i < 24; ++i) x[i] = i;
  KernelTest test("Transpose");
  test.input(i64({2, 3, 4}, x)).attribute("perm", std::vector<int64_t>{0, 2, 1}).output(F::kInt64, {2, 4, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 4, 3},
                         {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23});
}

TEST(TransposeKernel, FourDimensionalPermutation) {
  // y[a][b][c][d] = x[c][b][d][a] for x = arange(120) as [2,3,4,5] and perm [3,1,0,2].
  std::vector<double> x(120), expected;
  for (int i = 0; i < 120; ++i) x[i] = i;
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c)
        for (int d = 0; d < 4; ++d) expected.push_back(((c * 3 + b) * 4 + d) * 5 + a);
  KernelTest test("Transpose");
  test.input(f64({2, 3, 4, 5}, x))
      .attribute("perm", std::vector<int64_t>{3, 1, 0, 2})
      .output(F::kFloat64, {5, 3, 2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {5, 3, 2, 4}, expected, 0);
}

TEST(TransposeKernel, BadPermIsInvalid) {
  KernelTest test("Transpose");
  test.input(f32_iota({2, 3})).attribute("perm", std::vector<int64_t>{0, 0}).output(F::kFloat32, {2, 3});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("attribute 'perm'"), std::string::npos) << kernel.status().message();
}

TEST(TransposeKernel, StringsAndFloat16) {
  // [["a","b","c"],["d","e","f"]] transposed; float16 bit patterns move unchanged.
  KernelTest strings("Transpose");
  strings.initializer(Tensor::from_strings({2, 3}, {"a", "b", "c", "d", "e", "a long string beyond SSO"}))
      .output(F::kString, {3, 2});
  GE_RUN_CONSTANT_KERNEL(out, strings);
  expect_strings(out[0], {3, 2}, {"a", "d", "b", "e", "c", "a long string beyond SSO"});
  Tensor halves = Tensor::zeros(F::kFloat16, {2, 2});
  const uint16_t bits[] = {0x3c00, 0x4000, 0x4200, 0x4400};  // 1, 2, 3, 4
  std::memcpy(halves.raw_data(), bits, sizeof(bits));
  KernelTest half("Transpose");
  half.initializer(halves).output(F::kFloat16, {2, 2});
  GE_RUN_CONSTANT_KERNEL(half_out, half);
  const auto* y = half_out[0].data<uint16_t>();
  EXPECT_EQ(y[0], 0x3c00);
  EXPECT_EQ(y[1], 0x4200);
  EXPECT_EQ(y[2], 0x4000);
  EXPECT_EQ(y[3], 0x4400);
}

TEST(TransposeKernel, Float8AndInt4CodesMoveUnchanged) {
  KernelTest float8("Transpose", 21);
  float8.input(codes(F::kFloat8E4M3FN, {2, 3}, {0x38, 0xC0, 0x7E, 0x01, 0x80, 0x7F})).output(F::kFloat8E4M3FN, {3, 2});
  GE_RUN_KERNEL(a, float8);
  expect_codes(a[0], F::kFloat8E4M3FN, {3, 2}, {0x38, 0x01, 0xC0, 0x80, 0x7E, 0x7F});
  KernelTest int4("Transpose", 21);
  int4.input(codes(F::kInt4, {2, 2}, {0xF8, 7, 0xFF, 0})).attribute("perm", std::vector<int64_t>{1, 0});
  int4.output(F::kInt4, {2, 2});
  GE_RUN_KERNEL(b, int4);
  expect_codes(b[0], F::kInt4, {2, 2}, {0xF8, 0xFF, 7, 0});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
