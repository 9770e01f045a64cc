// Slice, Split, Gather, GatherElements, GatherND, ScatterElements and ScatterND kernel
// tests. Expected values are small enough to check by hand; the strided ones were
// printed by numpy (/usr/bin/python3), e.g. x[:, 2:0:-1, ::2] for x = arange(24) as
// [2,3,4], and the scatter/gather-ND ones are the examples of the ONNX operator docs.

#include <gtest/gtest.h>

#include <limits>

#include "tensor/tensor_common.h"
#include "testing/kernel_test_util.h"
#include "testing/narrow_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(SliceKernel, NegativeStepsAndStridesFromInputs) {
  // x[:, 2:0:-1, ::2]: axes given in reverse order, INT64_MAX as "to the end".
  KernelTest test("Slice", 13);
  test.input(f32_iota({2, 3, 4}))
      .input(i64({2}, {0, 2}))
      .input(i64({2}, {std::numeric_limits<int64_t>::max(), 0}))
      .input(i64({2}, {2, 1}))
      .input(i64({2}, {2, -1}))
      .output(F::kFloat32, {2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2, 2}, {8, 10, 4, 6, 20, 22, 16, 18});
}

TEST(SliceKernel, Int32IndicesClampAndDefaultAxes) {
  // x[1:, :, -3:] with int32 starts/ends and no axes: ends beyond the dims saturate.
  KernelTest test("Slice", 13);
  test.input(f32_iota({2, 3, 4}))
      .input(i32({3}, {1, 0, -3}))
      .input(i32({3}, {100, 3, 1000}))
      .output(F::kFloat32, {1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 3}, {13, 14, 15, 17, 18, 19, 21, 22, 23});
}

TEST(SliceKernel, Opset1Attributes) {
  KernelTest test("Slice", 1);
  test.input(f32_iota({2, 3, 4}))
      .attribute("starts", std::vector<int64_t>{1})
      .attribute("ends", std::vector<int64_t>{-1})
      .attribute("axes", std::vector<int64_t>{2})
      .output(F::kFloat32, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 2}, {1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22});
}

TEST(SliceKernel, StartsThatContradictTheOutputShapeFailAtLaunch) {
  KernelTest test("Slice", 13);
  test.input(f32_iota({4})).input(i64({1}, {0})).input(i64({1}, {3})).output(F::kFloat32, {2});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelRuntimeShapeMismatch);
}

TEST(SliceKernel, ZeroStepFailsAtLaunch) {
  KernelTest test("Slice", 13);
  test.input(f32_iota({4}))
      .input(i64({1}, {0}))
      .input(i64({1}, {3}))
      .input(i64({1}, {0}))
      .input(i64({1}, {0}))
      .output(F::kFloat32, {3});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelInvalidRuntimeArgument);
}

TEST(SliceKernel, Strings) {
  KernelTest test("Slice", 13);
  test.initializer(Tensor::from_strings({4}, {"a", "b", "c", "d"}))
      .initializer(i64({1}, {-1}))
      .initializer(i64({1}, {-5}))
      .initializer(i64({1}, {0}))
      .initializer(i64({1}, {-2}))
      .output(F::kString, {2});
  GE_RUN_CONSTANT_KERNEL(out, test);
  expect_strings(out[0], {2}, {"d", "b"});
}

TEST(SplitKernel, UnequalPartsAlongAxisOne) {
  // [[0..5],[6..11]] split [2, 4] along axis 1.
  KernelTest test("Split", 13);
  test.input(f32_iota({2, 6}))
      .input(i64({2}, {2, 4}))
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {2, 2})
      .output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0, 1, 6, 7});
  expect_tensor<float>(out[1], {2, 4}, {2, 3, 4, 5, 8, 9, 10, 11});
}

TEST(SplitKernel, PartsThatDoNotCoverTheAxisAreInvalid) {
  KernelTest test("Split", 13);
  test.input(f32_iota({6})).output(F::kFloat32, {2}).output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("cover 4 of the 6"), std::string::npos) << kernel.status().message();
}

TEST(GatherKernel, AxisOneWithNegativeIndex) {
  // np.take(arange(24).reshape(2,3,4), [2, 0, -1], axis=1).
  KernelTest test("Gather", 13);
  test.input(f32_iota({2, 3, 4}))
      .input(i64({3}, {2, 0, -1}))
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 4},
                       {8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23, 12, 13, 14, 15, 20, 21, 22, 23});
}

TEST(GatherKernel, ScalarIndexDropsTheAxisAndInt32Indices) {
  KernelTest test("Gather", 13);
  test.input(i64({2, 2}, {1, 2, 3, 4})).input(i32({}, {1})).output(F::kInt64, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2}, {3, 4});
}

TEST(GatherKernel, OutOfRangeIndexFailsAtLaunch) {
  KernelTest test("Gather", 13);
  test.input(f32_iota({3})).input(i64({1}, {3})).output(F::kFloat32, {1});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelIndexOutOfRange);
}

TEST(GatherElementsKernel, Axis1) {
  // take_along_axis([[1,2],[3,4]], [[0,0],[1,0]], 1) = [[1,1],[4,3]].
  KernelTest test("GatherElements", 13);
  test.input(f32({2, 2}, {1, 2, 3, 4}))
      .input(i64({2, 2}, {0, 0, 1, 0}))
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {1, 1, 4, 3});
}

TEST(GatherElementsKernel, Axis0NegativeIndicesSmallerThanData) {
  // data [[1,2,3],[4,5,6],[7,8,9]], indices [[-1,-2,0],[2,0,0]] (axis 0) -> [[7,5,3],[7,2,3]].
  KernelTest test("GatherElements", 13);
  test.input(i32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
      .input(i64({2, 3}, {-1, -2, 0, 2, 0, 0}))
      .output(F::kInt32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 3}, {7, 5, 3, 7, 2, 3});
}

