// Shape, Size, ConstantOfShape, EyeLike, Range, Expand, Tile, Pad, OneHot, Trilu,
// DepthToSpace, SpaceToDepth and ReverseSequence kernel tests. Expected values by hand
// or printed by numpy (/usr/bin/python3): np.pad(x, ..., mode=...), np.tile,
// np.broadcast_to, and DepthToSpace as reshape/transpose/reshape per the ONNX docs.

#include <gtest/gtest.h>

#include <limits>

#include "tensor/tensor_common.h"
#include "testing/kernel_test_util.h"
#include "testing/narrow_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(ShapeKernel, StartAndEndClampLikePythonSlices) {
  KernelTest all("Shape", 15);
  all.input(Tensor::from_strings({3, 4, 5}, std::vector<std::string>(60))).output(F::kInt64, {3});
  GE_RUN_KERNEL(dims, all);
  expect_tensor<int64_t>(dims[0], {3}, {3, 4, 5});
  KernelTest part("Shape", 15);
  part.input(f32_iota({3, 4, 5})).attribute("start", int64_t{-10}).attribute("end", int64_t{-1}).output(F::kInt64, {2});
  GE_RUN_KERNEL(some, part);
  expect_tensor<int64_t>(some[0], {2}, {3, 4});
}

TEST(SizeKernel, CountsElements) {
  KernelTest test("Size", 13);
  test.input(f32_iota({2, 3})).output(F::kInt64, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {}, {6});
}

TEST(ConstantOfShapeKernel, FillsWithTheValueAttribute) {
  KernelTest test("ConstantOfShape", 9);
  test.input(i64({2}, {2, 3})).attribute("value", i32({1}, {7})).output(F::kInt32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 3}, std::vector<int32_t>(6, 7));
  KernelTest by_default("ConstantOfShape", 9);
  by_default.input(i64({1}, {2})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(zeros, by_default);
  expect_tensor<float>(zeros[0], {2}, {0, 0});
}

// Large fills: a value of distinct bytes (copied by doubling, an odd count so the last
// copy is partial) and one of equal bytes (memset), every element checked.
TEST(ConstantOfShapeKernel, LargeFillsReachEveryElement) {
  KernelTest doubled("ConstantOfShape", 9);
  doubled.input(i64({2}, {37, 101})).attribute("value", f32({1}, {1.5f})).output(F::kFloat32, {37, 101});
  GE_RUN_KERNEL(halves, doubled);
  expect_tensor<float>(halves[0], {37, 101}, std::vector<float>(37 * 101, 1.5f));
  KernelTest same_bytes("ConstantOfShape", 9);
  same_bytes.input(i64({1}, {1001})).attribute("value", i64({1}, {-1})).output(F::kInt64, {1001});
  GE_RUN_KERNEL(minus_ones, same_bytes);
  expect_tensor<int64_t>(minus_ones[0], {1001}, std::vector<int64_t>(1001, -1));
}

