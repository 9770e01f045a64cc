// Conv kernel tests. Expected values are hand-computed where a comment shows the sums;
// the others come from a naive numpy Conv (zero-pad with np.pad, slide the dilated
// window, np.sum(window * w[m]) + b[m]) run with /usr/bin/python3 and pasted here.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/nn_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(ConvKernel, OneChannelNoPadding) {
  // x = arange(9).reshape(3, 3), w = ones(2, 2): each output sums a 2x2 window,
  // 0+1+3+4 = 8, 1+2+4+5 = 12, 3+4+6+7 = 20, 4+5+7+8 = 24.
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 3, 3})).initializer(f32({1, 1, 2, 2}, {1, 1, 1, 1})).output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {8, 12, 20, 24});
}

TEST(ConvKernel, PadsStridesAndBias) {
  // 3x3 ones over the zero-padded 5x5 at stride 2: the windows see x[0:2,0:2] = 8,
  // x[0:2,1:3] = 12, x[1:3,0:2] = 20, x[1:3,1:3] = 24; bias 1 is added.
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 3, 3}))
      .initializer(f32({1, 1, 3, 3}, std::vector<float>(9, 1.0f)))
      .initializer(f32({1}, {1}))
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {9, 13, 21, 25});
}

TEST(ConvKernel, TwoGroupsPointwise) {
  // x = arange(16).reshape(1, 4, 2, 2). Group 0: 1*ch0 + 2*ch1 = {0+8, 1+10, 2+12, 3+14};
  // group 1: 3*ch2 - ch3 = {24-12, 27-13, 30-14, 33-15}.
  KernelTest test("Conv");
  test.input(f32_iota({1, 4, 2, 2}))
      .initializer(f32({2, 2, 1, 1}, {1, 2, 3, -1}))
      .attribute("group", int64_t{2})
      .output(F::kFloat32, {1, 2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 2}, {8, 11, 14, 17, 12, 14, 16, 18});
}

TEST(ConvKernel, TwoGroupsWithPadsAndBias) {
  // numpy: x = (arange(36).reshape(1,4,3,3) - 10) / 4, w = arange(72).reshape(4,2,3,3) % 7 - 3,
  // b = [0.5, -1, 2, 0], pads 1, group 2.
  std::vector<float> w(72);
  for (int i = 0; i < 72; ++i) w[i] = static_cast<float>(i % 7 - 3);
  KernelTest test("Conv");
  test.input(f32_iota({1, 4, 3, 3}, -2.5f, 0.25f))
      .initializer(f32({4, 2, 3, 3}, w))
      .initializer(f32({4}, {0.5f, -1, 2, 0}))
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .attribute("group", int64_t{2})
      .output(F::kFloat32, {1, 4, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(
      out[0], {1, 4, 3, 3},
      {0.5f,  -7.0f,  -4.0f, 5.5f,   7.5f,   9.0f,  3.0f,    10.5f,   14.5f,   0.75f,  9.75f,  13.0f,
       -9.5f, -5.25f, 6.0f,  -7.75f, -6.75f, -4.0f, -12.25f, -11.25f, -12.25f, -2.5f,  -5.0f,  -16.75f,
       3.75f, 19.5f,  9.25f, 0.25f,  14.5f,  6.5f,  -12.0f,  -5.75f,  -3.75f,  -1.75f, -18.5f, -16.25f});
}

TEST(ConvKernel, Depthwise) {
  // group = C = 3, one 2x2 filter per channel of x = arange(27).reshape(1,3,3,3).
  // ch0 with [[1,0],[0,-1]]: x[i][j] - x[i+1][j+1] = -4 everywhere.
  // ch1 with [[2,1],[1,2]] at (0,0): 2*9 + 10 + 12 + 2*13 = 66. (numpy for the rest)
  KernelTest test("Conv");
  test.input(f32_iota({1, 3, 3, 3}))
      .initializer(f32({3, 1, 2, 2}, {1, 0, 0, -1, 2, 1, 1, 2, 0, 1, 1, 0}))
      .attribute("group", int64_t{3})
      .output(F::kFloat32, {1, 3, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 2, 2}, {-4, -4, -4, -4, 66, 72, 84, 90, 40, 42, 46, 48});
}

TEST(ConvKernel, Dilations) {
  // x = arange(16).reshape(4, 4), w = [[1,2],[3,4]] dilated by 2: output (0,0) reads
  // x[0][0], x[0][2], x[2][0], x[2][2] = 0 + 2*2 + 3*8 + 4*10 = 68.
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 4, 4}))
      .initializer(f32({1, 1, 2, 2}, {1, 2, 3, 4}))
      .attribute("dilations", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {68, 78, 108, 118});
}

