// One-input math kernels. Expected values from numpy (/usr/bin/python3) in float64 on
// the given inputs (np.exp, np.sin, np.round, ...), float16 bits from numpy's float16.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing/math_test_util.h"
#include "testing/narrow_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

TEST(MathUnaryKernel, NegAndAbsWrapAtTheLowestInteger) {
  KernelTest neg("Neg");
  neg.input(typed<int8_t>({3}, {-128, -5, 7})).output(F::kInt8, {3});
  GE_RUN_KERNEL(negated, neg);
  expect_tensor<int8_t>(negated[0], {3}, {-128, 5, -7});
  KernelTest abs("Abs");
  abs.input(typed<int8_t>({3}, {-128, -5, 7})).output(F::kInt8, {3});
  GE_RUN_KERNEL(absolute, abs);
  expect_tensor<int8_t>(absolute[0], {3}, {-128, 5, 7});
}

TEST(MathUnaryKernel, AbsOfUnsignedAndFloat) {
  KernelTest unsigned_abs("Abs");
  unsigned_abs.input(typed<uint16_t>({2}, {0, 65535})).output(F::kUInt16, {2});
  GE_RUN_KERNEL(u, unsigned_abs);
  expect_tensor<uint16_t>(u[0], {2}, {0, 65535});
  KernelTest float_abs("Abs");
  float_abs.input(f32({3}, {-1.5f, 0, 2})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(f, float_abs);
  expect_tensor<float>(f[0], {3}, {1.5f, 0, 2});
}

TEST(MathUnaryKernel, NegKeepsTheSignOfZero) {
  KernelTest test("Neg");
  test.input(f32({2}, {0.0f, -3})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  EXPECT_TRUE(std::signbit(out[0].data<float>()[0]));
  EXPECT_EQ(out[0].data<float>()[1], 3.0f);
}

TEST(MathUnaryKernel, SignOfFloatsIntsAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  KernelTest floats("Sign");
  floats.input(f32({4}, {-2.5f, 0, 3, nan})).output(F::kFloat32, {4});
  GE_RUN_KERNEL(f, floats);
  expect_tensor<float>(f[0], {4}, {-1, 0, 1, nan});
  KernelTest ints("Sign");
  ints.input(i64({3}, {-7, 0, 9})).output(F::kInt64, {3});
  GE_RUN_KERNEL(i, ints);
  expect_tensor<int64_t>(i[0], {3}, {-1, 0, 1});
}

TEST(MathUnaryKernel, ExpLogSqrtReciprocal) {
  KernelTest exp("Exp");
  exp.input(f32({3}, {0.5f, -1, 2})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(e, exp);
  expect_tensor<float>(e[0], {3}, {1.64872127f, 0.36787944f, 7.3890561f}, 1e-6);
  KernelTest log("Log");
  log.input(f64({3}, {0.5, 1, 10})).output(F::kFloat64, {3});
  GE_RUN_KERNEL(l, log);
  expect_tensor<double>(l[0], {3}, {-0.69314718056, 0, 2.302585093}, 1e-9);
  KernelTest sqrt("Sqrt");
  sqrt.input(f32({3}, {4, 2.25f, 0})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(s, sqrt);
  expect_tensor<float>(s[0], {3}, {2, 1.5f, 0});
  KernelTest reciprocal("Reciprocal");
  reciprocal.input(f32({3}, {4, -0.5f, 0})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(r, reciprocal);
  expect_exact<float>(r[0], {3}, {0.25f, -2, std::numeric_limits<float>::infinity()});
}

TEST(MathUnaryKernel, FloorCeilAndRoundHalfToEven) {
  KernelTest floor("Floor");
  floor.input(f32({3}, {-1.5f, 1.5f, 2})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(fl, floor);
  expect_tensor<float>(fl[0], {3}, {-2, 1, 2});
  KernelTest ceil("Ceil");
  ceil.input(f32({3}, {-1.5f, 1.5f, 2})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(ce, ceil);
  expect_tensor<float>(ce[0], {3}, {-1, 2, 2});
  // np.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.4]) = [0, 2, 2, -0, -2, 2]
  KernelTest round("Round");
  round.input(f32({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f})).output(F::kFloat32, {6});
  GE_RUN_KERNEL(ro, round);
  expect_tensor<float>(ro[0], {6}, {0, 2, 2, 0, -2, 2});
}

TEST(MathUnaryKernel, TrigonometricAndHyperbolic) {
  struct Case {
    const char* op;
    float x;
    float expected;
  };
  // np.sin(0.5), np.arccosh(2.0), ... in float64
  const Case cases[] = {{"Sin", 0.5f, 0.479425539f},  {"Cos", 0.5f, 0.877582562f},  {"Tan", 0.5f, 0.54630249f},
                        {"Asin", 0.5f, 0.523598776f}, {"Acos", 0.5f, 1.047197551f}, {"Atan", 0.5f, 0.463647609f},
                        {"Sinh", 0.5f, 0.521095305f}, {"Cosh", 0.5f, 1.127625965f}, {"Asinh", 0.5f, 0.481211825f},
                        {"Acosh", 2.0f, 1.316957897f}, {"Atanh", 0.5f, 0.549306144f}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    KernelTest test(c.op);
    test.input(f32({1}, {c.x})).output(F::kFloat32, {1});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {1}, {c.expected}, 1e-6);
  }
}

TEST(MathUnaryKernel, ErfOfFloatsAndIntegers) {
  // math.erf(1.0) = 0.8427007929, math.erf(-0.5) = -0.5204998778
  KernelTest floats("Erf");
  floats.input(f32({3}, {1, -0.5f, 0})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(f, floats);
  expect_tensor<float>(f[0], {3}, {0.8427007929f, -0.5204998778f, 0}, 1e-6);
  // erf of an integer is in (-1, 1): it truncates to 0.
  KernelTest ints("Erf");
  ints.input(i32({2}, {3, -3})).output(F::kInt32, {2});
  GE_RUN_KERNEL(i, ints);
  expect_tensor<int32_t>(i[0], {2}, {0, 0});
}

TEST(MathUnaryKernel, SqrtFloat16) {
  // np.sqrt(np.float16([4, 2, 0.25])).view(np.uint16) = [0x4000, 0x3da8, 0x3800]
  KernelTest test("Sqrt");
  test.input(half_bits(F::kFloat16, {3}, {0x4400, 0x4000, 0x3400})).output(F::kFloat16, {3});
  GE_RUN_KERNEL(out, test);
  expect_half_bits(out[0], F::kFloat16, {3}, {0x4000, 0x3da8, 0x3800});
}

TEST(MathUnaryKernel, IsNaNAndIsInf) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  KernelTest is_nan("IsNaN");
  is_nan.input(f32({4}, {1, nan, inf, -inf})).output(F::kBool, {4});
  GE_RUN_KERNEL(n, is_nan);
  expect_bools(n[0], {4}, {0, 1, 0, 0});
  KernelTest is_inf("IsInf");
  is_inf.input(f32({4}, {1, nan, inf, -inf})).output(F::kBool, {4});
  GE_RUN_KERNEL(both, is_inf);
  expect_bools(both[0], {4}, {0, 0, 1, 1});
  KernelTest positive("IsInf");
  positive.input(f32({4}, {1, nan, inf, -inf})).attribute("detect_negative", int64_t{0}).output(F::kBool, {4});
  GE_RUN_KERNEL(p, positive);
  expect_bools(p[0], {4}, {0, 0, 1, 0});
  KernelTest negative("IsInf");
  negative.input(f64({2}, {inf, -inf})).attribute("detect_positive", int64_t{0}).output(F::kBool, {2});
  GE_RUN_KERNEL(m, negative);
  expect_bools(m[0], {2}, {0, 1});
}

TEST(MathUnaryKernel, NotAndBitwiseNot) {
  KernelTest logical("Not");
  logical.input(bools({3}, {1, 0, 1})).output(F::kBool, {3});
  GE_RUN_KERNEL(l, logical);
  expect_bools(l[0], {3}, {0, 1, 0});
  KernelTest bitwise("BitwiseNot", 18);
  bitwise.input(typed<uint8_t>({2}, {0x0f, 0})).output(F::kUInt8, {2});
  GE_RUN_KERNEL(b, bitwise);
  expect_tensor<uint8_t>(b[0], {2}, {0xf0, 0xff});
  KernelTest signed_not("BitwiseNot", 18);
  signed_not.input(i32({2}, {0, 5})).output(F::kInt32, {2});
  GE_RUN_KERNEL(s, signed_not);
  expect_tensor<int32_t>(s[0], {2}, {-1, -6});
}

TEST(MathUnaryKernel, ExpOnIntegersIsUnsupported) {
  KernelTest test("Exp");
  test.input(i32({1}, {1})).output(F::kInt32, {1});
  expect_prepare_error(test, StatusCode::kUnsupported, "Exp 'node' with dtype int32");
}

TEST(MathUnaryKernel, OutputShapeMismatchIsInvalid) {
  KernelTest test("Neg");
  test.input(f32({2}, {1, 2})).output(F::kFloat32, {3});
  Result<PreparedKernel> kernel = test.prepare();
  EXPECT_FALSE(kernel.is_ok());
}

TEST(MathUnaryKernel, IsNaNAndIsInfOnFloat8) {
  // E4M3FN: 1, NaN (0x7F, 0xFF), 448; no infinity.
  KernelTest e4m3fn_nan("IsNaN", 20);
  e4m3fn_nan.input(codes(F::kFloat8E4M3FN, {4}, {0x38, 0x7F, 0xFF, 0x7E})).output(F::kBool, {4});
  GE_RUN_KERNEL(a, e4m3fn_nan);
  expect_bools(a[0], {4}, {0, 1, 1, 0});
  KernelTest e4m3fn_inf("IsInf", 20);
  e4m3fn_inf.input(codes(F::kFloat8E4M3FN, {4}, {0x38, 0x7F, 0xFF, 0x7E})).output(F::kBool, {4});
  GE_RUN_KERNEL(b, e4m3fn_inf);
  expect_bools(b[0], {4}, {0, 0, 0, 0});
  // E4M3FNUZ and E5M2FNUZ: 0x80 is the one NaN, 0x7F and 0xFF are finite.
  for (F dtype : {F::kFloat8E4M3FNUZ, F::kFloat8E5M2FNUZ}) {
    KernelTest nan("IsNaN", 20);
    nan.input(codes(dtype, {4}, {0x40, 0x80, 0x7F, 0xFF})).output(F::kBool, {4});
    GE_RUN_KERNEL(c, nan);
    expect_bools(c[0], {4}, {0, 1, 0, 0});
    KernelTest inf("IsInf", 20);
    inf.input(codes(dtype, {4}, {0x40, 0x80, 0x7C, 0xFF})).output(F::kBool, {4});
    GE_RUN_KERNEL(d, inf);
    expect_bools(d[0], {4}, {0, 0, 0, 0});
  }
  // E5M2: 1, +inf (0x7C), -inf (0xFC), NaN (0x7F, 0xFE).
  const Tensor e5m2 = codes(F::kFloat8E5M2, {5}, {0x3C, 0x7C, 0xFC, 0x7F, 0xFE});
  KernelTest e5m2_nan("IsNaN", 20);
  e5m2_nan.input(e5m2).output(F::kBool, {5});
  GE_RUN_KERNEL(e, e5m2_nan);
  expect_bools(e[0], {5}, {0, 0, 0, 1, 1});
  KernelTest e5m2_inf("IsInf", 20);
  e5m2_inf.input(e5m2).output(F::kBool, {5});
  GE_RUN_KERNEL(f, e5m2_inf);
  expect_bools(f[0], {5}, {0, 1, 1, 0, 0});
  KernelTest positive("IsInf", 20);
  positive.input(e5m2).attribute("detect_negative", int64_t{0}).output(F::kBool, {5});
  GE_RUN_KERNEL(g, positive);
  expect_bools(g[0], {5}, {0, 1, 0, 0, 0});
  KernelTest negative("IsInf", 20);
  negative.input(e5m2).attribute("detect_positive", int64_t{0}).output(F::kBool, {5});
  GE_RUN_KERNEL(h, negative);
  expect_bools(h[0], {5}, {0, 0, 1, 0, 0});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
