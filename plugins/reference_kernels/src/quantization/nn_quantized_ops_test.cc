// ConvInteger / QLinearConv / MatMulInteger / QLinearMatMul kernel tests. Values by
// hand, with numpy (/usr/bin/python3) for the matmuls; the QLinearMatMul case is the
// example of the ONNX operator documentation. The opset-21 cases (float8 codes, float16
// and bfloat16 scales) are worked out by hand from the formats.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "testing/kernel_test_util.h"
#include "testing/math_test_util.h"
#include "testing/narrow_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;
using math_testing::half_bits;

template <typename T>
Tensor tensor(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector<T>(std::move(dims), values);
}

TEST(NnQuantizedOpsKernel, ConvIntegerPadsWithTheZeroPoint) {
  // x - 1 = [[1,2,3],[4,5,6],[7,8,9]] padded with zeros, summed over 2x2 windows.
  KernelTest test("ConvInteger", 10);
  test.input(tensor<uint8_t>({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10}))
      .initializer(tensor<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1}))
      .input(tensor<uint8_t>({}, {1}))
      .attribute("pads", std::vector<int64_t>{1, 1, 1, 1})
      .output(F::kInt32, {1, 1, 4, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {1, 1, 4, 4}, {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9});
}

TEST(NnQuantizedOpsKernel, ConvIntegerInt8WeightsPerChannelZeroPoint) {
  // x = [1, 2] (1x1 spatial, 2 channels); w[m] = [[3, -4], [5, 6]] minus zp [1, 5]:
  // m0: 1*2 + 2*-5 = -8, m1: 1*0 + 2*1 = 2.
  KernelTest test("ConvInteger", 10);
  test.input(tensor<uint8_t>({1, 2, 1, 1}, {1, 2}))
      .initializer(tensor<int8_t>({2, 2, 1, 1}, {3, -4, 5, 6}))
      .no_input()
      .initializer(tensor<int8_t>({2}, {1, 5}))
      .output(F::kInt32, {1, 2, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {1, 2, 1, 1}, {-8, 2});
}

TEST(NnQuantizedOpsKernel, QLinearConvPerChannelWithBias) {
  // x - 10 = [0, 10, 20, 30]; channel 0: w 2, bias 5, multiplier 0.5 * 0.25 / 0.25 = 0.5
  // -> 2.5, 12.5, 22.5, 32.5 round to even 2, 12, 22, 32, then - 5.
  // Channel 1: w -3 - 1 = -4, bias -2, multiplier 2 -> -4, -84, -164, -244, - 5, clamped.
  KernelTest test("QLinearConv", 10);
  test.input(tensor<uint8_t>({1, 1, 2, 2}, {10, 20, 30, 40}))
      .input(f32({}, {0.5f}))
      .input(tensor<uint8_t>({}, {10}))
      .initializer(tensor<int8_t>({2, 1, 1, 1}, {2, -3}))
      .input(f32({2}, {0.25f, 1}))
      .input(tensor<int8_t>({2}, {0, 1}))
      .input(f32({}, {0.25f}))
      .input(tensor<int8_t>({}, {-5}))
      .initializer(i32({2}, {5, -2}))
      .output(F::kInt8, {1, 2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {1, 2, 2, 2}, {-3, 7, 17, 27, -9, -89, -128, -128});
}

TEST(NnQuantizedOpsKernel, MatMulIntegerPerRowAndColumnZeroPoints) {
  KernelTest test("MatMulInteger", 10);
  test.input(tensor<int8_t>({2, 3}, {-1, 2, 3, 4, -5, 6}))
      .input(tensor<uint8_t>({3, 2}, {1, 2, 3, 4, 250, 6}))
      .input(tensor<int8_t>({2}, {1, -2}))
      .input(tensor<uint8_t>({2}, {3, 0}))
      .output(F::kInt32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 2}, {498, 12, 1964, 48});
}

TEST(NnQuantizedOpsKernel, MatMulIntegerBroadcastsBatch) {
  // A [2, 1, 2] x B [2, 1]: [1, 2] . [3, 4] = 11 and [-1, 0] . [3, 4] = -3.
  KernelTest test("MatMulInteger", 10);
  test.input(tensor<int8_t>({2, 1, 2}, {1, 2, -1, 0})).input(tensor<int8_t>({2, 1}, {3, 4}));
  test.output(F::kInt32, {2, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 1, 1}, {11, -3});
}

TEST(NnQuantizedOpsKernel, QLinearMatMulDocumentationExample) {
  KernelTest test("QLinearMatMul", 10);
  test.input(tensor<uint8_t>({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}))
      .input(f32({}, {0.0066f}))
      .input(tensor<uint8_t>({}, {113}))
      .input(tensor<uint8_t>({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}))
      .input(f32({}, {0.00705f}))
      .input(tensor<uint8_t>({}, {114}))
      .input(f32({}, {0.0107f}))
      .input(tensor<uint8_t>({}, {118}))
      .output(F::kUInt8, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {2, 3}, {168, 115, 255, 1, 66, 151});
}

// E4M3FN codes: 0.5 = 0x30, 1 = 0x38, 2 = 0x40, 4 = 0x48, 8 = 0x50, 16 = 0x58, 448 = 0x7E.
// A = [[1, 2], [0.5, 1]] and B = [[2, 1], [1, 0.5]] give A B = [[4, 2], [2, 1]].
void float8_matmul(KernelTest& test, F y_dtype, Tensor b_scale, Tensor y_scale, Tensor y_zero) {
  test.input(codes(F::kFloat8E4M3FN, {2, 2}, {0x38, 0x40, 0x30, 0x38}))
      .input(f32({}, {1}))
      .input(codes(F::kFloat8E4M3FN, {}, {0}))
      .input(codes(F::kFloat8E4M3FN, {2, 2}, {0x40, 0x38, 0x38, 0x30}))
      .input(std::move(b_scale))
      .input(codes(F::kFloat8E4M3FN, {}, {0}))
      .input(std::move(y_scale))
      .input(std::move(y_zero))
      .output(y_dtype, {2, 2});
}

TEST(NnQuantizedOpsKernel, QLinearMatMul21Float8ToFloat8) {
  // A B * 0.5 / 0.25 = [[8, 4], [4, 2]].
  KernelTest exact("QLinearMatMul", 21);
  float8_matmul(exact, F::kFloat8E4M3FN, f32({}, {0.5f}), f32({}, {0.25f}), codes(F::kFloat8E4M3FN, {}, {0}));
  GE_RUN_KERNEL(a, exact);
  expect_codes(a[0], F::kFloat8E4M3FN, {2, 2}, {0x50, 0x48, 0x48, 0x40});
  // Per-column b_scale [4.25, 1000] / 1: 17 (between 16 and 18, ties to even 16), 2000
  // (saturates to 448), 8.5 (between 8 and 9, ties to even 8), 1000 (448).
  KernelTest rounded("QLinearMatMul", 21);
  float8_matmul(rounded, F::kFloat8E4M3FN, f32({2}, {4.25f, 1000}), f32({}, {1}), codes(F::kFloat8E4M3FN, {}, {0}));
  GE_RUN_KERNEL(b, rounded);
  expect_codes(b[0], F::kFloat8E4M3FN, {2, 2}, {0x58, 0x7E, 0x50, 0x7E});
}

TEST(NnQuantizedOpsKernel, QLinearMatMul21Float8ToUInt8) {
  // A B * 1.25 = [[5, 2.5], [2.5, 1.25]] round half to even to [[5, 2], [2, 1]]; + 252
  // saturates the first to 255.
  KernelTest test("QLinearMatMul", 21);
  float8_matmul(test, F::kUInt8, f32({}, {1.25f}), f32({}, {1}), tensor<uint8_t>({}, {252}));
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {2, 2}, {255, 254, 254, 253});
}

