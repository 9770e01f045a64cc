// Cast and CastLike. Expected values from numpy's astype and str() (/usr/bin/python3) or
// worked out from the float formats by hand.

#include <gtest/gtest.h>

#include <limits>

#include "math/math_cast.h"
#include "testing/math_test_util.h"
#include "testing/narrow_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

// The `to` attribute naming `dtype`.
Attribute to(F dtype) { return static_cast<int64_t>(dtype); }

TEST(MathCastKernel, FloatToIntTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  KernelTest test("Cast");
  test.attribute("to", to(F::kInt32));
  test.input(f32({4}, {-1.9f, 2.7f, 1e10f, nan})).output(F::kInt32, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {4}, {-1, 2, std::numeric_limits<int32_t>::max(), 0});
}

TEST(MathCastKernel, IntegersWrapAndBoolIsNonZero) {
  KernelTest narrow("Cast");
  narrow.attribute("to", to(F::kUInt8));
  narrow.input(i32({3}, {300, -1, 7})).output(F::kUInt8, {3});
  GE_RUN_KERNEL(n, narrow);
  expect_tensor<uint8_t>(n[0], {3}, {44, 255, 7});
  KernelTest to_bool("Cast");
  to_bool.attribute("to", to(F::kBool));
  to_bool.input(f32({3}, {0, -0.5f, 2})).output(F::kBool, {3});
  GE_RUN_KERNEL(b, to_bool);
  expect_bools(b[0], {3}, {0, 1, 1});
  KernelTest from_bool("Cast");
  from_bool.attribute("to", to(F::kFloat64));
  from_bool.input(bools({2}, {1, 0})).output(F::kFloat64, {2});
  GE_RUN_KERNEL(d, from_bool);
  expect_tensor<double>(d[0], {2}, {1, 0});
}

TEST(MathCastKernel, ToFloat16RoundsToNearestEven) {
  // np.float16([0.1, 65520, 1e-8]): 0x2e66, inf (0x7c00), 0
  KernelTest from_float("Cast");
  from_float.attribute("to", to(F::kFloat16));
  from_float.input(f32({3}, {0.1f, 65520.0f, 1e-8f})).output(F::kFloat16, {3});
  GE_RUN_KERNEL(h, from_float);
  expect_half_bits(h[0], F::kFloat16, {3}, {0x2e66, 0x7c00, 0x0000});
  // From double the value is rounded once: 1 + 2^-11 + 2^-40 is just above a tie.
  KernelTest from_double("Cast");
  from_double.attribute("to", to(F::kFloat16));
  from_double.input(f64({1}, {1.0 + 0x1p-11 + 0x1p-40})).output(F::kFloat16, {1});
  GE_RUN_KERNEL(d, from_double);
  expect_half_bits(d[0], F::kFloat16, {1}, {0x3c01});
}

TEST(MathCastKernel, Float16ToFloatAndInt) {
  KernelTest to_float("Cast");
  to_float.attribute("to", to(F::kFloat32));
  to_float.input(half_bits(F::kFloat16, {3}, {0x3e00, 0x0001, 0xfc00})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(f, to_float);
  expect_exact<float>(f[0], {3}, {1.5f, 0x1p-24f, -std::numeric_limits<float>::infinity()});
  KernelTest to_int("Cast");
  to_int.attribute("to", to(F::kInt64));
  to_int.input(half_bits(F::kFloat16, {2}, {0x3e00, 0xc248})).output(F::kInt64, {2});  // 1.5, -3.140625
  GE_RUN_KERNEL(i, to_int);
  expect_tensor<int64_t>(i[0], {2}, {1, -3});
}

TEST(MathCastKernel, FloatToBFloat16Truncates) {
  // 0.48033667f is 0x3ef5eeb0: ONNX's reference keeps the upper half, 0x3ef5 (rounding
  // would give 0x3ef6).
  KernelTest test("Cast");
  test.attribute("to", to(F::kBFloat16));
  test.input(f32({2}, {0.48033667f, -3.0f})).output(F::kBFloat16, {2});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kBFloat16, {2}, {0x3ef5, 0xc040});
  KernelTest back("Cast");
  back.attribute("to", to(F::kFloat32));
  back.input(half_bits(F::kBFloat16, {1}, {0x3ef5})).output(F::kFloat32, {1});
  GE_RUN_KERNEL(b, back);
  expect_exact<float>(b[0], {1}, {0.478515625f});  // 0x3ef50000
}

