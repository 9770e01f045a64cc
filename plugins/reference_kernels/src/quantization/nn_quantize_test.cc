// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear kernel tests. Values by hand
// (rounding is half to even), the dynamic case with numpy in float32 (/usr/bin/python3),
// the blocked and output_dtype cases (opsets 21, 23) with a numpy transcription of ONNX's
// reference (onnx/reference/ops/op_quantize_linear.py, op_dequantize_linear.py).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "testing/kernel_test_util.h"
#include "testing/math_test_util.h"
#include "testing/narrow_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;
using math_testing::expect_half_bits;
using math_testing::half_bits;

template <typename T>
Tensor tensor(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector<T>(std::move(dims), values);
}

TEST(NnQuantizeKernel, QuantizeRoundsHalfToEvenAndSaturates) {
  // x / 2 = 0, 0.5, 1.5, -150, 150, 2.5 -> 0, 0, 2, -150, 150, 2; + 128, clamped.
  KernelTest test("QuantizeLinear", 10);
  test.input(f32({6}, {0, 1, 3, -300, 300, 5})).input(f32({}, {2})).input(tensor<uint8_t>({}, {128}));
  test.output(F::kUInt8, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {6}, {128, 128, 130, 0, 255, 130});
}

TEST(NnQuantizeKernel, QuantizeToInt8) {
  KernelTest test("QuantizeLinear", 13);
  test.input(f32({6}, {-0.5f, 0.5f, 1.5f, 2.5f, -200, 200})).input(f32({}, {1})).input(tensor<int8_t>({}, {-1}));
  test.output(F::kInt8, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {6}, {-1, -1, 1, 1, -128, 127});
}

TEST(NnQuantizeKernel, QuantizeWithoutZeroPointIsUint8) {
  KernelTest test("QuantizeLinear", 13);
  test.input(f32({3}, {-1, 7.4f, 1000})).input(f32({}, {1})).output(F::kUInt8, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {3}, {0, 7, 255});
}