TEST(NnQuantizedOpsKernel, QLinearMatMul21Float8E5M2WithUInt8BAndBFloat16Scales) {
  // A = [1, 2] (E5M2 0x3C, 0x40); B - 1 = [2, 4]; (1*2 + 2*4) * 0.5 / 1 = 5 = 4 * 1.25,
  // E5M2 exponent field 2 + 15 = 17, mantissa 01: 0x45. bfloat16 1 = 0x3F80, 0.5 = 0x3F00.
  KernelTest test("QLinearMatMul", 21);
  test.input(codes(F::kFloat8E5M2, {2}, {0x3C, 0x40}))
      .input(half_bits(F::kBFloat16, {}, {0x3F80}))
      .input(codes(F::kFloat8E5M2, {}, {0}))
      .input(tensor<uint8_t>({2, 1}, {3, 5}))
      .input(half_bits(F::kBFloat16, {}, {0x3F00}))
      .input(tensor<uint8_t>({}, {1}))
      .input(half_bits(F::kBFloat16, {}, {0x3F80}))
      .input(codes(F::kFloat8E5M2, {}, {0}))
      .output(F::kFloat8E5M2, {1});
  GE_RUN_KERNEL(out, test);
  expect_codes(out[0], F::kFloat8E5M2, {1}, {0x45});
}