TEST(GatherNdKernel, IndexPairsPickElements) {
  // data [[0,1],[2,3]], indices [[0,0],[1,1]] -> [0,3].
  KernelTest test("GatherND", 13);
  test.input(i32({2, 2}, {0, 1, 2, 3})).input(i64({2, 2}, {0, 0, 1, 1})).output(F::kInt32, {2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2}, {0, 3});
}

TEST(GatherNdKernel, BatchDimsPickSlicesPerBatch) {
  // data [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[1],[0]], batch_dims 1 -> [[2,3],[4,5]].
  KernelTest test("GatherND", 13);
  test.input(i32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}))
      .input(i64({2, 1}, {1, 0}))
      .attribute("batch_dims", int64_t{1})
      .output(F::kInt32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 2}, {2, 3, 4, 5});
}

TEST(ScatterElementsKernel, ReplaceAndAddDuplicates) {
  KernelTest replace("ScatterElements", 16);
  replace.input(f32({1, 5}, {1, 2, 3, 4, 5}))
      .input(i64({1, 2}, {1, -2}))
      .input(f32({1, 2}, {1.1f, 2.1f}))
      .attribute("axis", int64_t{1})
      .output(F::kFloat32, {1, 5});
  GE_RUN_KERNEL(replaced, replace);
  expect_tensor<float>(replaced[0], {1, 5}, {1, 1.1f, 3, 2.1f, 5});
  KernelTest add("ScatterElements", 16);
  add.input(f32({1, 5}, {1, 2, 3, 4, 5}))
      .input(i64({1, 2}, {1, 1}))
      .input(f32({1, 2}, {1.1f, 2.1f}))
      .attribute("axis", int64_t{1})
      .attribute("reduction", "add")
      .output(F::kFloat32, {1, 5});
  GE_RUN_KERNEL(added, add);
  expect_tensor<float>(added[0], {1, 5}, {1, 5.2f, 3, 4, 5});
}

TEST(ScatterElementsKernel, ScatterOpset9Axis0) {
  // data zeros [3,3], indices [[1,0,2],[0,2,1]], updates [[1,1.1,1.2],[2,2.1,2.2]].
  KernelTest test("Scatter", 10);
  test.input(f32({3, 3}, std::vector<float>(9, 0.0f)))
      .input(i64({2, 3}, {1, 0, 2, 0, 2, 1}))
      .input(f32({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f}))
      .output(F::kFloat32, {3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 3}, {2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f});
}

TEST(ScatterElementsKernel, AReductionOnStringsIsUnsupported) {
  KernelTest test("ScatterElements", 16);
  test.input(Tensor::from_strings({2}, {"a", "b"}))
      .input(i64({1}, {0}))
      .input(Tensor::from_strings({1}, {"c"}))
      .attribute("reduction", "add")
      .output(F::kString, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

TEST(ScatterNdKernel, ElementsAndMultiply) {
  // data [1..8], indices [[4],[3],[1],[7]], updates [9,10,11,12] -> [1,11,3,10,9,6,7,12].
  KernelTest test("ScatterND", 16);
  test.input(f32({8}, {1, 2, 3, 4, 5, 6, 7, 8}))
      .input(i64({4, 1}, {4, 3, 1, 7}))
      .input(f32({4}, {9, 10, 11, 12}))
      .output(F::kFloat32, {8});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {8}, {1, 11, 3, 10, 9, 6, 7, 12});
  // Rows of [[1,2],[3,4]]: row 0 multiplied by [2,3] and then by [4,5].
  KernelTest mul("ScatterND", 16);
  mul.input(i64({2, 2}, {1, 2, 3, 4}))
      .input(i64({2, 1}, {0, 0}))
      .input(i64({2, 2}, {2, 3, 4, 5}))
      .attribute("reduction", "mul")
      .output(F::kInt64, {2, 2});
  GE_RUN_KERNEL(multiplied, mul);
  expect_tensor<int64_t>(multiplied[0], {2, 2}, {8, 30, 3, 4});
}

TEST(GatherKernel, Float8Codes) {
  KernelTest test("Gather", 21);
  test.input(codes(F::kFloat8E4M3FN, {3}, {0x38, 0xC0, 0x7E})).input(i64({2}, {2, 0})).output(F::kFloat8E4M3FN, {2});
  GE_RUN_KERNEL(out, test);
  expect_codes(out[0], F::kFloat8E4M3FN, {2}, {0x7E, 0x38});
}

TEST(SliceKernel, StepsNearInt64LimitsTakeOneElement) {
  // numpy: x[:, 2**63-1:-2**63:-2**63] and x[:, 0:4:2**63-1] of arange(12).reshape(3, 4)
  // are columns 3 and 0; the count must not overflow computing ceil(span / |step|).
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  struct Case {
    int64_t start, end, step;
    std::vector<float> expected;
  };
  for (const Case& c : {Case{kMax, kMin, kMin, {3, 7, 11}}, Case{0, 4, kMax, {0, 4, 8}},
                        Case{kMax, kMin, kMin / 2, {3, 7, 11}}, Case{-1, kMin, kMin + 1, {3, 7, 11}}}) {
    KernelTest test("Slice", 13);
    test.input(f32_iota({3, 4}))
        .input(i64({1}, {c.start}))
        .input(i64({1}, {c.end}))
        .input(i64({1}, {1}))
        .input(i64({1}, {c.step}))
        .output(F::kFloat32, {3, 1});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {3, 1}, c.expected);
  }
}

}  // namespace
}  // namespace ge::reference_kernels::testing