TEST(ConvKernel, DilationsStridesAsymmetricPads) {
  // numpy: x = arange(25).reshape(1,1,5,5), w = arange(9).reshape(1,1,3,3) - 4,
  // strides [2,1], pads [1,0,0,2] (top, left, bottom, right), dilations [2,1].
  std::vector<float> w{-4, -3, -2, -1, 0, 1, 2, 3, 4};
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 5, 5}))
      .initializer(f32({1, 1, 3, 3}, w))
      .attribute("strides", std::vector<int64_t>{2, 1})
      .attribute("pads", std::vector<int64_t>{1, 0, 0, 2})
      .attribute("dilations", std::vector<int64_t>{2, 1})
      .output(F::kFloat32, {1, 1, 1, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 1, 5}, {148, 157, 166, 85, 29});
}

// auto_pad on a 4x4 input, 3x3 kernel, stride 2: output ceil(4/2) = 2, total pad
// (2-1)*2 + 3 - 4 = 1 per axis, at the end (SAME_UPPER) or the beginning (SAME_LOWER).
// Expected values: numpy Conv with the explicit pads [0,0,1,1] and [1,1,0,0].
TEST(ConvKernel, AutoPadSameUpper) {
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 4, 4}))
      .initializer(f32({1, 1, 3, 3}, {-4, -3, -2, -1, 0, 1, 2, 3, 4}))
      .attribute("auto_pad", "SAME_UPPER")
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {78, 30, -77, -87});
}

TEST(ConvKernel, AutoPadSameLower) {
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 4, 4}))
      .initializer(f32({1, 1, 3, 3}, {-4, -3, -2, -1, 0, 1, 2, 3, 4}))
      .attribute("auto_pad", "SAME_LOWER")
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {33, 58, 75, 78});
}

TEST(ConvKernel, AutoPadSameUpperStrideOne) {
  // 2x2 kernel [[1,-1],[2,0.5]] on arange(9).reshape(3,3): total pad 1 goes at the end,
  // so output (2,2) sees only x[2][2] = 8 * 1. numpy with pads [0,0,1,1].
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 3, 3}))
      .initializer(f32({1, 1, 2, 2}, {1, -1, 2, 0.5f}))
      .attribute("auto_pad", "SAME_UPPER")
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {7, 9.5f, 12, 14.5f, 17, 21, -1, -1, 8});
}

TEST(ConvKernel, AutoPadValidIgnoresPads) {
  // VALID: no padding; 5x5 input, 3x3 kernel, stride 2 -> 2x2. w sums to 0 and
  // x is linear, so every window gives sum(w * offsets) = 96 (numpy).
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 5, 5}))
      .initializer(f32({1, 1, 3, 3}, {-4, -3, -2, -1, 0, 1, 2, 3, 4}))
      .attribute("auto_pad", "VALID")
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {96, 96, 96, 96});
}

TEST(ConvKernel, OneDimensional) {
  // x = arange(10).reshape(1,2,5), w = [[1,0,-1],[2,1,0]], pads 1, stride 2. Output 0
  // reads padded positions -1..1: ch0 (0 - 1) + ch1 (2*0 + 5) = 4. numpy for the rest.
  KernelTest test("Conv");
  test.input(f32_iota({1, 2, 5}))
      .initializer(f32({1, 2, 3}, {1, 0, -1, 2, 1, 0}))
      .attribute("strides", std::vector<int64_t>{2})
      .attribute("pads", std::vector<int64_t>{1, 1})
      .output(F::kFloat32, {1, 1, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3}, {4, 17, 28});
}