TEST(NnQuantizedOpsKernel, QLinearMatMul21Int8WithFloat16Scales) {
  // A - 1 = [2, -5]; B = [[1, 2], [3, 3]]: sums [-13, -11]. Multipliers 0.5 * [1, 0.25] /
  // 0.25 = [2, 0.5]: -26 and -5.5 (half to even: -6); - 110 saturates -136 to -128.
  // float16 0.25 = 0x3400, 0.5 = 0x3800, 1 = 0x3C00.
  KernelTest test("QLinearMatMul", 21);
  test.input(tensor<int8_t>({1, 2}, {3, -4}))
      .input(half_bits(F::kFloat16, {}, {0x3800}))
      .input(tensor<int8_t>({}, {1}))
      .input(tensor<int8_t>({2, 2}, {1, 2, 3, 3}))
      .input(half_bits(F::kFloat16, {2}, {0x3C00, 0x3400}))
      .input(tensor<int8_t>({}, {0}))
      .input(half_bits(F::kFloat16, {}, {0x3400}))
      .input(tensor<int8_t>({}, {-110}))
      .output(F::kInt8, {1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {1, 2}, {-128, -116});
}

TEST(NnQuantizedOpsKernel, QLinearMatMulFloat8AndFloat16ScalesNeedOpset21) {
  for (int opset : {10, 20}) {
    KernelTest float8_a("QLinearMatMul", opset);
    float8_a.input(codes(F::kFloat8E4M3FN, {1, 1}, {0x38}))
        .input(f32({}, {1}))
        .input(codes(F::kFloat8E4M3FN, {}, {0}))
        .input(tensor<uint8_t>({1, 1}, {1}))
        .input(f32({}, {1}))
        .input(tensor<uint8_t>({}, {0}))
        .input(f32({}, {1}))
        .input(tensor<uint8_t>({}, {0}))
        .output(F::kUInt8, {1, 1});
    expect_invalid(float8_a, "A of dtype float8e4m3fn needs opset 21");
    KernelTest float8_y("QLinearMatMul", opset);
    float8_y.input(tensor<uint8_t>({1, 1}, {1}))
        .input(f32({}, {1}))
        .input(tensor<uint8_t>({}, {0}))
        .input(tensor<uint8_t>({1, 1}, {1}))
        .input(f32({}, {1}))
        .input(tensor<uint8_t>({}, {0}))
        .input(f32({}, {1}))
        .input(codes(F::kFloat8E5M2, {}, {0}))
        .output(F::kFloat8E5M2, {1, 1});
    expect_invalid(float8_y, "Y of dtype float8e5m2 needs opset 21");
    KernelTest half_scale("QLinearMatMul", opset);
    half_scale.input(tensor<uint8_t>({1, 1}, {1}))
        .input(half_bits(F::kFloat16, {}, {0x3C00}))
        .input(tensor<uint8_t>({}, {0}))
        .input(tensor<uint8_t>({1, 1}, {1}))
        .input(f32({}, {1}))
        .input(tensor<uint8_t>({}, {0}))
        .input(f32({}, {1}))
        .input(tensor<uint8_t>({}, {0}))
        .output(F::kUInt8, {1, 1});
    expect_prepare_error(half_scale, StatusCode::kUnsupported, "a_scale of dtype float16");
  }
}

TEST(NnQuantizedOpsKernel, MismatchedZeroPointIsInvalid) {
  KernelTest test("MatMulInteger", 10);
  test.input(tensor<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6}))
      .input(tensor<uint8_t>({3, 1}, {1, 2, 3}))
      .input(tensor<uint8_t>({3}, {0, 0, 0}))
      .output(F::kInt32, {2, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("a_zero_point"), std::string::npos) << kernel.status().message();
}

