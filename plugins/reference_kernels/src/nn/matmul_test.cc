// MatMul kernel tests. Values from numpy's `@` (/usr/bin/python3) on the inputs named in
// each test, or computed by hand where the comment shows how.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(MatMulKernel, BatchedBroadcast) {
  // numpy: (arange(24).reshape(2,1,3,4) / 4) @ (arange(24).reshape(3,4,2) - 10) -> [2,3,3,2].
  KernelTest test("MatMul");
  test.input(f32_iota({2, 1, 3, 4}, 0, 0.25f)).input(f32_iota({3, 4, 2}, -10)).output(F::kFloat32, {2, 3, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 3, 2},
                       {-8, -6.5f, -36, -30.5f, -64, -54.5f, 4,   5.5f,   8,    13.5f,   12,   21.5f,
                        16, 17.5f, 52,  57.5f,  88,  97.5f,  -92, -78.5f, -120, -102.5f, -148, -126.5f,
                        16, 29.5f, 20,  37.5f,  24,  45.5f,  124, 137.5f, 160,  177.5f,  196,  217.5f});
}

TEST(MatMulKernel, MatrixTimesVector) {
  // arange(12).reshape(2,2,3) @ [1,-1,2]: row [0,1,2] -> 0 - 1 + 4 = 3, [3,4,5] -> 9, ...
  KernelTest test("MatMul");
  test.input(f32_iota({2, 2, 3})).input(f32({3}, {1, -1, 2})).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {3, 9, 15, 21});
}

TEST(MatMulKernel, VectorTimesBatchedMatrix) {
  // [1,2] @ arange(12).reshape(2,2,3): batch 0 -> [0+6, 1+8, 2+10] = [6, 9, 12].
  KernelTest test("MatMul");
  test.input(f32({2}, {1, 2})).input(f32_iota({2, 2, 3})).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {6, 9, 12, 24, 27, 30});
}

TEST(MatMulKernel, VectorTimesVectorIsAScalar) {
  // [1,-1,2] . [1,-1,2] = 1 + 1 + 4.
  KernelTest test("MatMul");
  test.input(f32({3}, {1, -1, 2})).input(f32({3}, {1, -1, 2})).output(F::kFloat32, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {}, {6});
}

TEST(MatMulKernel, Int64) {
  // (arange(6).reshape(2,3) - 2) @ (arange(6).reshape(3,2) * 3).
  KernelTest test("MatMul");
  test.input(i64({2, 3}, {-2, -1, 0, 1, 2, 3})).input(i64({3, 2}, {0, 3, 6, 9, 12, 15})).output(F::kInt64, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 2}, {-6, -15, 48, 66});
}

TEST(MatMulKernel, LargerThanTheTilesAndCacheBlocks) {
  // A[i][k] = i + 1 (10 x 300), B[k][n] = k % 7 + n % 5 (300 x 600): 10 rows and 600
  // columns leave partial tiles, 300 and 600 cross the 256 depth and column blocks.
  // The sum over k < 300 of k % 7 is 42 * 21 + (0+1+2+3+4+5) = 897, so
  // Y[i][n] = (i + 1) * (897 + 300 * (n % 5)).
  constexpr int kM = 10, kK = 300, kN = 600;
  std::vector<float> a(kM * kK), b(kK * kN), expected(kM * kN);
  for (int i = 0; i < kM; ++i)
    for (int k = 0; k < kK; ++k) a[i * kK + k] = static_cast<float>(i + 1);
  for (int k = 0; k < kK; ++k)
    for (int n = 0; n < kN; ++n) b[k * kN + n] = static_cast<float>(k % 7 + n % 5);
  for (int i = 0; i < kM; ++i)
    for (int n = 0; n < kN; ++n) expected[i * kN + n] = static_cast<float>((i + 1) * (897 + 300 * (n % 5)));
  KernelTest test("MatMul");
  test.input(f32({kM, kK}, a)).input(f32({kK, kN}, b)).output(F::kFloat32, {kM, kN});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {kM, kN}, expected);
}

TEST(MatMulKernel, IncompatibleBatchIsInvalid) {
  KernelTest test("MatMul");
  test.input(f32_iota({2, 2, 3})).input(f32_iota({3, 3, 2})).output(F::kFloat32, {3, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("do not broadcast"), std::string::npos) << kernel.status().message();
}

TEST(MatMulKernel, BoolIsUnsupported) {
  KernelTest test("MatMul");
  Tensor t = Tensor::zeros(DataType::kBool, {2, 2});
  test.input(t).input(t).output(F::kBool, {2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("bool"), std::string::npos) << kernel.status().message();
}

// Empty dims are legal (numpy: zeros((2,0)) @ zeros((0,4)) == zeros((2,4))) and empty
// tensors reach the kernel without an address, as at run time.
TEST(MatMulKernel, EmptyInnerDimensionGivesZeros) {
  KernelTest test("MatMul");
  test.input(f32({2, 0}, {})).input(f32({0, 4}, {})).output(F::kFloat32, {2, 4}).empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, std::vector<float>(8, 0.0f));
}

TEST(MatMulKernel, EmptyOutputDimensionGivesAnEmptyProduct) {
  KernelTest n0("MatMul");
  n0.input(f32_iota({2, 3})).input(f32({3, 0}, {})).output(F::kFloat32, {2, 0}).empty_tensors_without_address();
  GE_RUN_KERNEL(n0_out, n0);
  expect_tensor<float>(n0_out[0], {2, 0}, {});
  KernelTest batch0("MatMul");
  batch0.input(f32({0, 2, 3}, {}))
      .input(f32_iota({3, 4}))
      .output(F::kFloat32, {0, 2, 4})
      .empty_tensors_without_address();
  GE_RUN_KERNEL(batch0_out, batch0);
  expect_tensor<float>(batch0_out[0], {0, 2, 4}, {});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