TEST(ConvKernel, ThreeDimensional) {
  // numpy: x = arange(27).reshape(1,1,3,3,3), w = arange(16).reshape(2,1,2,2,2) % 5 - 2,
  // b = [1, -1], pads [0,1,0, 1,0,0].
  std::vector<float> w(16);
  for (int i = 0; i < 16; ++i) w[i] = static_cast<float>(i % 5 - 2);
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 3, 3, 3}))
      .initializer(f32({2, 1, 2, 2, 2}, w))
      .initializer(f32({2}, {1, -1}))
      .attribute("pads", std::vector<int64_t>{0, 1, 0, 1, 0, 0})
      .output(F::kFloat32, {1, 2, 3, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 3, 3, 2},
                       {-7, -7, -10, -13, -19, -22, -7,  -7,  -37, -40, -46, -49, 20,  21,  -32, -34, -38, -40,
                        -4, -7, -1,  0,   2,   3,   -31, -34, 8,   9,   11,  12,  -56, -59, -9,  -9,  -9,  -9});
}

TEST(ConvKernel, BatchedPointwiseWithBias) {
  // x = arange(24).reshape(2,3,2,2); out0 = ch0 + 2*ch2 + 0.25 -> 0 + 16 + 0.25 = 16.25;
  // out1 = -ch0 + ch1 + 0.5*ch2 - 2 -> 0 + 4 + 4 - 2 = 6. numpy for the rest.
  KernelTest test("Conv");
  test.input(f32_iota({2, 3, 2, 2}))
      .initializer(f32({2, 3, 1, 1}, {1, 0, 2, -1, 1, 0.5f}))
      .initializer(f32({2}, {0.25f, -2}))
      .output(F::kFloat32, {2, 2, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(kernel->name, "cpu.Conv.pointwise");
  EXPECT_EQ(kernel->workspace_bytes, 0u);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(
      out[0], {2, 2, 2, 2},
      {16.25f, 19.25f, 22.25f, 25.25f, 6, 6.5f, 7, 7.5f, 52.25f, 55.25f, 58.25f, 61.25f, 12, 12.5f, 13, 13.5f});
}

TEST(ConvKernel, Float64) {
  // numpy: x = arange(9).reshape(1,1,3,3) / 2, w = [[0.5,-1],[1.5,2]], pads [1,0,0,1].
  std::vector<double> x(9);
  for (int i = 0; i < 9; ++i) x[i] = i / 2.0;
  KernelTest test("Conv");
  test.input(f64({1, 1, 3, 3}, x))
      .initializer(f64({1, 1, 2, 2}, {0.5, -1, 1.5, 2}))
      .attribute("pads", std::vector<int64_t>{1, 0, 0, 1})
      .output(F::kFloat64, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 3, 3}, {1, 2.75, 1.5, 5.75, 7.25, 4.25, 10.25, 11.75, 7.25}, 1e-12);
}

TEST(ConvKernel, WorkspaceHoldsTheIm2colMatrix) {
  // C/group * kernel positions * output positions * sizeof(float) = 1 * 4 * 4 * 4.
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 3, 3})).initializer(f32({1, 1, 2, 2}, {1, 1, 1, 1})).output(F::kFloat32, {1, 1, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(kernel->name, "cpu.Conv.im2col");
  EXPECT_EQ(kernel->workspace_bytes, 64u);
}

TEST(ConvKernel, GroupNotDividingChannelsIsInvalid) {
  KernelTest test("Conv");
  test.input(f32_iota({1, 3, 2, 2}))
      .initializer(f32({2, 1, 1, 1}, {1, 1}))
      .attribute("group", int64_t{2})
      .output(F::kFloat32, {1, 2, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("'node'"), std::string::npos) << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("attribute 'group'"), std::string::npos) << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("3 input channels"), std::string::npos) << kernel.status().message();
}