TEST(NnQuantizeKernel, QuantizePerAxis) {
  KernelTest test("QuantizeLinear", 13);
  test.input(f32({1, 2, 2}, {1, 2, 3, 4})).input(f32({2}, {1, 0.5f})).input(tensor<uint8_t>({2}, {0, 10}));
  test.output(F::kUInt8, {1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {1, 2, 2}, {1, 2, 16, 18});
}

TEST(NnQuantizeKernel, PerAxisNeedsOpset13) {
  KernelTest test("QuantizeLinear", 10);
  test.input(f32({1, 2}, {1, 2})).input(f32({2}, {1, 0.5f})).output(F::kUInt8, {1, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

TEST(NnQuantizeKernel, DequantizePerAxisInt8) {
  KernelTest test("DequantizeLinear", 13);
  test.input(tensor<int8_t>({2, 2}, {-128, 0, 5, 127}))
      .input(f32({2}, {0.5f, 2}))
      .input(tensor<int8_t>({2}, {-128, 1}));
  test.attribute("axis", int64_t{0}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {0, 64, 8, 252});
}

TEST(NnQuantizeKernel, DequantizeInt32WithoutZeroPoint) {
  KernelTest test("DequantizeLinear", 10);
  test.input(i32({3}, {-2, 0, 7})).input(f32({}, {0.25f})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {-0.5f, 0, 1.75f});
}

// ---- blocked quantization and output_dtype (opsets 21, 23) ----

TEST(NnQuantizeKernel, QuantizeBlockedAlongTheLastAxisWithARemainderBlock) {
  // X [2, 5], block_size 2: scale [2, 3], the third block holds one element.
  KernelTest test("QuantizeLinear", 21);
  test.input(f32({2, 5}, {1, 2.5f, -3, 7, 100, -0.5f, 0.5f, 1.5f, -200, 9}))
      .input(f32({2, 3}, {0.5f, 1, 2, 1, 0.25f, 4}))
      .input(tensor<int8_t>({2, 3}, {0, -1, 3, 10, -128, 127}));
  test.attribute("axis", int64_t{1}).attribute("block_size", int64_t{2}).output(F::kInt8, {2, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {2, 5}, {2, 5, -4, 6, 53, 10, 10, -122, -128, 127});
}

TEST(NnQuantizeKernel, QuantizeBlockedAlongAxis0To16Bits) {
  // X [5, 2], axis 0, block_size 2: scale [3, 2].
  const Tensor x = f32({5, 2}, {1, 2, 3, 4, 5, -6, 7, 8, -9, 100000});
  const Tensor scale = f32({3, 2}, {0.5f, 2, 1, 0.01f, 3, 0.25f});
  KernelTest to_uint16("QuantizeLinear", 21);
  to_uint16.input(x).input(scale).input(tensor<uint16_t>({3, 2}, {0, 100, 65535, 7, 3, 0}));
  to_uint16.attribute("axis", int64_t{0}).attribute("block_size", int64_t{2}).output(F::kUInt16, {5, 2});
  GE_RUN_KERNEL(unsigned_out, to_uint16);
  expect_tensor<uint16_t>(unsigned_out[0], {5, 2}, {2, 101, 6, 102, 65535, 0, 65535, 807, 0, 65535});
  KernelTest to_int16("QuantizeLinear", 21);
  to_int16.input(x).input(scale).input(tensor<int16_t>({3, 2}, {0, -100, 32767, 7, -3, 0}));
  to_int16.attribute("axis", int64_t{0}).attribute("block_size", int64_t{2}).output(F::kInt16, {5, 2});
  GE_RUN_KERNEL(signed_out, to_int16);
  expect_tensor<int16_t>(signed_out[0], {5, 2}, {2, -99, 6, -98, 32767, -593, 32767, 807, -6, 32767});
}

TEST(NnQuantizeKernel, DequantizeBlockedNegativeAxis) {
  // X [2, 3], axis -1, block_size 2: scale [2, 2].
  KernelTest test("DequantizeLinear", 21);
  test.input(tensor<uint8_t>({2, 3}, {0, 128, 255, 10, 20, 30}))
      .input(f32({2, 2}, {0.5f, 2, 0.1f, -1}))
      .input(tensor<uint8_t>({2, 2}, {128, 0, 10, 40}));
  test.attribute("axis", int64_t{-1}).attribute("block_size", int64_t{2}).output(F::kFloat32, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3}, {-64, 0, 510, 0, 1, 10});
}

TEST(NnQuantizeKernel, BlockedScaleShapeIsChecked) {
  // ceil(5 / 2) = 3 blocks, not 2.
  KernelTest wrong_blocks("QuantizeLinear", 21);
  wrong_blocks.input(f32_iota({2, 5})).input(f32_iota({2, 2}, 1)).attribute("block_size", int64_t{2});
  wrong_blocks.output(F::kUInt8, {2, 5});
  expect_invalid(wrong_blocks, "scale [2,2] must be [2,3] for blocked quantization");
  KernelTest wrong_zero_point("DequantizeLinear", 21);
  wrong_zero_point.input(tensor<int8_t>({4}, {1, 2, 3, 4})).input(f32({2}, {1, 2}));
  wrong_zero_point.input(tensor<int8_t>({1, 2}, {0, 0}));
  wrong_zero_point.attribute("axis", int64_t{0}).attribute("block_size", int64_t{2}).output(F::kFloat32, {4});
  expect_invalid(wrong_zero_point, "zero point [1,2] must have the shape of scale [2]");
  KernelTest negative("DequantizeLinear", 21);
  negative.input(tensor<int8_t>({2}, {1, 2})).input(f32({}, {1})).attribute("block_size", int64_t{-1});
  negative.output(F::kFloat32, {2});
  expect_invalid(negative, "must be >= 0");
  KernelTest old_opset("QuantizeLinear", 13);
  old_opset.input(f32_iota({4})).input(f32({2}, {1, 2})).attribute("axis", int64_t{0});
  old_opset.attribute("block_size", int64_t{2}).output(F::kUInt8, {4});
  expect_invalid(old_opset, "needs opset 21");
}

TEST(NnQuantizeKernel, QuantizeOutputDtypeWithoutZeroPoint) {
  KernelTest test("QuantizeLinear", 21);
  test.input(f32({4}, {-40000, 1.5f, 2.5f, 40000})).input(f32({}, {1}));
  test.attribute("output_dtype", static_cast<int64_t>(F::kInt16)).output(F::kInt16, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int16_t>(out[0], {4}, {-32768, 2, 2, 32767});
}

TEST(NnQuantizeKernel, QuantizeOutputDtypeMustAgreeWithTheZeroPoint) {
  KernelTest agree("QuantizeLinear", 21);
  agree.input(f32({2}, {3, -3})).input(f32({}, {1})).input(tensor<int8_t>({}, {1}));
  agree.attribute("output_dtype", static_cast<int64_t>(F::kInt8)).output(F::kInt8, {2});
  GE_RUN_KERNEL(out, agree);
  expect_tensor<int8_t>(out[0], {2}, {4, -2});
  KernelTest disagree("QuantizeLinear", 21);
  disagree.input(f32({2}, {3, -3})).input(f32({}, {1})).input(tensor<int8_t>({}, {1}));
  disagree.attribute("output_dtype", static_cast<int64_t>(F::kUInt8)).output(F::kInt8, {2});
  expect_invalid(disagree, "is uint8 but the zero point is int8");
  KernelTest not_quantized("QuantizeLinear", 21);
  not_quantized.input(f32({2}, {3, -3})).input(f32({}, {1}));
  not_quantized.attribute("output_dtype", static_cast<int64_t>(F::kInt32)).output(F::kInt32, {2});
  expect_prepare_error(not_quantized, StatusCode::kUnsupported, "int32");
  KernelTest unknown("QuantizeLinear", 21);
  unknown.input(f32({2}, {3, -3})).input(f32({}, {1})).attribute("output_dtype", int64_t{999}).output(F::kUInt8, {2});
  expect_invalid(unknown, "not a known dtype");
}

TEST(NnQuantizeKernel, DequantizeOutputDtypeFloat16) {
  // (x - 1) * 0.1 in float32, then rounded to float16: -3276, 0, 0.19995, 3276.
  KernelTest test("DequantizeLinear", 23);
  test.input(tensor<int16_t>({4}, {-32768, 1, 3, 32767})).input(f32({}, {0.1f})).input(tensor<int16_t>({}, {1}));
  test.attribute("output_dtype", static_cast<int64_t>(F::kFloat16)).output(F::kFloat16, {4});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kFloat16, {4}, {0xea66, 0x0000, 0x3266, 0x6a66});
}

TEST(NnQuantizeKernel, DequantizeOutputDtypeIsAFloatType) {
  KernelTest same("DequantizeLinear", 23);
  same.input(tensor<uint16_t>({2}, {0, 65535})).input(f32({}, {0.5f}));
  same.attribute("output_dtype", static_cast<int64_t>(F::kFloat32)).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, same);
  expect_tensor<float>(out[0], {2}, {0, 32767.5f});
  KernelTest integer("DequantizeLinear", 23);
  integer.input(tensor<uint8_t>({2}, {0, 1})).input(f32({}, {0.5f}));
  integer.attribute("output_dtype", static_cast<int64_t>(F::kInt32)).output(F::kInt32, {2});
  expect_invalid(integer, "is int32, must be one of");
  KernelTest too_early("DequantizeLinear", 21);
  too_early.input(tensor<uint8_t>({2}, {0, 1})).input(f32({}, {0.5f}));
  too_early.attribute("output_dtype", static_cast<int64_t>(F::kFloat16)).output(F::kFloat16, {2});
  expect_invalid(too_early, "needs opset 23");
}

// ---- the 4- and 8-bit types and float16/bfloat16 scales (opsets 19-23); codes by hand ----

TEST(NnQuantizeKernel, QuantizeToFloat8E4M3FNWithAndWithoutSaturation) {
  // x / 2 = 1, -2, 500 (beyond 448), -0 (kept: a zero zero point is not added), 0.125.
  for (int saturate : {1, 0}) {
    KernelTest test("QuantizeLinear", 19);
    test.input(f32({5}, {2, -4, 1000, -0.0f, 0.25f})).input(f32({}, {2}));
    test.input(codes(F::kFloat8E4M3FN, {}, {0})).attribute("saturate", int64_t{saturate});
    test.output(F::kFloat8E4M3FN, {5});
    GE_RUN_KERNEL(out, test);
    const uint8_t overflow = saturate != 0 ? 0x7E : 0x7F;  // 448, else NaN
    expect_codes(out[0], F::kFloat8E4M3FN, {5}, {0x38, 0xC0, overflow, 0x80, 0x20});
  }
}

TEST(NnQuantizeKernel, QuantizeToFloat8E5M2ByOutputDtype) {
  // 70000 overflows E5M2: 57344 (0x7B) saturating, infinity (0x7C) otherwise.
  for (int saturate : {1, 0}) {
    KernelTest test("QuantizeLinear", 21);
    test.input(f32({3}, {70000, 1, -3})).input(f32({}, {1}));
    test.attribute("output_dtype", static_cast<int64_t>(F::kFloat8E5M2)).attribute("saturate", int64_t{saturate});
    test.output(F::kFloat8E5M2, {3});
    GE_RUN_KERNEL(out, test);
    const uint8_t overflow = saturate != 0 ? 0x7B : 0x7C;  // 57344, else infinity
    expect_codes(out[0], F::kFloat8E5M2, {3}, {overflow, 0x3C, 0xC2});
  }
}

TEST(NnQuantizeKernel, QuantizeToFloat4E2M1) {
  // x / 2 = 1, -3, 5 (ties to 4), 50 (saturates to 6).
  KernelTest test("QuantizeLinear", 23);
  test.input(f32({4}, {2, -6, 10, 100})).input(f32({}, {2}));
  test.attribute("output_dtype", static_cast<int64_t>(F::kFloat4E2M1)).output(F::kFloat4E2M1, {4});
  GE_RUN_KERNEL(out, test);
  expect_codes(out[0], F::kFloat4E2M1, {4}, {0x2, 0xD, 0x6, 0x7});
}

TEST(NnQuantizeKernel, QuantizeToInt4AndUint4RoundsThenClips) {
  // x / 2 = -10, -1.5, 1.5, 2.5, 10, 0.5 -> rint -10, -2, 2, 2, 10, 0; + 1, clipped to [-8, 7].
  KernelTest signed4("QuantizeLinear", 21);
  signed4.input(f32({6}, {-20, -3, 3, 5, 20, 1})).input(f32({}, {2})).input(codes(F::kInt4, {}, {1}));
  signed4.output(F::kInt4, {6});
  GE_RUN_KERNEL(a, signed4);
  expect_codes(a[0], F::kInt4, {6}, {0xF8, 0xFF, 3, 3, 7, 1});
  KernelTest unsigned4("QuantizeLinear", 21);
  unsigned4.input(f32({4}, {-1, 7, 15.5f, 40})).input(f32({}, {1})).input(codes(F::kUInt4, {}, {0}));
  unsigned4.output(F::kUInt4, {4});
  GE_RUN_KERNEL(b, unsigned4);
  expect_codes(b[0], F::kUInt4, {4}, {0, 7, 15, 15});
}

TEST(NnQuantizeKernel, QuantizeInt4PerAxis) {
  // Row 0: scale 1, zero point -8: 3 -> -5, -20 -> -28 clipped to -8. Row 1: scale 0.5,
  // zero point 2: 2.5 -> 5 + 2 = 7, 1 -> 2 + 2 = 4.
  KernelTest test("QuantizeLinear", 21);
  test.input(f32({2, 2}, {3, -20, 2.5f, 1})).input(f32({2}, {1, 0.5f})).input(codes(F::kInt4, {2}, {0xF8, 2}));
  test.attribute("axis", int64_t{0}).output(F::kInt4, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_codes(out[0], F::kInt4, {2, 2}, {0xFB, 0xF8, 7, 4});
}

TEST(NnQuantizeKernel, DequantizeFloat8AndFloat4) {
  // ONNX's test_dequantizelinear_e4m3fn_zero_point: 0, 0.5, 1, 448, -104 times 2.
  KernelTest e4m3("DequantizeLinear", 19);
  e4m3.input(codes(F::kFloat8E4M3FN, {5}, {0x00, 0x30, 0x38, 0x7E, 0xED})).input(f32({}, {2}));
  e4m3.input(codes(F::kFloat8E4M3FN, {1}, {0})).attribute("axis", int64_t{0}).output(F::kFloat32, {5});
  GE_RUN_KERNEL(a, e4m3);
  expect_tensor<float>(a[0], {5}, {0, 1, 2, 896, -208}, 0);
  KernelTest e5m2("DequantizeLinear", 19);
  e5m2.input(codes(F::kFloat8E5M2, {3}, {0x7C, 0x7F, 0xC2})).input(f32({}, {0.5f})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(b, e5m2);
  ASSERT_EQ(b[0].element_count(), 3);  // expect_tensor cannot compare infinities
  EXPECT_EQ(b[0].data<float>()[0], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(b[0].data<float>()[1]));
  EXPECT_EQ(b[0].data<float>()[2], -1.5f);
  KernelTest float4("DequantizeLinear", 23);
  float4.input(codes(F::kFloat4E2M1, {2}, {0x7, 0xB})).input(f32({}, {0.5f})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(c, float4);
  expect_tensor<float>(c[0], {2}, {3, -0.75f}, 0);
}

TEST(NnQuantizeKernel, DequantizeBlockedInt4Weights) {
  // X int4 [2, 4], axis 1, block_size 2: scale and zero point [2, 2].
  KernelTest test("DequantizeLinear", 21);
  test.input(codes(F::kInt4, {2, 4}, {0xF8, 0xFF, 3, 7, 0, 5, 0xFC, 2}))
      .input(f32({2, 2}, {0.5f, 2, 1, 0.25f}))
      .input(codes(F::kInt4, {2, 2}, {0, 1, 0xFF, 2}));
  test.attribute("axis", int64_t{1}).attribute("block_size", int64_t{2}).output(F::kFloat32, {2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 4}, {-4, -0.5f, 4, 12, 1, 6, -1.5f, 0}, 0);
}

TEST(NnQuantizeKernel, DequantizeUint4PerAxis) {
  KernelTest test("DequantizeLinear", 21);
  test.input(codes(F::kUInt4, {2, 2}, {15, 0, 3, 8})).input(f32({2}, {0.5f, 2})).input(codes(F::kUInt4, {2}, {8, 0}));
  test.attribute("axis", int64_t{0}).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {3.5f, -4, 6, 16}, 0);
}

TEST(NnQuantizeKernel, Float8QuantizeDequantizeRoundTrip) {
  // x / 0.5 = 0.6, -3.4, 200, 2e6 -> E4M3FN 0.625 (0x32), -3.5 (0xC6), 192 (0x74, 12.5
  // steps of 16 tie to even), 448 (0x7E); times 0.5 again.
  KernelTest quantize("QuantizeLinear", 19);
  quantize.input(f32({4}, {0.3f, -1.7f, 100, 1e6f})).input(f32({}, {0.5f}));
  quantize.input(codes(F::kFloat8E4M3FN, {}, {0})).output(F::kFloat8E4M3FN, {4});
  GE_RUN_KERNEL(q, quantize);
  expect_codes(q[0], F::kFloat8E4M3FN, {4}, {0x32, 0xC6, 0x74, 0x7E});
  KernelTest dequantize("DequantizeLinear", 19);
  dequantize.input(q[0]).input(f32({}, {0.5f})).input(codes(F::kFloat8E4M3FN, {}, {0})).output(F::kFloat32, {4});
  GE_RUN_KERNEL(dq, dequantize);
  expect_tensor<float>(dq[0], {4}, {0.3125f, -1.75f, 96, 224}, 0);
}

TEST(NnQuantizeKernel, HalfScales) {
  // float16 x and scale (0.5 = 0x3800): 3 / 0.5 = 6, -1 / 0.5 = -2.
  KernelTest half_x("QuantizeLinear", 19);
  half_x.input(half_bits(F::kFloat16, {2}, {0x4200, 0xBC00})).input(half_bits(F::kFloat16, {}, {0x3800}));
  half_x.input(tensor<int8_t>({}, {0})).output(F::kInt8, {2});
  GE_RUN_KERNEL(a, half_x);
  expect_tensor<int8_t>(a[0], {2}, {6, -2});
  // bfloat16 x and scale (3 = 0x4040, -1 = 0xBF80, 0.5 = 0x3F00).
  KernelTest bfloat_x("QuantizeLinear", 19);
  bfloat_x.input(half_bits(F::kBFloat16, {2}, {0x4040, 0xBF80})).input(half_bits(F::kBFloat16, {}, {0x3F00}));
  bfloat_x.input(tensor<int8_t>({}, {0})).output(F::kInt8, {2});
  GE_RUN_KERNEL(b, bfloat_x);
  expect_tensor<int8_t>(b[0], {2}, {6, -2});
  // DequantizeLinear's output has the scale's type: 10 * 0.5 = 5, -4 * 0.5 = -2.
  KernelTest half_y("DequantizeLinear", 19);
  half_y.input(tensor<int8_t>({2}, {10, -4})).input(half_bits(F::kFloat16, {}, {0x3800})).output(F::kFloat16, {2});
  GE_RUN_KERNEL(c, half_y);
  expect_half_bits(c[0], F::kFloat16, {2}, {0x4500, 0xC000});
  KernelTest bfloat_y("DequantizeLinear", 21);
  bfloat_y.input(codes(F::kInt4, {2}, {5, 0xFC})).input(half_bits(F::kBFloat16, {}, {0x4000}));
  bfloat_y.output(F::kBFloat16, {2});
  GE_RUN_KERNEL(d, bfloat_y);
  expect_half_bits(d[0], F::kBFloat16, {2}, {0x4120, 0xC100});  // 10, -8
  KernelTest float64_scale("QuantizeLinear", 19);
  float64_scale.input(f32({1}, {1})).input(f64({}, {1})).output(F::kUInt8, {1});
  expect_prepare_error(float64_scale, StatusCode::kUnsupported, "a scale of dtype float64");
}

// QuantizeLinear-23 divides in the scale's precision unless `precision` says otherwise:
// 2049 / 1 is 2048 in float16 (whose spacing there is 2) and 2049 in float32.
TEST(NnQuantizeKernel, Precision23RoundsTheQuotient) {
  const uint16_t one = 0x3C00;
  struct Row {
    int64_t opset, precision;
    int16_t expected;
  };
  for (const Row& row : {Row{23, 0, 2048}, Row{23, 10, 2048}, Row{23, 1, 2049}, Row{21, 0, 2049}}) {
    KernelTest q("QuantizeLinear", row.opset);
    q.input(f32({1}, {2049})).input(half_bits(F::kFloat16, {}, {one})).input(tensor<int16_t>({}, {0}));
    if (row.precision != 0) q.attribute("precision", Attribute(row.precision));
    q.output(F::kInt16, {1});
    GE_RUN_KERNEL(y, q);
    expect_tensor<int16_t>(y[0], {1}, {row.expected});
  }
  // bfloat16 keeps 8 significant bits: 2049 -> 2048; 257 -> 256. The operands are rounded
  // before the division: 2049 / 3 is 683 in float32, but 2048 / 3 = 682.67 -> 683 in
  // bfloat16 (spacing 4 there: 684), and in float16 (spacing 0.5) 682.5 -> 682.
  KernelTest bf("QuantizeLinear", 23);
  bf.input(f32({3}, {2049, 257, 2049})).input(f32({}, {1})).input(tensor<int16_t>({}, {0}));
  bf.attribute("precision", Attribute(int64_t{16})).output(F::kInt16, {3});
  GE_RUN_KERNEL(b, bf);
  expect_tensor<int16_t>(b[0], {3}, {2048, 256, 2048});
  KernelTest third("QuantizeLinear", 23);
  third.input(f32({1}, {2049})).input(half_bits(F::kFloat16, {}, {0x4200})).input(tensor<int16_t>({}, {0}));
  third.output(F::kInt16, {1});
  GE_RUN_KERNEL(t, third);
  expect_tensor<int16_t>(t[0], {1}, {682});
  KernelTest bad("QuantizeLinear", 23);
  bad.input(f32({1}, {1})).input(f32({}, {1})).attribute("precision", Attribute(int64_t{7})).output(F::kUInt8, {1});
  expect_prepare_error(bad, StatusCode::kInvalidArgument, "must be float (1), float16 (10) or bfloat16 (16)");
}

TEST(NnQuantizeKernel, DynamicQuantize) {
  // Range [-3, 2]: scale 5 / 255, zero point round(3 / scale) = 153.
  KernelTest test("DynamicQuantizeLinear", 11);
  test.input(f32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f}));
  test.output(F::kUInt8, {6}).output(F::kFloat32, {}).output(F::kUInt8, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {6}, {153, 255, 0, 26, 221, 179});
  expect_tensor<float>(out[1], {}, {0.019607844f}, 1e-7);
  expect_tensor<uint8_t>(out[2], {}, {153});
}

TEST(NnQuantizeKernel, DynamicQuantizeAllZeros) {
  // An empty range would divide by zero: the scale is 1, as in ONNX Runtime.
  KernelTest test("DynamicQuantizeLinear", 11);
  test.input(f32({2}, {0, 0})).output(F::kUInt8, {2}).output(F::kFloat32, {}).output(F::kUInt8, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<uint8_t>(out[0], {2}, {0, 0});
  expect_tensor<float>(out[1], {}, {1});
  expect_tensor<uint8_t>(out[2], {}, {0});
}

// The vectorised loops (16 elements a step, a scalar tail) against the formula written out
// here: lengths that are not multiples of 16, halves, NaN, infinities, saturation.
std::vector<float> awkward_values(int64_t count, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-300.0f, 300.0f);
  std::vector<float> x(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    switch (i % 7) {
      case 0:
        x[i] = (std::floor(dist(rng)) + 0.5f) * scale;
        break;  // exact halves after the division
      case 1:
        x[i] = dist(rng) * scale * 4;
        break;  // often saturates
      default:
        x[i] = dist(rng) * scale;
    }
  }
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[20] = std::numeric_limits<float>::infinity();
  x[37] = -std::numeric_limits<float>::infinity();
  x[38] = -0.0f;
  return x;
}

template <typename Y>
Y expected_quantized(float x, float scale, float zero_point) {
  const float rounded = std::nearbyint(x / scale) + zero_point;
  if (std::isnan(rounded)) return Y(0);
  const float low = std::numeric_limits<Y>::lowest(), high = std::numeric_limits<Y>::max();
  return static_cast<Y>(rounded < low ? low : (rounded > high ? high : rounded));
}

TEST(NnQuantizeKernel, QuantizeVectorLoopsMatchTheFormula) {
  for (const int64_t count : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{77}, int64_t{1000}}) {
    const int64_t n = std::max<int64_t>(count, 40);
    const std::vector<float> x = awkward_values(n, 0.37f, static_cast<uint32_t>(count));
    KernelTest u8("QuantizeLinear", 13);
    u8.input(f32({n}, x)).input(f32({}, {0.37f})).input(tensor<uint8_t>({}, {113})).output(F::kUInt8, {n});
    GE_RUN_KERNEL(out, u8);
    std::vector<uint8_t> want;
    for (float v : x) want.push_back(expected_quantized<uint8_t>(v, 0.37f, 113));
    expect_tensor<uint8_t>(out[0], {n}, want);
    // int8, per axis over [2, n / 2]... as [2, 1, n]: axis 0 with two scales and zero points.
    KernelTest s8("QuantizeLinear", 13);
    std::vector<float> doubled = x;
    doubled.insert(doubled.end(), x.begin(), x.end());
    s8.input(f32({2, 1, n}, doubled)).input(f32({2}, {0.37f, 1.1f})).input(tensor<int8_t>({2}, {-7, 5}));
    s8.attribute("axis", Attribute(int64_t{0})).output(F::kInt8, {2, 1, n});
    GE_RUN_KERNEL(out8, s8);
    std::vector<int8_t> want8;
    for (float v : x) want8.push_back(expected_quantized<int8_t>(v, 0.37f, -7));
    for (float v : x) want8.push_back(expected_quantized<int8_t>(v, 1.1f, 5));
    expect_tensor<int8_t>(out8[0], {2, 1, n}, want8);
  }
}

TEST(NnQuantizeKernel, DequantizeVectorLoopsMatchTheFormula) {
  const int64_t n = 83;
  std::vector<uint8_t> u(n);
  std::vector<int8_t> s(n);
  for (int64_t i = 0; i < n; ++i) {
    u[i] = static_cast<uint8_t>((i * 37) % 256);
    s[i] = static_cast<int8_t>((i * 53) % 256 - 128);
  }
  KernelTest du("DequantizeLinear", 13);
  du.input(tensor<uint8_t>({n}, u)).input(f32({}, {0.013f})).input(tensor<uint8_t>({}, {200})).output(F::kFloat32, {n});
  GE_RUN_KERNEL(out, du);
  std::vector<float> want;
  for (uint8_t v : u) want.push_back(static_cast<float>(static_cast<int32_t>(v) - 200) * 0.013f);
  expect_tensor<float>(out[0], {n}, want, 0);
  KernelTest ds("DequantizeLinear", 13);
  std::vector<int8_t> doubled = s;
  doubled.insert(doubled.end(), s.begin(), s.end());
  ds.input(tensor<int8_t>({2, n}, doubled)).input(f32({2}, {0.5f, 3.25f})).input(tensor<int8_t>({2}, {-3, 9}));
  ds.attribute("axis", Attribute(int64_t{0})).output(F::kFloat32, {2, n});
  GE_RUN_KERNEL(out8, ds);
  std::vector<float> want8;
  for (int8_t v : s) want8.push_back(static_cast<float>(static_cast<int32_t>(v) + 3) * 0.5f);
  for (int8_t v : s) want8.push_back(static_cast<float>(static_cast<int32_t>(v) - 9) * 3.25f);
  expect_tensor<float>(out8[0], {2, n}, want8, 0);
}

TEST(NnQuantizeKernel, DynamicQuantizeVectorLoopsMatchTheSpec) {
  // The range of x (NaN ignored) with 0, scale = range / 255, zero point = round(-min /
  // scale) saturated, then x quantised with them.
  for (const int64_t n : {int64_t{40}, int64_t{1001}}) {
    std::vector<float> x = awkward_values(n, 0.05f, 9);
    x[20] = 4.0f;  // finite: an infinite range gives a NaN scale
    x[37] = -6.5f;
    x[3] = 1.25f;
    float low = 0, high = 0;
    for (float v : x) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
    const float scale = (high - low) / 255.0f;
    const auto zero = static_cast<uint8_t>(std::nearbyint(std::clamp(0.0f - low / scale, 0.0f, 255.0f)));
    KernelTest test("DynamicQuantizeLinear", 11);
    test.input(f32({n}, x)).output(F::kUInt8, {n}).output(F::kFloat32, {}).output(F::kUInt8, {});
    GE_RUN_KERNEL(out, test);
    std::vector<uint8_t> want;
    for (float v : x) want.push_back(expected_quantized<uint8_t>(v, scale, zero));
    expect_tensor<uint8_t>(out[0], {n}, want);
    expect_tensor<float>(out[1], {}, {scale}, 0);
    expect_tensor<uint8_t>(out[2], {}, {zero});
  }
}

TEST(NnQuantizeKernel, RefusesConstantScalesThatAreNotPositiveAndFinite) {
  KernelTest quantize("QuantizeLinear", 13);
  quantize.input(f32({2}, {1, 2})).initializer(f32({}, {0})).output(F::kUInt8, {2});
  Result<PreparedKernel> q = quantize.prepare();
  ASSERT_FALSE(q.is_ok());
  EXPECT_NE(q.status().to_string().find("QuantizeLinear"), std::string::npos) << q.status().to_string();
  EXPECT_NE(q.status().to_string().find("'y_scale' has value 0: a scale must be finite and > 0"), std::string::npos)
      << q.status().to_string();
  KernelTest dequantize("DequantizeLinear", 13);
  dequantize.input(tensor<int8_t>({1, 2}, {1, 2}))
      .initializer(f32({2}, {0.5f, -1}))
      .initializer(tensor<int8_t>({2}, {0, 0}))
      .output(F::kFloat32, {1, 2});
  Result<PreparedKernel> d = dequantize.prepare();
  ASSERT_FALSE(d.is_ok());
  EXPECT_NE(d.status().to_string().find("'x_scale' has element 1 = -1"), std::string::npos) << d.status().to_string();
  // A runtime scale is the kernel's input, read at launch: not refused here.
  KernelTest runtime("QuantizeLinear", 13);
  runtime.input(f32({2}, {1, 2})).input(f32({}, {0})).output(F::kUInt8, {2});
  EXPECT_TRUE(runtime.prepare().is_ok());
}

TEST(NnQuantizeKernel, RefusesAZeroPointOfAnotherDtypeOrShape) {
  KernelTest dtype("DequantizeLinear", 13);
  dtype.input(tensor<int8_t>({2}, {1, 2})).initializer(f32({}, {1})).initializer(tensor<uint8_t>({}, {0}));
  dtype.output(F::kFloat32, {2});
  EXPECT_FALSE(dtype.prepare().is_ok());
  KernelTest shape("QuantizeLinear", 13);
  shape.input(f32({1, 2}, {1, 2})).initializer(f32({2}, {1, 1})).initializer(tensor<uint8_t>({3}, {0, 0, 0}));
  shape.output(F::kUInt8, {1, 2});
  Result<PreparedKernel> s = shape.prepare();
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.status().to_string().find("zero point [3] must have the shape of scale [2]"), std::string::npos)
      << s.status().to_string();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
