// Col2Im-18 kernel tests. Expected values from a transcription of the ONNX reference
// (onnx/reference/ops/op_col2im.py: Col2Im._run over col2im_naive_implementation, with
// _op_common_indices._get_indices/_is_out) run with /usr/bin/python3 and numpy.

#include <gtest/gtest.h>

#include <vector>

#include "testing/kernel_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(Col2ImKernel, OnnxExampleBlocksOfOneRow) {
  // col2im(arange(1, 26).reshape(1, 5, 5), [5, 5], [1, 5]).
  KernelTest test("Col2Im", 18);
  test.input(f32_iota({1, 5, 5}, 1.0f)).initializer(i64({2}, {5, 5})).initializer(i64({2}, {1, 5}));
  test.output(F::kFloat32, {1, 1, 5, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 5, 5}, {1, 6, 11, 16, 21, 2, 7, 12, 17, 22, 3, 8, 13,
                                              18, 23, 4, 9, 14, 19, 24, 5, 10, 15, 20, 25});
}

TEST(Col2ImKernel, DilationsPadsStridesBatchAndChannels) {
  // col2im(arange(128).reshape(2, 8, 8) * 0.5 - 7, [4, 5], [2, 2], dilations=[1, 2],
  // pads=[1, 0, 0, 1], strides=[2, 1]): a 2 x 4 block grid, C = 8 / 4 = 2. The shapes
  // are runtime inputs here.
  KernelTest test("Col2Im", 18);
  test.input(f32_iota({2, 8, 8}, -7.0f, 0.5f)).input(i64({2}, {4, 5})).input(i64({2}, {2, 2}));
  test.attribute("dilations", std::vector<int64_t>{1, 2})
      .attribute("pads", std::vector<int64_t>{1, 0, 0, 1})
      .attribute("strides", std::vector<int64_t>{2, 1})
      .output(F::kFloat32, {2, 2, 4, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(
      out[0], {2, 2, 4, 5},
      {1,  1.5f,  7,   8,   6,  -5, -4.5f, -5, -4,  0,  3,  3.5f,  11,  12,  8,  0, 0, 0, 0, 0,
       17, 17.5f, 39,  40,  22, 11, 11.5f, 27, 28,  16, 19, 19.5f, 43,  44,  24, 0, 0, 0, 0, 0,
       33, 33.5f, 71,  72,  38, 27, 27.5f, 59, 60,  32, 35, 35.5f, 75,  76,  40, 0, 0, 0, 0, 0,
       49, 49.5f, 103, 104, 54, 43, 43.5f, 91, 92,  48, 51, 51.5f, 107, 108, 56, 0, 0, 0, 0, 0});
}

TEST(Col2ImKernel, ThreeDimensionalImageOfInt32) {
  // col2im(arange(64, dtype=int32).reshape(1, 8, 8), [3, 3, 3], [2, 2, 2]).
  std::vector<int32_t> x(64);
  for (int i = 0; i < 64; ++i) x[i] = i;
  KernelTest test("Col2Im", 18);
  test.input(i32({1, 8, 8}, x)).initializer(i64({3}, {3, 3, 3})).initializer(i64({3}, {2, 2, 2}));
  test.output(F::kInt32, {1, 1, 3, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {1, 1, 3, 3, 3}, {0,   9,   9,  18, 54, 36, 18, 45, 27, 36,  90,  54,  108, 252,
                                                   144, 72, 162, 90, 36, 81, 45, 90, 198, 108, 54, 117, 63});
}

TEST(Col2ImKernel, BlockCountMustMatchTheImage) {
  // A 5x5 image with 1x5 blocks has 5 blocks, not 4.
  KernelTest test("Col2Im", 18);
  test.input(f32_iota({1, 5, 4})).initializer(i64({2}, {5, 5})).initializer(i64({2}, {1, 5}));
  test.output(F::kFloat32, {1, 1, 5, 5});
  expect_invalid(test, "input dim 2 (4) is not the 5 sliding blocks");
}

TEST(Col2ImKernel, BlockLargerThanThePaddedImageIsInvalid) {
  KernelTest test("Col2Im", 18);
  test.input(f32_iota({1, 6, 1})).initializer(i64({2}, {2, 2})).initializer(i64({2}, {1, 6}));
  test.output(F::kFloat32, {1, 1, 2, 2});
  expect_invalid(test, "does not fit");
}

TEST(Col2ImKernel, RuntimeBlockShapeThatDoesNotFitFailsAtLaunch) {
  KernelTest test("Col2Im", 18);
  test.input(f32_iota({1, 5, 4})).input(i64({2}, {5, 5})).input(i64({2}, {1, 5}));
  test.output(F::kFloat32, {1, 1, 5, 5});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelRuntimeSizeMismatch);
}

TEST(Col2ImKernel, BadAttributesAndRanksAreInvalid) {
  KernelTest strides("Col2Im", 18);
  strides.input(f32_iota({1, 5, 5})).initializer(i64({2}, {5, 5})).initializer(i64({2}, {1, 5}));
  strides.attribute("strides", std::vector<int64_t>{1, 0}).output(F::kFloat32, {1, 1, 5, 5});
  expect_invalid(strides, "attribute 'strides'");
  KernelTest pads("Col2Im", 18);
  pads.input(f32_iota({1, 5, 5})).initializer(i64({2}, {5, 5})).initializer(i64({2}, {1, 5}));
  pads.attribute("pads", std::vector<int64_t>{1, 1}).output(F::kFloat32, {1, 1, 5, 5});
  expect_invalid(pads, "holds 2 values, not 4");
  KernelTest rank("Col2Im", 18);
  rank.input(f32_iota({5, 5})).initializer(i64({2}, {5, 5})).initializer(i64({2}, {1, 5}));
  rank.output(F::kFloat32, {1, 1, 5, 5});
  expect_invalid(rank, "must be 3-D");
  KernelTest image("Col2Im", 18);
  image.input(f32_iota({1, 5, 5})).initializer(i64({2}, {5, 4})).initializer(i64({2}, {1, 5}));
  image.output(F::kFloat32, {1, 1, 5, 5});
  expect_invalid(image, "input 1 (image_shape) has 4 on image axis 1");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