TEST(ConvKernel, BadAttributesAreInvalid) {
  {
    KernelTest test("Conv");
    test.input(f32_iota({1, 1, 3, 3}))
        .initializer(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
        .attribute("strides", std::vector<int64_t>{0, 1})
        .output(F::kFloat32, {1, 1, 2, 2});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(kernel.status().message().find("attribute 'strides'"), std::string::npos) << kernel.status().message();
  }
  {
    KernelTest test("Conv");
    test.input(f32_iota({1, 1, 3, 3}))
        .initializer(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
        .attribute("auto_pad", "SAME")
        .output(F::kFloat32, {1, 1, 2, 2});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(kernel.status().message().find("attribute 'auto_pad'"), std::string::npos) << kernel.status().message();
  }
  {
    KernelTest test("Conv");
    test.input(f32_iota({1, 1, 3, 3}))
        .initializer(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
        .attribute("kernel_shape", std::vector<int64_t>{3, 3})
        .output(F::kFloat32, {1, 1, 2, 2});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(kernel.status().message().find("attribute 'kernel_shape'"), std::string::npos)
        << kernel.status().message();
  }
}

TEST(ConvKernel, OutputShapeDisagreeingWithAttributesIsInvalid) {
  KernelTest test("Conv");
  test.input(f32_iota({1, 1, 3, 3})).initializer(f32({1, 1, 2, 2}, {1, 1, 1, 1})).output(F::kFloat32, {1, 1, 3, 3});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("[1,1,2,2]"), std::string::npos) << kernel.status().message();
}

TEST(ConvKernel, Float16ComputesInFloat32) {
  // [1, 2] * 0.5 + 1 = [1.5, 2]; float16 bits: 1 = 0x3c00, 2 = 0x4000, 0.5 = 0x3800,
  // 1.5 = 0x3e00.
  KernelTest test("Conv");
  test.input(float16_bits({1, 1, 1, 2}, {0x3c00, 0x4000}))
      .initializer(float16_bits({1, 1, 1, 1}, {0x3800}))
      .initializer(float16_bits({1}, {0x3c00}))
      .output(F::kFloat16, {1, 1, 1, 2});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(bits_of(out[0]), (std::vector<uint16_t>{0x3e00, 0x4000}));
}

TEST(ConvKernel, Int32IsUnsupported) {
  KernelTest test("Conv");
  test.input(i32({1, 1, 2, 2}, {1, 2, 3, 4})).initializer(i32({1, 1, 1, 1}, {1})).output(F::kInt32, {1, 1, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  const std::string message = kernel.status().message();
  EXPECT_NE(message.find("'cpu'"), std::string::npos) << message;
  EXPECT_NE(message.find("Conv"), std::string::npos) << message;
  EXPECT_NE(message.find("int32"), std::string::npos) << message;
}

// A batch of 0 is legal (ONNX Runtime gives [0, 3, 3, 3]); empty tensors reach the kernel
// without an address, as at run time.
TEST(ConvKernel, EmptyBatchGivesAnEmptyOutput) {
  KernelTest test("Conv");
  test.input(f32({0, 2, 5, 5}, {}))
      .initializer(f32_iota({3, 2, 3, 3}))
      .initializer(f32({3}, {1, 2, 3}))
      .output(F::kFloat32, {0, 3, 3, 3})
      .empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {0, 3, 3, 3}, {});
}

TEST(ConvKernel, NoInputChannelsLeavesTheBias) {
  KernelTest test("Conv");
  test.input(f32({1, 0, 2, 2}, {}))
      .initializer(f32({2, 0, 1, 1}, {}))
      .initializer(f32({2}, {1, 2}))
      .output(F::kFloat32, {1, 2, 2, 2})
      .empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 2}, {1, 1, 1, 1, 2, 2, 2, 2});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