TEST(MathCastKernel, NumbersToStringsPrintLikeNumpy) {
  // str(np.float32(v)) for each v
  const float inf = std::numeric_limits<float>::infinity();
  KernelTest floats("Cast");
  floats.attribute("to", to(F::kString));
  floats.input(f32({10}, {0.039187793f, 1.0f, 1e-5f, 123456.79f, -0.0f, inf, -inf, 1e16f, 3e-4f, 100.0f}))
      .output(F::kString, {10});
  GE_RUN_KERNEL(f, floats);
  expect_strings(f[0], {10},
                 {"0.039187793", "1.0", "1e-05", "123456.79", "-0.0", "inf", "-inf", "1e+16", "0.0003", "100.0"});
  // str(np.float64(v))
  KernelTest doubles("Cast");
  doubles.attribute("to", to(F::kString));
  doubles.input(f64({4}, {0.1, 1e22, 1.5e-7, 1.0 / 3})).output(F::kString, {4});
  GE_RUN_KERNEL(d, doubles);
  expect_strings(d[0], {4}, {"0.1", "1e+22", "1.5e-07", "0.3333333333333333"});
  // str(np.float16(v)) for v = 0.1, 65504, 1e-7 (0x0002), 3.14
  KernelTest halves("Cast");
  halves.attribute("to", to(F::kString));
  halves.input(half_bits(F::kFloat16, {4}, {0x2e66, 0x7bff, 0x0002, 0x4248})).output(F::kString, {4});
  GE_RUN_KERNEL(h, halves);
  expect_strings(h[0], {4}, {"0.1", "65500.0", "1e-07", "3.14"});
  KernelTest ints("Cast");
  ints.attribute("to", to(F::kString));
  ints.input(i64({2}, {-42, 9000000000LL})).output(F::kString, {2});
  GE_RUN_KERNEL(i, ints);
  expect_strings(i[0], {2}, {"-42", "9000000000"});
  KernelTest booleans("Cast");
  booleans.attribute("to", to(F::kString));
  booleans.input(bools({2}, {1, 0})).output(F::kString, {2});
  GE_RUN_KERNEL(b, booleans);
  expect_strings(b[0], {2}, {"True", "False"});
}

TEST(MathCastKernel, StringsToNumbers) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  KernelTest floats("Cast");
  floats.attribute("to", to(F::kFloat32));
  floats.input(strings({7}, {"0.47892547", "NaN", "INF", "+INF", "-INF", " 2.5 ", "-1e-3"})).output(F::kFloat32, {7});
  GE_RUN_KERNEL(f, floats);
  expect_exact<float>(f[0], {7}, {0.47892547f, nan, inf, inf, -inf, 2.5f, -1e-3f});
  KernelTest ints("Cast");
  ints.attribute("to", to(F::kInt64));
  ints.input(strings({4}, {"12", "-7", "1.9", "+3"})).output(F::kInt64, {4});
  GE_RUN_KERNEL(i, ints);
  expect_tensor<int64_t>(i[0], {4}, {12, -7, 1, 3});
  KernelTest booleans("Cast");
  booleans.attribute("to", to(F::kBool));
  booleans.input(strings({4}, {"True", "false", "0", "2"})).output(F::kBool, {4});
  GE_RUN_KERNEL(b, booleans);
  expect_bools(b[0], {4}, {1, 0, 0, 1});
  KernelTest halves("Cast");
  halves.attribute("to", to(F::kFloat16));
  halves.input(strings({1}, {"0.1"})).output(F::kFloat16, {1});
  GE_RUN_KERNEL(h, halves);
  expect_half_bits(h[0], F::kFloat16, {1}, {0x2e66});
}

TEST(MathCastKernel, UnparsableStringFailsTheLaunch) {
  KernelTest test("Cast");
  test.attribute("to", to(F::kFloat32));
  test.input(strings({2}, {"1", "one"})).output(F::kFloat32, {2});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, math::kKernelCastUnparsableString);
}

