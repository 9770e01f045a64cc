// Cast and CastLike. Expected values from numpy's astype and str() (/usr/bin/python3) or
// worked out from the float formats by hand.

#include <gtest/gtest.h>

#include <limits>

#include "math_cast.h"
#include "math_test_util.h"

namespace ge::cpu_kernels::testing {
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

}  // namespace
}  // namespace ge::cpu_kernels::testing
