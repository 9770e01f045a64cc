// MaxPool kernel tests. Expected values from a naive numpy pool (taps outside the input
// skipped, first maximum wins, indices from np.ravel_multi_index over the whole input)
// run with /usr/bin/python3, or by hand where the comment shows it.
// The scrambled input x = (arange(16) * 7) % 16 reshaped to [1,1,4,4] is
//    0  7 14  5
//   12  3 10  1
//    8 15  6 13
//    4 11  2  9

#include <gtest/gtest.h>

#include <limits>

#include "testing/kernel_test_util.h"
#include "testing/nn_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor scrambled() { return f32({1, 1, 4, 4}, {0, 7, 14, 5, 12, 3, 10, 1, 8, 15, 6, 13, 4, 11, 2, 9}); }

TEST(MaxPoolKernel, TwoByTwoStrideTwoWithIndices) {
  // Windows {0,7,12,3} {14,5,10,1} {8,15,4,11} {6,13,2,9}: maxima 12@4, 14@2, 15@9, 13@11.
  KernelTest test("MaxPool");
  test.input(scrambled())
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2})
      .output(F::kInt64, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {12, 14, 15, 13});
  expect_tensor<int64_t>(out[1], {1, 1, 2, 2}, {4, 2, 9, 11});
}

TEST(MaxPoolKernel, CeilModeAddsAPartialWindow) {
  // 3x3 windows at stride 2 on 4x4: floor gives 1 output, ceil gives 2 per axis; the
  // extra windows are cut at the input edge (rows/cols 2..3).
  KernelTest ceil_test("MaxPool");
  ceil_test.input(scrambled())
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("ceil_mode", int64_t{1})
      .output(F::kFloat32, {1, 1, 2, 2})
      .output(F::kInt64, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, ceil_test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {15, 14, 15, 13});
  expect_tensor<int64_t>(out[1], {1, 1, 2, 2}, {9, 2, 9, 11});

  KernelTest floor_test("MaxPool");
  floor_test.input(scrambled())
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 1, 1});
  GE_RUN_KERNEL(floor_out, floor_test);
  expect_tensor<float>(floor_out[0], {1, 1, 1, 1}, {15});
}

TEST(MaxPoolKernel, PaddingNeverWins) {
  // -arange(1, 10) on 3x3 with pads 1: a zero pad would beat every value; it must not.
  KernelTest test("MaxPool");
  test.input(f32_iota({1, 1, 3, 3}, -1, -1))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .output(F::kFloat32, {1, 1, 4, 4})
      .output(F::kInt64, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4, 4}, {-1, -1, -2, -3, -1, -1, -2, -3, -4, -4, -5, -6, -7, -7, -8, -9});
  expect_tensor<int64_t>(out[1], {1, 1, 4, 4}, {0, 0, 1, 2, 0, 0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8});
}

TEST(MaxPoolKernel, Dilations) {
  // 2x2 taps two apart: output (0,0) reads x[0][0], x[0][2], x[2][0], x[2][2] = 0, 14, 8, 6.
  KernelTest test("MaxPool");
  test.input(scrambled())
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("dilations", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 1, 2, 2})
      .output(F::kInt64, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {14, 15, 12, 11});
  expect_tensor<int64_t>(out[1], {1, 1, 2, 2}, {2, 9, 4, 13});
}

TEST(MaxPoolKernel, ColumnMajorIndices) {
  // ONNX's maxpool_with_argmax_2d_precomputed_strides case: x = arange(1, 26) on 5x5,
  // 2x2 windows at stride 2. Maximum 7 sits at (1,1): column-major index 1 + 1*5 = 6;
  // 9 at (1,3): 1 + 3*5 = 16; 17 at (3,1): 8; 19 at (3,3): 18.
  KernelTest test("MaxPool");
  test.input(f32_iota({1, 1, 5, 5}, 1))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("strides", std::vector<int64_t>{2, 2})
      .attribute("storage_order", int64_t{1})
      .output(F::kFloat32, {1, 1, 2, 2})
      .output(F::kInt64, {1, 1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2}, {7, 9, 17, 19});
  expect_tensor<int64_t>(out[1], {1, 1, 2, 2}, {6, 16, 8, 18});
}