// Bad quantisation parameters (issue 37 item 4): refused at prepare time with the node and
// the input named.
void qlinear_conv_with_scales(KernelTest& test, Tensor x_scale, Tensor w_scale, Tensor y_scale) {
  test.input(tensor<uint8_t>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}))
      .initializer(std::move(x_scale))
      .initializer(tensor<uint8_t>({}, {1}))
      .initializer(tensor<int8_t>({2, 2, 1, 1}, {1, 2, 3, 4}))
      .initializer(std::move(w_scale))
      .initializer(tensor<int8_t>({2}, {0, 0}))
      .initializer(std::move(y_scale))
      .initializer(tensor<uint8_t>({}, {0}))
      .output(F::kUInt8, {1, 2, 2, 2});
}

void expect_refused(KernelTest& test, const std::vector<std::string>& fragments) {
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  for (const std::string& fragment : fragments) {
    EXPECT_NE(kernel.status().to_string().find(fragment), std::string::npos) << kernel.status().to_string();
  }
}

TEST(NnQuantizedOpsKernel, QLinearConvRefusesScalesThatAreNotPositiveAndFinite) {
  KernelTest zero("QLinearConv", 10);
  qlinear_conv_with_scales(zero, f32({}, {0}), f32({2}, {1, 1}), f32({}, {1}));
  expect_refused(zero, {"'node'", "QLinearConv", "'x_scale' has value 0", "finite and > 0"});
  KernelTest nan("QLinearConv", 10);
  qlinear_conv_with_scales(nan, f32({}, {1}), f32({2}, {1, std::nanf("")}), f32({}, {1}));
  expect_refused(nan, {"'w_scale' has element 1 = nan"});
  KernelTest negative("QLinearConv", 10);
  qlinear_conv_with_scales(negative, f32({}, {1}), f32({2}, {1, 1}), f32({}, {-0.5f}));
  expect_refused(negative, {"'y_scale' has value -0.5"});
  KernelTest infinite("QLinearConv", 10);
  qlinear_conv_with_scales(infinite, f32({}, {INFINITY}), f32({2}, {1, 1}), f32({}, {1}));
  expect_refused(infinite, {"'x_scale' has value inf"});
  // Positive finite constants prepare.
  KernelTest good("QLinearConv", 10);
  qlinear_conv_with_scales(good, f32({}, {0.5f}), f32({2}, {1, 2}), f32({}, {0.25f}));
  EXPECT_TRUE(good.prepare().is_ok());
}

TEST(NnQuantizedOpsKernel, QLinearConvRefusesPerChannelLengthsThatDoNotMatch) {
  KernelTest test("QLinearConv", 10);
  qlinear_conv_with_scales(test, f32({}, {1}), f32({3}, {1, 1, 1}), f32({}, {1}));
  expect_refused(test, {"'w_scale' has shape [3], expected a scalar or [2]"});
}

TEST(NnQuantizedOpsKernel, ConvIntegerRefusesAZeroPointOfAnotherDtype) {
  KernelTest test("ConvInteger", 10);
  test.input(tensor<uint8_t>({1, 1, 2, 2}, {1, 2, 3, 4}))
      .initializer(tensor<uint8_t>({1, 1, 1, 1}, {1}))
      .initializer(tensor<int8_t>({}, {1}))  // X is uint8
      .output(F::kInt32, {1, 1, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(
      kernel.status().to_string().find("ConvInteger 'node' with input 2 of dtype int8 next to input 0 of dtype uint8"),
      std::string::npos)
      << kernel.status().to_string();
}

TEST(NnQuantizedOpsKernel, QLinearMatMulRefusesAZeroScale) {
  KernelTest test("QLinearMatMul", 10);
  test.input(tensor<uint8_t>({1, 2}, {1, 2}))
      .initializer(f32({}, {0.1f}))
      .initializer(tensor<uint8_t>({}, {0}))
      .initializer(tensor<uint8_t>({2, 2}, {1, 2, 3, 4}))
      .initializer(f32({2}, {0.1f, 0}))
      .initializer(tensor<uint8_t>({}, {0}))
      .initializer(f32({}, {0.1f}))
      .initializer(tensor<uint8_t>({}, {0}))
      .output(F::kUInt8, {1, 2});
  expect_refused(test, {"QLinearMatMul", "'b_scale' has element 1 = 0"});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
