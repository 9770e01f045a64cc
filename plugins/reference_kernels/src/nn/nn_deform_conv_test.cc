// DeformConv kernel tests. Expectations by hand (bilinear sampling worked out in the
// comments) and from onnx/reference/ops/op_deform_conv.py for the ONNX example.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/kernel_test_util.h"
#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;
using math_testing::expect_half_bits;
using math_testing::half_bits;

void expect_error(KernelTest& test, StatusCode code, const std::string& text) {
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), code);
  EXPECT_NE(kernel.status().message().find(text), std::string::npos) << kernel.status().message();
}

TEST(DeformConvKernel, ZeroOffsetsAreAPlainConvolutionWithBias) {
  // X = arange(9) as 3x3, W = ones 2x2: window sums 8 12 20 24, plus 1.
  KernelTest test("DeformConv", 19);
  test.input(f32_iota({1, 1, 3, 3}))
      .input(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
      .input(f32({1, 8, 2, 2}, std::vector<float>(32, 0.0f)))
      .input(f32({1}, {1}))
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {9, 13, 21, 25});
}

TEST(DeformConvKernel, OnnxExampleWithFractionalOffsets) {
  // onnx/backend/test/case/node/deformconv.py export: X = arange(9) 3x3, W = ones 2x2,
  // offset zero except offset[0, 0, 0, 0] = 0.5 (tap (0,0), h) and offset[0, 5, 0, 1] =
  // -0.1 (tap (1,0), w); reference output [[9.5, 11.9], [20.0, 24.0]].
  std::vector<float> offset(32, 0.0f);
  offset[0] = 0.5f;
  offset[5 * 4 + 1] = -0.1f;
  KernelTest test("DeformConv", 19);
  test.input(f32_iota({1, 1, 3, 3}))
      .input(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
      .input(f32({1, 8, 2, 2}, offset))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {9.5f, 11.9f, 20.0f, 24.0f});
}

TEST(DeformConvKernel, HalfPixelShiftInterpolatesAndZeroPadsOutside) {
  // 1x1 kernel moved down by 0.5: the mean of rows i and i+1; the last row meets the
  // zero outside (0.5 * X[2, j]).
  std::vector<float> offset(18, 0.0f);
  for (int i = 0; i < 9; ++i) offset[i] = 0.5f;  // channel 0: h
  KernelTest test("DeformConv", 19);
  test.input(f32_iota({1, 1, 3, 3}))
      .input(f32({1, 1, 1, 1}, {1}))
      .input(f32({1, 2, 3, 3}, offset))
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 3}, {1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 3, 3.5f, 4});
}

TEST(DeformConvKernel, OffsetGroupsMaskAndGroupsInDouble) {
  // Two channels, offset_group 2: channel 0 unshifted with mask 0.5, channel 1 moved
  // right by 1 with mask 1. W = [1, 10] (one group): y = 0.5 x0[i, j] + 10 x1[i, j + 1].
  // A second output channel of a 2-group copy checks the grouping: see below.
  std::vector<double> x0 = {1, 2, 3, 4}, x1 = {5, 6, 7, 8};
  std::vector<double> x = x0;
  x.insert(x.end(), x1.begin(), x1.end());
  std::vector<double> offset(2 * 2 * 4, 0.0);
  for (int i = 0; i < 4; ++i) offset[3 * 4 + i] = 1.0;  // group 1, w
  std::vector<double> mask(2 * 4, 1.0);
  for (int i = 0; i < 4; ++i) mask[i] = 0.5;
  KernelTest test("DeformConv", 19);
  test.input(f64({1, 2, 2, 2}, x))
      .input(f64({1, 2, 1, 1}, {1, 10}))
      .input(f64({1, 4, 2, 2}, offset))
      .no_input()
      .input(f64({1, 2, 2, 2}, mask))
      .attribute("offset_group", int64_t{2})
      .output(F::kFloat64, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 2, 2}, {0.5 + 60, 1.0, 1.5 + 80, 2.0});

  // group 2: output channel 0 sees channel 0 only, output channel 1 channel 1 only.
  KernelTest grouped("DeformConv", 19);
  grouped.input(f64({1, 2, 2, 2}, x))
      .input(f64({2, 1, 1, 1}, {1, 10}))
      .input(f64({1, 4, 2, 2}, offset))
      .input(f64({2}, {100, 200}))
      .input(f64({1, 2, 2, 2}, mask))
      .attribute("group", int64_t{2})
      .attribute("offset_group", int64_t{2})
      .output(F::kFloat64, {1, 2, 2, 2});
  GE_RUN_KERNEL(by_group, grouped);
  expect_tensor<double>(by_group[0], {1, 2, 2, 2}, {100.5, 101, 101.5, 102, 260, 200, 280, 200});
}

TEST(DeformConvKernel, OneSpatialAxisWithDilationsPadsAndStrides) {
  // X = 1..5, W = [1, 1], dilation 2, pads 1/1, stride 2: taps at 2o - 1 and 2o + 1.
  KernelTest test("DeformConv", 19);
  test.input(f32({1, 1, 5}, {1, 2, 3, 4, 5}))
      .input(f32({1, 1, 2}, {1, 1}))
      .input(f32({1, 2, 3}, std::vector<float>(6, 0.0f)))
      .attribute("dilations", std::vector<int64_t>{2})
      .attribute("pads", std::vector<int64_t>{1, 1})
      .attribute("strides", std::vector<int64_t>{2})
      .output(F::kFloat32, {1, 1, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3}, {2, 6, 4});
}

