// Gemm kernel tests. A = arange(6).reshape(2,3), B = arange(12).reshape(3,4) - 5, so
// A @ B = [[5,8,11,14],[-4,8,20,32]] (row 0: 0*-5 + 1*-1 + 2*3 = 5, ...). Other values from
// numpy expressions quoted beside them (/usr/bin/python3).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor matrix_a() { return f32_iota({2, 3}); }
Tensor matrix_b() { return f32_iota({3, 4}, -5); }
// The same matrices stored transposed (A.T, B.T).
Tensor matrix_a_transposed() { return f32({3, 2}, {0, 3, 1, 4, 2, 5}); }
Tensor matrix_b_transposed() { return f32({4, 3}, {-5, -1, 3, -4, 0, 4, -3, 1, 5, -2, 2, 6}); }

TEST(GemmKernel, PlainProductWithoutC) {
  KernelTest test("Gemm");
  test.input(matrix_a()).input(matrix_b()).output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {5, 8, 11, 14, -4, 8, 20, 32});
}

TEST(GemmKernel, AlphaBetaAndRowBroadcastC) {
  // 0.5 * A @ B + 2 * [1,2,3,4]: 2.5 + 2 = 4.5, 4 + 4 = 8, ...
  KernelTest test("Gemm");
  test.input(matrix_a())
      .input(matrix_b())
      .input(f32({4}, {1, 2, 3, 4}))
      .attribute("alpha", 0.5f)
      .attribute("beta", 2.0f)
      .output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {4.5f, 8, 11.5f, 15, 0, 8, 16, 24});
}

TEST(GemmKernel, TransposeBothAndColumnBroadcastC) {
  // A.T stored, B.T stored, C = [[10],[20]] with beta 0.5: A @ B + [[5],[10]].
  KernelTest test("Gemm");
  test.input(matrix_a_transposed())
      .input(matrix_b_transposed())
      .input(f32({2, 1}, {10, 20}))
      .attribute("transA", int64_t{1})
      .attribute("transB", int64_t{1})
      .attribute("beta", 0.5f)
      .output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {10, 13, 16, 19, 6, 18, 30, 42});
}

TEST(GemmKernel, TransposeAOnly) {
  KernelTest test("Gemm");
  test.input(matrix_a_transposed()).input(matrix_b()).attribute("transA", int64_t{1}).output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {5, 8, 11, 14, -4, 8, 20, 32});
}

TEST(GemmKernel, TransposeBOnlyWithScalarC) {
  // A @ B + 3.
  KernelTest test("Gemm");
  test.input(matrix_a())
      .input(matrix_b_transposed())
      .initializer(f32({}, {3}))
      .attribute("transB", int64_t{1})
      .output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {8, 11, 14, 17, -1, 11, 23, 35});
}

TEST(GemmKernel, Int32WithFullC) {
  // numpy: 2 * (A @ B) - C with A = [[1,-2,3],[4,5,-6]], B = arange(12).reshape(3,4) - 4,
  // C = arange(8).reshape(2,4), all int32.
  KernelTest test("Gemm");
  std::vector<int32_t> b(12);
  for (int i = 0; i < 12; ++i) b[i] = i - 4;
  test.input(i32({2, 3}, {1, -2, 3, 4, 5, -6}))
      .input(i32({3, 4}, b))
      .input(i32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}))
      .attribute("alpha", 2.0f)
      .attribute("beta", -1.0f)
      .output(F::kInt32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 4}, {16, 19, 22, 25, -84, -79, -74, -69});
}

TEST(GemmKernel, LargeTransposedBAsInALinearLayer) {
  // A[i][k] = i + 1 (10 x 300); B stored transposed, Bt[n][k] = k % 7 + n % 5 (600 x 300);
  // C[n] = n. The sum over k < 300 of k % 7 is 42 * 21 + 15 = 897, so
  // Y[i][n] = (i + 1) * (897 + 300 * (n % 5)) + n.
  constexpr int kM = 10, kK = 300, kN = 600;
  std::vector<float> a(kM * kK), bt(kN * kK), c(kN), expected(kM * kN);
  for (int i = 0; i < kM; ++i)
    for (int k = 0; k < kK; ++k) a[i * kK + k] = static_cast<float>(i + 1);
  for (int n = 0; n < kN; ++n)
    for (int k = 0; k < kK; ++k) bt[n * kK + k] = static_cast<float>(k % 7 + n % 5);
  for (int n = 0; n < kN; ++n) c[n] = static_cast<float>(n);
  for (int i = 0; i < kM; ++i)
    for (int n = 0; n < kN; ++n) expected[i * kN + n] = static_cast<float>((i + 1) * (897 + 300 * (n % 5)) + n);
  KernelTest test("Gemm");
  test.input(f32({kM, kK}, a))
      .initializer(f32({kN, kK}, bt))
      .initializer(f32({kN}, c))
      .attribute("transB", int64_t{1})
      .output(F::kFloat32, {kM, kN});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {kM, kN}, expected);
}

TEST(GemmKernel, MismatchedInnerDimensionIsInvalid) {
  KernelTest test("Gemm");
  test.input(matrix_a()).input(matrix_b()).attribute("transB", int64_t{1}).output(F::kFloat32, {2, 3});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("inner dimensions"), std::string::npos) << kernel.status().message();
}

TEST(GemmKernel, CThatDoesNotBroadcastIsInvalid) {
  KernelTest test("Gemm");
  test.input(matrix_a()).input(matrix_b()).input(f32({3}, {1, 2, 3})).output(F::kFloat32, {2, 4});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("input C"), std::string::npos) << kernel.status().message();
}

// K = 0: A' * B' is zeros, so Y = beta * C (numpy: zeros((2,0)) @ zeros((0,4)) + 2 * c).
// Empty tensors reach the kernel without an address, as at run time.
TEST(GemmKernel, EmptyInnerDimensionGivesBetaTimesC) {
  for (int64_t trans_b : {0, 1}) {
    KernelTest test("Gemm");
    test.input(f32({2, 0}, {}))
        .input(trans_b != 0 ? f32({4, 0}, {}) : f32({0, 4}, {}))
        .input(f32({4}, {1, 2, 3, 4}))
        .attribute("beta", 2.0f)
        .attribute("transB", trans_b)
        .output(F::kFloat32, {2, 4})
        .empty_tensors_without_address();
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {2, 4}, {2, 4, 6, 8, 2, 4, 6, 8});
  }
}

TEST(GemmKernel, EmptyRowsGiveAnEmptyProduct) {
  KernelTest test("Gemm");
  test.input(f32({0, 3}, {})).input(matrix_b()).input(f32({4}, {1, 2, 3, 4})).output(F::kFloat32, {0, 4});
  test.empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {0, 4}, {});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