TEST(MaxPoolKernel, IndicesCountEarlierPlanes) {
  // Two channels of (arange(18) * 5) % 18; indices of channel 1 are offset by 9.
  KernelTest test("MaxPool");
  test.input(f32({1, 2, 3, 3}, {0, 5, 10, 15, 2, 7, 12, 17, 4, 9, 14, 1, 6, 11, 16, 3, 8, 13}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {1, 2, 2, 2})
      .output(F::kInt64, {1, 2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 2}, {15, 10, 17, 17, 14, 16, 11, 16});
  expect_tensor<int64_t>(out[1], {1, 2, 2, 2}, {3, 2, 7, 7, 10, 14, 13, 14});
}

TEST(MaxPoolKernel, AutoPadSameUpperAndLower) {
  // 2x2 windows at stride 1 on arange(9) as 3x3: one pad per axis, at the end (UPPER:
  // window (0,0) is x[0:2,0:2], max 4) or at the beginning (LOWER: window (0,0) holds x[0][0] only).
  KernelTest upper("MaxPool");
  upper.input(f32_iota({1, 1, 3, 3}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("auto_pad", "SAME_UPPER")
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(upper_out, upper);
  expect_tensor<float>(upper_out[0], {1, 1, 3, 3}, {4, 5, 5, 7, 8, 8, 7, 8, 8});
  KernelTest lower("MaxPool");
  lower.input(f32_iota({1, 1, 3, 3}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("auto_pad", "SAME_LOWER")
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(lower_out, lower);
  expect_tensor<float>(lower_out[0], {1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
}

TEST(MaxPoolKernel, OneDimensional) {
  // [3,1,4,1,5,9,2,6], window 3, stride 2, pads 1: windows {3,1} {1,4,1} {1,5,9} {9,2,6}.
  KernelTest test("MaxPool");
  test.input(f32({1, 1, 8}, {3, 1, 4, 1, 5, 9, 2, 6}))
      .attribute("kernel_shape", std::vector<int64_t>{3})
      .attribute("strides", std::vector<int64_t>{2})
      .attribute("pads", std::vector<int64_t>{1, 1})
      .output(F::kFloat32, {1, 1, 4})
      .output(F::kInt64, {1, 1, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 4}, {3, 4, 9, 9});
  expect_tensor<int64_t>(out[1], {1, 1, 4}, {0, 2, 5, 5});
}

TEST(MaxPoolKernel, ThreeDimensional) {
  // numpy pool of (arange(27) * 11) % 27 as [1,1,3,3,3] with 2x2x2 windows.
  std::vector<float> x(27);
  for (int i = 0; i < 27; ++i) x[i] = static_cast<float>(i * 11 % 27);
  KernelTest test("MaxPool");
  test.input(f32({1, 1, 3, 3, 3}, x))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2, 2})
      .output(F::kFloat32, {1, 1, 2, 2, 2})
      .output(F::kInt64, {1, 1, 2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 2, 2}, {24, 22, 24, 25, 26, 26, 26, 26});
  expect_tensor<int64_t>(out[1], {1, 1, 2, 2, 2}, {12, 2, 12, 17, 22, 22, 22, 22});
}

TEST(MaxPoolKernel, Int8) {
  KernelTest test("MaxPool", 12);
  test.input(Tensor::from_vector<int8_t>({1, 1, 1, 4}, {-128, -100, 5, 127}))
      .attribute("kernel_shape", std::vector<int64_t>{1, 2})
      .attribute("strides", std::vector<int64_t>{1, 2})
      .output(F::kInt8, {1, 1, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {1, 1, 1, 2}, {-100, 127});
}

TEST(MaxPoolKernel, MissingKernelShapeIsInvalid) {
  KernelTest test("MaxPool");
  test.input(f32_iota({1, 1, 2, 2})).output(F::kFloat32, {1, 1, 1, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("attribute 'kernel_shape' is required"), std::string::npos)
      << kernel.status().message();
}

TEST(MaxPoolKernel, Float16WithIndices) {
  // [1, 3, 2] (0x3c00, 0x4200, 0x4000), window 2, stride 1: both windows pick 3 at index 1.
  KernelTest test("MaxPool", 12);
  test.input(float16_bits({1, 1, 3}, {0x3c00, 0x4200, 0x4000}))
      .attribute("kernel_shape", std::vector<int64_t>{2})
      .output(F::kFloat16, {1, 1, 2})
      .output(F::kInt64, {1, 1, 2});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(bits_of(out[0]), (std::vector<uint16_t>{0x4200, 0x4200}));
  expect_tensor<int64_t>(out[1], {1, 1, 2}, {1, 1});
}

TEST(MaxPoolKernel, NanInAWindowWins) {
  // numpy / PyTorch: the max of [nan, inf, -inf] and of [1, nan, 2] is nan; the index is
  // the NaN's (flat 0 and 4).
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  KernelTest test("MaxPool");
  test.input(f32({1, 1, 2, 3}, {nan, inf, -inf, 1, nan, 2}))
      .attribute("kernel_shape", std::vector<int64_t>{1, 3})
      .output(F::kFloat32, {1, 1, 2, 1})
      .output(F::kInt64, {1, 1, 2, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 2, 1}, {nan, nan});
  expect_tensor<int64_t>(out[1], {1, 1, 2, 1}, {0, 4});
}

TEST(MaxPoolKernel, EmptyBatchGivesAnEmptyOutput) {
  KernelTest test("MaxPool");
  test.input(f32({0, 1, 4, 4}, {}))
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .output(F::kFloat32, {0, 1, 3, 3})
      .empty_tensors_without_address();
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {0, 1, 3, 3}, {});
}

// kernel_shape 2^62 with auto_pad SAME is legal: every window covers the input. The
// pools looped over all 2^62 taps per output (a hang); they compute the taps inside.
TEST(MaxPoolKernel, HugeSameWindowsCoverTheInput) {
  const std::vector<int64_t> huge{int64_t{1} << 62, int64_t{1} << 62};
  for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) {
    KernelTest test(op, 11);
    test.input(scrambled())
        .attribute("kernel_shape", huge)
        .attribute("auto_pad", std::string("SAME_UPPER"))
        .output(F::kFloat32, {1, 1, 4, 4});
    GE_RUN_KERNEL(out, test);
    // max 15; mean 7.5; L2 norm sqrt(0^2 + ... + 15^2) = sqrt(1240).
    const float expected = std::string(op) == "MaxPool" ? 15.0f : std::string(op) == "AveragePool" ? 7.5f : 35.21363f;
    expect_tensor<float>(out[0], {1, 1, 4, 4}, std::vector<float>(16, expected));
  }
}

TEST(MaxPoolKernel, WindowsBeyondInt64AreInvalid) {
  // (3 - 1) * 2^62 + 1 passes 2^63: it wrapped negative, undefined behaviour.
  KernelTest dilated("MaxPool");
  dilated.input(scrambled())
      .attribute("kernel_shape", std::vector<int64_t>{3, 3})
      .attribute("dilations", std::vector<int64_t>{int64_t{1} << 62, 1})
      .output(F::kFloat32, {1, 1, 1, 2});
  expect_invalid(dilated, "beyond 2^63 - 1");
  KernelTest padded("MaxPool");
  padded.input(scrambled())
      .attribute("kernel_shape", std::vector<int64_t>{2, 2})
      .attribute("pads", std::vector<int64_t>{0, 0, std::numeric_limits<int64_t>::max(), 0})
      .output(F::kFloat32, {1, 1, 1, 3});
  expect_invalid(padded, "beyond 2^63 - 1");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