TEST(MathCastKernel, StringToString) {
  KernelTest test("Cast");
  test.attribute("to", to(F::kString));
  test.input(strings({2}, {"x", ""})).output(F::kString, {2});
  GE_RUN_KERNEL(out, test);
  expect_strings(out[0], {2}, {"x", ""});
}

TEST(MathCastKernel, CastLikeTakesTheSecondInputsDtype) {
  KernelTest test("CastLike", 15);
  test.input(i32({3}, {1, -2, 3})).input(f64({1}, {0})).output(F::kFloat64, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {3}, {1, -2, 3});
}

TEST(MathCastKernel, ToIsRequiredAndMustBeAKnownDtype) {
  KernelTest missing("Cast");
  missing.input(f32({1}, {1})).output(F::kFloat32, {1});
  expect_prepare_error(missing, StatusCode::kInvalidArgument, "attribute 'to' is required");
  KernelTest unknown("Cast");
  unknown.input(f32({1}, {1})).attribute("to", int64_t{99}).output(F::kFloat32, {1});
  expect_prepare_error(unknown, StatusCode::kInvalidArgument, "not a known dtype");
  KernelTest complex_target("Cast");
  complex_target.input(f32({1}, {1})).attribute("to", int64_t{14}).output(F::kComplex64, {1});
  expect_prepare_error(complex_target, StatusCode::kUnsupported, "cast to complex64");
}

// ---- the 4- and 8-bit types (opsets 19-23); codes worked out by hand from the formats ----

// The output of Cast of `input` to `dtype` at opset 21, with `saturate` when >= 0.
Tensor cast_to(Tensor input, F dtype, int saturate = -1) {
  KernelTest test("Cast", 21);
  const std::vector<int64_t> dims = input.shape();
  test.attribute("to", to(dtype)).input(std::move(input)).output(dtype, dims);
  if (saturate >= 0) test.attribute("saturate", int64_t{saturate});
  Result<std::vector<Tensor>> outputs = test.run();
  EXPECT_TRUE(outputs.is_ok()) << outputs.status().to_string();
  return outputs.is_ok() ? std::move(outputs).value()[0] : Tensor();
}

TEST(MathCastKernel, FloatToFloat8E4M3FNRoundsToNearestEvenAndSaturates) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 1 = 0x38, -2 = 0xC0, 1.0625 ties down to 1 (even), 1.1875 ties up to 1.25 = 0x3A,
  // 2^-9 is the least subnormal 0x01, -0 keeps its sign; 500, -1000 and inf overflow 448.
  const std::vector<float> x = {1, -2, 1.0625f, 1.1875f, 0.001953125f, -0.0f, 500, -1000, inf, nan};
  const Tensor s = cast_to(f32({10}, x), F::kFloat8E4M3FN);
  expect_codes(s, F::kFloat8E4M3FN, {10}, {0x38, 0xC0, 0x38, 0x3A, 0x01, 0x80, 0x7E, 0xFE, 0x7E, 0x7F});
  const Tensor w = cast_to(f32({10}, x), F::kFloat8E4M3FN, 0);
  expect_codes(w, F::kFloat8E4M3FN, {10}, {0x38, 0xC0, 0x38, 0x3A, 0x01, 0x80, 0x7F, 0xFF, 0x7F, 0x7F});
}