TEST(EyeLikeKernel, OffDiagonalWithDtype) {
  KernelTest test("EyeLike", 9);
  test.input(i32({3, 4}, std::vector<int32_t>(12, 5)))
      .attribute("k", int64_t{1})
      .attribute("dtype", int64_t{11})
      .output(F::kFloat64, {3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
}

TEST(RangeKernel, IntegerAndFloat) {
  KernelTest ints("Range", 11);
  ints.input(i32({}, {10})).input(i32({}, {4})).input(i32({}, {-3})).output(F::kInt32, {2});
  GE_RUN_KERNEL(int_out, ints);
  expect_tensor<int32_t>(int_out[0], {2}, {10, 7});
  KernelTest floats("Range", 11);
  floats.input(f32({}, {1})).input(f32({}, {2})).input(f32({}, {0.25f})).output(F::kFloat32, {4});
  GE_RUN_KERNEL(float_out, floats);
  expect_tensor<float>(float_out[0], {4}, {1, 1.25f, 1.5f, 1.75f});
}

TEST(RangeKernel, IntegerCountMismatchFailsAtLaunch) {
  KernelTest test("Range", 11);
  test.input(i64({}, {0})).input(i64({}, {5})).input(i64({}, {1})).output(F::kInt64, {4});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelRuntimeShapeMismatch);
}

TEST(ExpandKernel, BroadcastsToTheOutputShape) {
  // np.broadcast_to([[1],[2],[3]], (2,3,2)).
  KernelTest test("Expand", 13);
  test.input(i64({3, 1}, {1, 2, 3})).input(i64({3}, {2, 1, 2})).output(F::kInt64, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
}

TEST(ExpandKernel, IncompatibleOutputIsInvalid) {
  KernelTest test("Expand", 13);
  test.input(f32_iota({3})).input(i64({1}, {4})).output(F::kFloat32, {4});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

TEST(TileKernel, RepeatsEachAxis) {
  // np.tile([[1,2],[3,4]], (2,3)).
  KernelTest test("Tile", 13);
  test.input(i64({2, 2}, {1, 2, 3, 4})).input(i64({2}, {2, 3})).output(F::kInt64, {4, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {4, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
}

TEST(PadKernel, ReflectAndEdgeFromInputs) {
  const Tensor x = i32({2, 3}, {0, 1, 2, 3, 4, 5});
  KernelTest reflect("Pad", 13);
  reflect.input(x).input(i64({4}, {0, 2, 0, 3})).attribute("mode", "reflect").output(F::kInt32, {2, 8});
  GE_RUN_KERNEL(reflected, reflect);
  expect_tensor<int32_t>(reflected[0], {2, 8}, {2, 1, 0, 1, 2, 1, 0, 1, 5, 4, 3, 4, 5, 4, 3, 4});
  KernelTest edge("Pad", 13);
  edge.input(x).input(i64({4}, {1, 0, 0, 2})).attribute("mode", "edge").output(F::kInt32, {3, 5});
  GE_RUN_KERNEL(edged, edge);
  expect_tensor<int32_t>(edged[0], {3, 5}, {0, 1, 2, 2, 2, 0, 1, 2, 2, 2, 3, 4, 5, 5, 5});
}

TEST(PadKernel, ConstantValueInputAndNegativePadCrops) {
  // pads [1, -1, 0, 0]: a row of 9s on top, the first column cropped.
  KernelTest test("Pad", 11);
  test.input(i32({2, 3}, {0, 1, 2, 3, 4, 5}))
      .input(i64({4}, {1, -1, 0, 0}))
      .input(i32({}, {9}))
      .output(F::kInt32, {3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {3, 2}, {9, 9, 1, 2, 4, 5});
}

TEST(PadKernel, Opset2AttributesAndMismatchedPads) {
  KernelTest test("Pad", 2);
  test.input(f32({2}, {1, 2}))
      .attribute("pads", std::vector<int64_t>{1, 2})
      .attribute("value", 1.5f)
      .output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {1.5f, 1, 2, 1.5f, 1.5f});
  KernelTest wrong("Pad", 13);
  wrong.input(f32({2}, {1, 2})).input(i64({2}, {1, 1})).output(F::kFloat32, {5});
  EXPECT_EQ(launch_code(wrong), reference_kernels::kKernelRuntimeShapeMismatch);
}

TEST(PadKernel, AxesInputPadsOnlyTheNamedAxes) {
  // Opset 18 form: pads [1, 2] for axes [-1] of [[0,1,2],[3,4,5]].
  KernelTest test("Pad", 18);
  test.input(i32({2, 3}, {0, 1, 2, 3, 4, 5}))
      .input(i64({2}, {1, 2}))
      .no_input()
      .input(i64({1}, {-1}))
      .output(F::kInt32, {2, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 6}, {0, 0, 1, 2, 0, 0, 0, 3, 4, 5, 0, 0});
}

TEST(OneHotKernel, AxisAndNegativeIndices) {
  // indices [[1, -1]] (float), depth 3, axis 1 -> shape [1, 3, 2]; values [off=0, on=5].
  KernelTest test("OneHot", 11);
  test.input(f32({1, 2}, {1, -1}))
      .input(f32({}, {3}))
      .input(i64({2}, {0, 5}))
      .attribute("axis", int64_t{1})
      .output(F::kInt64, {1, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {1, 3, 2}, {0, 0, 5, 0, 0, 5});
}

TEST(TriluKernel, UpperAndLowerWithK) {
  // [[1,2,3],[4,5,6]]: triu(k=1) and tril(k=-1).
  const Tensor x = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  KernelTest upper("Trilu", 14);
  upper.input(x).input(i64({}, {1})).output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(upper_out, upper);
  expect_tensor<int64_t>(upper_out[0], {2, 3}, {0, 2, 3, 0, 0, 6});
  KernelTest lower("Trilu", 14);
  lower.input(x).input(i64({}, {-1})).attribute("upper", int64_t{0}).output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(lower_out, lower);
  expect_tensor<int64_t>(lower_out[0], {2, 3}, {0, 0, 0, 4, 0, 0});
}

TEST(DepthToSpaceKernel, DcrAndCrdOrderChannelsDifferently) {
  // x = arange(8) as [1,8,1,1], blocksize 2 -> [1,2,2,2]. DCR: channel (i*2+j)*2+c;
  // CRD: channel c*4+i*2+j.
  KernelTest dcr("DepthToSpace", 13);
  dcr.input(f32_iota({1, 8, 1, 1})).attribute("blocksize", int64_t{2}).output(F::kFloat32, {1, 2, 2, 2});
  GE_RUN_KERNEL(dcr_out, dcr);
  expect_tensor<float>(dcr_out[0], {1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  KernelTest crd("DepthToSpace", 13);
  crd.input(f32_iota({1, 8, 1, 1}))
      .attribute("blocksize", int64_t{2})
      .attribute("mode", "CRD")
      .output(F::kFloat32, {1, 2, 2, 2});
  GE_RUN_KERNEL(crd_out, crd);
  expect_tensor<float>(crd_out[0], {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(SpaceToDepthKernel, Blocksize2) {
  // arange(16) as [1,1,4,4] -> [1,4,2,2] (numpy reshape/transpose of the ONNX docs).
  KernelTest test("SpaceToDepth", 13);
  test.input(f32_iota({1, 1, 4, 4})).attribute("blocksize", int64_t{2}).output(F::kFloat32, {1, 4, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 4, 2, 2}, {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
}

TEST(ReverseSequenceKernel, BatchAxisZero) {
  // [[0,1,2,3],[4,5,6,7]] (batch, time) with lengths [3, 1].
  KernelTest test("ReverseSequence", 10);
  test.input(f32_iota({2, 4}))
      .input(i64({2}, {3, 1}))
      .attribute("batch_axis", int64_t{0})
      .attribute("time_axis", int64_t{1})
      .output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {2, 1, 0, 3, 4, 5, 6, 7});
}

TEST(ConstantOfShapeKernel, Float8AndInt4Values) {
  KernelTest float8("ConstantOfShape", 21);
  float8.input(i64({2}, {2, 2})).attribute("value", codes(F::kFloat8E5M2, {1}, {0xC2}));
  float8.output(F::kFloat8E5M2, {2, 2});
  GE_RUN_KERNEL(a, float8);
  expect_codes(a[0], F::kFloat8E5M2, {2, 2}, {0xC2, 0xC2, 0xC2, 0xC2});
  KernelTest int4("ConstantOfShape", 21);
  int4.input(i64({1}, {3})).attribute("value", codes(F::kInt4, {1}, {0xF9})).output(F::kInt4, {3});
  GE_RUN_KERNEL(b, int4);
  expect_codes(b[0], F::kInt4, {3}, {0xF9, 0xF9, 0xF9});
}

TEST(ShapeKernel, ShapeAndSizeOfAFloat8Tensor) {
  KernelTest shape("Shape", 21);
  shape.input(codes(F::kFloat8E4M3FNUZ, {2, 3}, {0, 0, 0, 0, 0, 0})).output(F::kInt64, {2});
  GE_RUN_KERNEL(a, shape);
  expect_tensor<int64_t>(a[0], {2}, {2, 3});
  KernelTest size("Size", 21);
  size.input(codes(F::kUInt4, {2, 3}, {0, 0, 0, 0, 0, 0})).output(F::kInt64, {});
  GE_RUN_KERNEL(b, size);
  expect_tensor<int64_t>(b[0], {}, {6});
}

TEST(RangeKernel, Int64CountDoesNotOverflow) {
  // numpy.arange(-2**63, 2**63 - 1, 2**62): limit - start is 2^64 - 1, past int64.
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kStep = int64_t{1} << 62;
  KernelTest up("Range", 11);
  up.input(i64({}, {kMin})).input(i64({}, {kMax})).input(i64({}, {kStep})).output(F::kInt64, {4});
  GE_RUN_KERNEL(up_out, up);
  expect_tensor<int64_t>(up_out[0], {4}, {kMin, -kStep, 0, kStep});
  KernelTest down("Range", 11);
  down.input(i64({}, {kMax})).input(i64({}, {kMin})).input(i64({}, {-kStep})).output(F::kInt64, {4});
  GE_RUN_KERNEL(down_out, down);
  expect_tensor<int64_t>(down_out[0], {4}, {kMax, kStep - 1, -1, -kStep - 1});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