TEST(DeformConvKernel, ThreeSpatialAxesSampleTrilinearly) {
  // X = arange(8) as 2x2x2, 1x1x1 kernel moved by (0.5, 0.5, 0.5) at output (0,0,0):
  // the mean of all eight (3.5); the other positions are unshifted.
  std::vector<float> offset(3 * 8, 0.0f);
  offset[0] = offset[8] = offset[16] = 0.5f;
  KernelTest test("DeformConv", 22);
  test.input(f32_iota({1, 1, 2, 2, 2}))
      .input(f32({1, 1, 1, 1, 1}, {2}))
      .input(f32({1, 3, 2, 2, 2}, offset))
      .output(F::kFloat32, {1, 1, 2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2, 2}, {7, 2, 4, 6, 8, 10, 12, 14});
}

TEST(DeformConvKernel, InconsistentShapesAndAttributesAreRefused) {
  KernelTest offset("DeformConv", 19);
  offset.input(f32_iota({1, 2, 3, 3}))
      .input(f32_iota({1, 2, 2, 2}))
      .input(f32({1, 8, 2, 2}, std::vector<float>(32, 0.0f)))
      .attribute("offset_group", int64_t{2})
      .output(F::kFloat32, {1, 1, 2, 2});
  expect_error(offset, StatusCode::kInvalidArgument, "input 2 (offset) is [1,8,2,2], expected [1,16,2,2]");

  KernelTest divides("DeformConv", 19);
  divides.input(f32_iota({1, 2, 3, 3}))
      .input(f32_iota({1, 2, 2, 2}))
      .input(f32({1, 24, 2, 2}, std::vector<float>(96, 0.0f)))
      .attribute("offset_group", int64_t{3})
      .output(F::kFloat32, {1, 1, 2, 2});
  expect_error(divides, StatusCode::kInvalidArgument, "channels are not a multiple of it");

  KernelTest kernel("DeformConv", 19);
  kernel.input(f32_iota({1, 1, 3, 3}))
      .input(f32_iota({1, 1, 2, 2}))
      .input(f32({1, 8, 2, 2}, std::vector<float>(32, 0.0f)))
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .output(F::kFloat32, {1, 1, 2, 2});
  expect_error(kernel, StatusCode::kInvalidArgument, "attribute 'kernel_shape'");

  KernelTest mask("DeformConv", 19);
  mask.input(f32_iota({1, 1, 3, 3}))
      .input(f32_iota({1, 1, 2, 2}))
      .input(f32({1, 8, 2, 2}, std::vector<float>(32, 0.0f)))
      .no_input()
      .input(f32({1, 4, 2, 1}, std::vector<float>(8, 1.0f)))
      .output(F::kFloat32, {1, 1, 2, 2});
  expect_error(mask, StatusCode::kInvalidArgument, "input 4 (mask) is [1,4,2,1], expected [1,4,2,2]");

  KernelTest integer("DeformConv", 19);
  integer.input(Tensor::zeros(F::kInt32, {1, 1, 3, 3}))
      .input(Tensor::zeros(F::kInt32, {1, 1, 2, 2}))
      .input(Tensor::zeros(F::kInt32, {1, 8, 2, 2}))
      .output(F::kInt32, {1, 1, 2, 2});
  expect_error(integer, StatusCode::kUnsupported, "int32");
}

TEST(DeformConvKernel, Float16AndBFloat16ComputeInFloat32) {
  // The ONNX example above in 16-bit floats: [[9.5, 11.9], [20, 24]] rounds to float16
  // 0x48c0 0x49f3 0x4d00 0x4e00 and bfloat16 0x4118 0x413e 0x41a0 0x41c0. Offsets
  // 0.5 = 0x3800 / 0x3f00, -0.1 = 0xae66 / 0xbdcd; X = arange(9), W = ones.
  struct Format {
    DataType dtype;
    std::vector<uint16_t> x, one, half, minus_tenth, y;
  };
  const std::vector<Format> formats = {
      {F::kFloat16,
       {0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700, 0x4800},
       {0x3c00},
       {0x3800},
       {0xae66},
       {0x48c0, 0x49f3, 0x4d00, 0x4e00}},
      {F::kBFloat16,
       {0x0000, 0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0, 0x40e0, 0x4100},
       {0x3f80},
       {0x3f00},
       {0xbdcd},
       {0x4118, 0x413e, 0x41a0, 0x41c0}},
  };
  for (const Format& format : formats) {
    std::vector<uint16_t> offset(32, 0);
    offset[0] = format.half[0];
    offset[5 * 4 + 1] = format.minus_tenth[0];
    KernelTest test("DeformConv", 22);
    test.input(half_bits(format.dtype, {1, 1, 3, 3}, format.x))
        .input(half_bits(format.dtype, {1, 1, 2, 2}, std::vector<uint16_t>(4, format.one[0])))
        .input(half_bits(format.dtype, {1, 8, 2, 2}, offset))
        .output(format.dtype, {1, 1, 2, 2});
    GE_RUN_KERNEL(out, test);
    expect_half_bits(out[0], format.dtype, {1, 1, 2, 2}, format.y);
  }
}

}  // namespace
}  // namespace ge::reference_kernels::testing