TEST(MathCastKernel, FloatToTheOtherFloat8Formats) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // E4M3FNUZ: 1 = 0x40, -1 = 0xC0, no -0, 300 > 240 overflows, NaN is 0x80.
  const std::vector<float> uz = {1, -1, -0.0f, 300, nan};
  const Tensor a = cast_to(f32({5}, uz), F::kFloat8E4M3FNUZ);
  expect_codes(a, F::kFloat8E4M3FNUZ, {5}, {0x40, 0xC0, 0x00, 0x7F, 0x80});
  const Tensor b = cast_to(f32({5}, uz), F::kFloat8E4M3FNUZ, 0);
  expect_codes(b, F::kFloat8E4M3FNUZ, {5}, {0x40, 0xC0, 0x00, 0x80, 0x80});
  // E5M2: 1 = 0x3C, -2 = 0xC0, 60000 rounds to 57344 = 0x7B, 70000 overflows: 0x7B
  // saturating, else infinity 0x7C / 0xFC.
  const std::vector<float> e5 = {1, -2, 60000, 70000, -70000, inf, nan};
  const Tensor c = cast_to(f32({7}, e5), F::kFloat8E5M2);
  expect_codes(c, F::kFloat8E5M2, {7}, {0x3C, 0xC0, 0x7B, 0x7B, 0xFB, 0x7B, 0x7F});
  const Tensor d = cast_to(f32({7}, e5), F::kFloat8E5M2, 0);
  expect_codes(d, F::kFloat8E5M2, {7}, {0x3C, 0xC0, 0x7B, 0x7C, 0xFC, 0x7C, 0x7F});
  // E5M2FNUZ: 1 = 0x40; overflow gives 0x7F / 0xFF saturating, else NaN 0x80.
  const std::vector<float> e5uz = {1, 70000, -inf};
  const Tensor e = cast_to(f32({3}, e5uz), F::kFloat8E5M2FNUZ);
  expect_codes(e, F::kFloat8E5M2FNUZ, {3}, {0x40, 0x7F, 0xFF});
  const Tensor f = cast_to(f32({3}, e5uz), F::kFloat8E5M2FNUZ, 0);
  expect_codes(f, F::kFloat8E5M2FNUZ, {3}, {0x40, 0x80, 0x80});
}

TEST(MathCastKernel, ToFloat4E2M1AlwaysSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6; sign 0x08. 5 ties to 4 (even), 0.25 to 0,
  // 0.75 to 1; 100 and NaN give 6, -100 gives -6, with saturate=0 too.
  const std::vector<float> x = {1, -1.5f, 5, 0.25f, 0.75f, 100, -100, nan};
  for (int saturate : {1, 0}) {
    const Tensor out = cast_to(f32({8}, x), F::kFloat4E2M1, saturate);
    expect_codes(out, F::kFloat4E2M1, {8}, {0x2, 0xB, 0x6, 0x0, 0x2, 0x7, 0xF, 0x7});
  }
}

TEST(MathCastKernel, ToInt4ClipsThenRoundsHalfToEven) {
  // int4 is held sign-extended: -2 = 0xFE, -8 = 0xF8.
  const Tensor a = cast_to(f32({8}, {2.5f, 3.5f, -2.5f, -8.5f, 7.5f, 100, -100, 0.5f}), F::kInt4);
  expect_codes(a, F::kInt4, {8}, {2, 4, 0xFE, 0xF8, 7, 7, 0xF8, 0});
  const Tensor b = cast_to(f32({5}, {-1, 15.5f, 7.5f, 0.5f, 1.5f}), F::kUInt4);
  expect_codes(b, F::kUInt4, {5}, {0, 15, 8, 0, 2});
  // Integers clip (they do not wrap as int32 -> int8 does).
  const Tensor c = cast_to(i32({4}, {300, -300, -3, 5}), F::kInt4);
  expect_codes(c, F::kInt4, {4}, {7, 0xF8, 0xFD, 5});
  const Tensor d = cast_to(i64({3}, {20, -1, 9}), F::kUInt4);
  expect_codes(d, F::kUInt4, {3}, {15, 0, 9});
}

