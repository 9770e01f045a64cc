// NonZero, Compress, Unique, Einsum and Det kernel tests. Expected values printed by
// numpy (/usr/bin/python3): np.nonzero, np.compress, np.unique(..., return_index=True,
// return_inverse=True, return_counts=True), np.einsum, np.linalg.det.

#include <gtest/gtest.h>

#include "tensor/tensor_common.h"
#include "testing/kernel_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(NonZeroKernel, CoordinatesInRowMajorOrder) {
  // [[1,0],[1,1]] -> [[0,1,1],[0,0,1]].
  KernelTest test("NonZero", 13);
  test.input(Tensor::from_vector<bool>({2, 2}, {true, false, true, true})).output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 3}, {0, 1, 1, 0, 0, 1});
}

TEST(NonZeroKernel, NegativeZeroIsZeroAndTheCountIsChecked) {
  KernelTest test("NonZero", 13);
  test.input(f32({3}, {-0.0f, 2, 0})).output(F::kInt64, {1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {1, 1}, {1});
  KernelTest wrong("NonZero", 13);
  wrong.input(f32({3}, {1, 2, 0})).output(F::kInt64, {1, 1});
  EXPECT_EQ(launch_code(wrong), reference_kernels::kKernelRuntimeShapeMismatch);
}

TEST(CompressKernel, AlongAxisAndFlattened) {
  // [[1,2],[3,4],[5,6]]: condition [0,1,1] on axis 0; [0,1,0,0,1] on the flattened input.
  const Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  KernelTest axis("Compress", 11);
  axis.input(x)
      .input(Tensor::from_vector<bool>({3}, {false, true, true}))
      .attribute("axis", int64_t{0})
      .output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(rows, axis);
  expect_tensor<float>(rows[0], {2, 2}, {3, 4, 5, 6});
  KernelTest flat("Compress", 11);
  flat.input(x).input(Tensor::from_vector<bool>({5}, {false, true, false, false, true})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(elements, flat);
  expect_tensor<float>(elements[0], {2}, {2, 5});
}

TEST(UniqueKernel, SortedAndUnsortedWithAllOutputs) {
  const Tensor x = f32({6}, {2, 1, 1, 3, 4, 3});
  KernelTest sorted("Unique", 11);
  sorted.input(x).output(F::kFloat32, {4}).output(F::kInt64, {4}).output(F::kInt64, {6}).output(F::kInt64, {4});
  GE_RUN_KERNEL(s, sorted);
  expect_tensor<float>(s[0], {4}, {1, 2, 3, 4});
  expect_tensor<int64_t>(s[1], {4}, {1, 0, 3, 4});
  expect_tensor<int64_t>(s[2], {6}, {1, 0, 0, 2, 3, 2});
  expect_tensor<int64_t>(s[3], {4}, {2, 1, 2, 1});
  KernelTest unsorted("Unique", 11);
  unsorted.input(x).attribute("sorted", int64_t{0}).output(F::kFloat32, {4}).output(F::kInt64, {4});
  unsorted.output(F::kInt64, {6}).output(F::kInt64, {4});
  GE_RUN_KERNEL(u, unsorted);
  expect_tensor<float>(u[0], {4}, {2, 1, 3, 4});
  expect_tensor<int64_t>(u[1], {4}, {0, 1, 3, 4});
  expect_tensor<int64_t>(u[2], {6}, {0, 1, 1, 2, 3, 2});
  expect_tensor<int64_t>(u[3], {4}, {1, 2, 2, 1});
}

TEST(UniqueKernel, RowsAlongAxisWithOnlyY) {
  // [[1,0,0],[1,0,0],[2,3,4]] along axis 0 -> [[1,0,0],[2,3,4]].
  KernelTest test("Unique", 11);
  test.input(f32({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4})).attribute("axis", int64_t{0}).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {1, 0, 0, 2, 3, 4});
}

TEST(UniqueKernel, Strings) {
  KernelTest test("Unique", 11);
  test.initializer(Tensor::from_strings({4}, {"b", "a", "b", "c"})).output(F::kString, {3});
  GE_RUN_CONSTANT_KERNEL(out, test);
  expect_strings(out[0], {3}, {"a", "b", "c"});
}

TEST(EinsumKernel, MatmulImplicitOutput) {
  // einsum('ij,jk', arange(6).reshape(2,3), arange(12).reshape(3,4)).
  KernelTest test("Einsum", 12);
  test.input(f64({2, 3}, {0, 1, 2, 3, 4, 5}))
      .input(f64({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}))
      .attribute("equation", "ij,jk")
      .output(F::kFloat64, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {2, 4}, {20, 23, 26, 29, 56, 68, 80, 92});
}

TEST(EinsumKernel, BatchDiagonalTraceAndEllipsisBroadcast) {
  std::vector<double> c(18);
  for (int i = 0; i < 18; ++i) c[i] = i;
  KernelTest diagonal("Einsum", 12);
  diagonal.input(f64({2, 3, 3}, c)).attribute("equation", "...ii ->...i").output(F::kFloat64, {2, 3});
  GE_RUN_KERNEL(d, diagonal);
  expect_tensor<double>(d[0], {2, 3}, {0, 4, 8, 9, 13, 17});
  KernelTest trace("Einsum", 12);
  trace.input(f64({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})).attribute("equation", "ii").output(F::kFloat64, {});
  GE_RUN_KERNEL(t, trace);
  expect_tensor<double>(t[0], {}, {12});
  KernelTest broadcast("Einsum", 12);
  broadcast.input(f64({2, 2, 2}, {0, 1, 3, 4, 9, 10, 12, 13}))
      .input(f64({2}, {1, 2}))
      .attribute("equation", "...j,j->...")
      .output(F::kFloat64, {2, 2});
  GE_RUN_KERNEL(b, broadcast);
  expect_tensor<double>(b[0], {2, 2}, {2, 11, 29, 38});
}

TEST(EinsumKernel, TermsThatDoNotFitAreInvalid) {
  KernelTest test("Einsum", 12);
  test.input(f64({2, 3}, {0, 1, 2, 3, 4, 5})).attribute("equation", "ijk->i").output(F::kFloat64, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("does not fit"), std::string::npos) << kernel.status().message();
}

TEST(DetKernel, BatchAndPivoting) {
  KernelTest batch("Det", 11);
  batch.input(f32({2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 3})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, batch);
  expect_tensor<float>(out[0], {2}, {-2, 6});
  // A zero in the first pivot position needs a row swap: det = -5.
  KernelTest pivot("Det", 11);
  pivot.input(f64({3, 3}, {0, 2, 1, 1, 1, 0, 3, 0, 1})).output(F::kFloat64, {});
  GE_RUN_KERNEL(p, pivot);
  expect_tensor<double>(p[0], {}, {-5});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