TEST(MathCastKernel, FromFloat8AndFloat4DecodeToFloat) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = cast_to(codes(F::kFloat8E4M3FN, {5}, {0x38, 0xC0, 0x7F, 0x01, 0x7E}), F::kFloat32);
  expect_tensor<float>(a, {5}, {1, -2, nan, 0.001953125f, 448}, 0);
  const Tensor b = cast_to(codes(F::kFloat8E5M2, {3}, {0x7C, 0xFC, 0x3D}), F::kFloat32);
  ASSERT_EQ(b.element_count(), 3);  // expect_tensor cannot compare infinities
  EXPECT_EQ(b.data<float>()[0], inf);
  EXPECT_EQ(b.data<float>()[1], -inf);
  EXPECT_EQ(b.data<float>()[2], 1.25f);
  const Tensor c = cast_to(codes(F::kFloat8E4M3FNUZ, {3}, {0x80, 0x40, 0x7F}), F::kFloat64);
  expect_tensor<double>(c, {3}, {nan, 1, 240}, 0);
  // To integers as from float32: truncation toward zero.
  const Tensor d = cast_to(codes(F::kFloat8E4M3FN, {3}, {0x3C, 0xBC, 0x7E}), F::kInt32);
  expect_tensor<int32_t>(d, {3}, {1, -1, 448});
  const Tensor e = cast_to(codes(F::kFloat4E2M1, {4}, {0x1, 0x7, 0xD, 0x8}), F::kFloat32);
  expect_tensor<float>(e, {4}, {0.5f, 6, -3, -0.0f}, 0);
  const Tensor f = cast_to(codes(F::kFloat8E4M3FN, {2}, {0x38, 0xC0}), F::kFloat16);
  expect_half_bits(f, F::kFloat16, {2}, {0x3C00, 0xC000});
}

TEST(MathCastKernel, FromInt4AndUint4AreTheirIntegers) {
  const Tensor a = cast_to(codes(F::kInt4, {3}, {0xF8, 0x07, 0xFF}), F::kFloat32);
  expect_tensor<float>(a, {3}, {-8, 7, -1}, 0);
  const Tensor b = cast_to(codes(F::kUInt4, {2}, {15, 0}), F::kInt8);
  expect_tensor<int8_t>(b, {2}, {15, 0});
  const Tensor c = cast_to(codes(F::kInt4, {2}, {0, 0xF8}), F::kBool);
  expect_bools(c, {2}, {0, 1});
}

TEST(MathCastKernel, BetweenNarrowTypesAndFromFloat16) {
  // E5M2 infinity to E4M3FN: 448 saturating, NaN otherwise; 1.5 (0x3E) is 0x3C.
  const Tensor a = cast_to(codes(F::kFloat8E5M2, {2}, {0x7C, 0x3E}), F::kFloat8E4M3FN);
  expect_codes(a, F::kFloat8E4M3FN, {2}, {0x7E, 0x3C});
  const Tensor b = cast_to(codes(F::kFloat8E5M2, {2}, {0x7C, 0x3E}), F::kFloat8E4M3FN, 0);
  expect_codes(b, F::kFloat8E4M3FN, {2}, {0x7F, 0x3C});
  // E4M3FN 448 to int4 clips to 7; int4 -8 to float4 saturates to -6 (0xF).
  const Tensor c = cast_to(codes(F::kFloat8E4M3FN, {1}, {0x7E}), F::kInt4);
  expect_codes(c, F::kInt4, {1}, {7});
  const Tensor d = cast_to(codes(F::kInt4, {2}, {0xF8, 3}), F::kFloat4E2M1);
  expect_codes(d, F::kFloat4E2M1, {2}, {0xF, 0x5});
  const Tensor e = cast_to(half_bits(F::kFloat16, {2}, {0x3C00, 0xC000}), F::kFloat8E4M3FN);
  expect_codes(e, F::kFloat8E4M3FN, {2}, {0x38, 0xC0});
}

TEST(MathCastKernel, CastLikeToFloat8) {
  KernelTest test("CastLike", 21);
  test.input(f32({2}, {0.5f, -448})).input(codes(F::kFloat8E4M3FN, {1}, {0})).output(F::kFloat8E4M3FN, {2});
  GE_RUN_KERNEL(out, test);
  expect_codes(out[0], F::kFloat8E4M3FN, {2}, {0x30, 0xFE});
}

TEST(MathCastKernel, StringAndNarrowTypesAreRefused) {
  KernelTest to_string("Cast", 21);
  to_string.attribute("to", to(F::kString)).input(codes(F::kInt4, {1}, {1})).output(F::kString, {1});
  expect_prepare_error(to_string, StatusCode::kUnsupported, "string casts of the 4- and 8-bit types");
  KernelTest from_string("Cast", 21);
  from_string.attribute("to", to(F::kFloat8E5M2)).input(strings({1}, {"1"})).output(F::kFloat8E5M2, {1});
  expect_prepare_error(from_string, StatusCode::kUnsupported, "string casts of the 4- and 8-bit types");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
