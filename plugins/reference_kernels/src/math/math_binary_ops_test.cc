// Two-input math kernels: Pow, Mod, the comparisons, logic and bit ops, PRelu. Expected
// values by hand or from numpy (/usr/bin/python3: np.power, np.mod, np.fmod,
// np.left_shift, ...), float16 bits from numpy's float16.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include <limits>

#include "ge/minifloat.h"
#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

TEST(MathBinaryKernel, PowIntegerIsExact) {
  // np.power([2, -3, 5, 3], [10, 3, 0, 40]) in int64; 3^40 = 12157665459056928801 wraps
  // to 12157665459056928801 - 2^64 = -6289078614652622815.
  KernelTest test("Pow");
  test.input(i64({4}, {2, -3, 5, 3})).input(i64({4}, {10, 3, 0, 40})).output(F::kInt64, {4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {4}, {1024, -27, 1, -6289078614652622815LL});
}

TEST(MathBinaryKernel, PowMixedTypes) {
  // float base, int64 exponent: [2^3, 4^-1, 9^0] = [8, 0.25, 1]
  KernelTest float_int("Pow");
  float_int.input(f32({3}, {2, 4, 9})).input(i64({3}, {3, -1, 0})).output(F::kFloat32, {3});
  GE_RUN_KERNEL(a, float_int);
  expect_tensor<float>(a[0], {3}, {8, 0.25f, 1});
  // int32 base, float exponent, truncated: [2^0.5, 3^2.5, 10^-1] = [1.41, 15.59, 0.1] -> [1, 15, 0]
  KernelTest int_float("Pow");
  int_float.input(i32({3}, {2, 3, 10})).input(f32({3}, {0.5f, 2.5f, -1})).output(F::kInt32, {3});
  GE_RUN_KERNEL(b, int_float);
  expect_tensor<int32_t>(b[0], {3}, {1, 15, 0});
}

TEST(MathBinaryKernel, PowBroadcastsAScalarExponent) {
  KernelTest test("Pow");
  test.input(f32({2, 2}, {1, 2, 3, 4})).input(f32({}, {2})).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {1, 4, 9, 16});
}

TEST(MathBinaryKernel, PowByAConstantTwoSquaresExactlyAsPowDoes) {
  const std::vector<float> x = {1.5f, -3.25f, 1e-20f, 3e19f, -0.0f, 7.123456f, 1e30f, -2.5e-3f};
  std::vector<float> expected;
  for (float v : x) expected.push_back(static_cast<float>(std::pow(static_cast<double>(v), 2.0)));
  for (Tensor two : {f32({}, {2}), i64({1}, {2})}) {
    KernelTest test("Pow");
    test.input(f32({8}, x)).initializer(two).output(F::kFloat32, {8});
    GE_RUN_KERNEL(out, test);
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
    EXPECT_NE(kernel->name.find("square"), std::string::npos) << kernel->name;
    ASSERT_EQ(out[0].element_count(), 8);
    for (size_t i = 0; i < expected.size(); ++i) {  // bit for bit, overflow to inf included
      EXPECT_EQ(std::bit_cast<uint32_t>(out[0].data<float>()[i]), std::bit_cast<uint32_t>(expected[i])) << "element " << i;
    }
  }
}

TEST(MathBinaryKernel, HalfPowByAConstantTwoSquaresAsPowRoundedOnce) {
  // Every float16 and bfloat16 bit pattern squared: x * x is exact in float (at most 22
  // significant bits), so the square kernel's one rounding gives pow's result in double
  // rounded once; NaN stays NaN.
  std::vector<uint16_t> bits(65536);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
  for (F dtype : {F::kFloat16, F::kBFloat16}) {
    const bool f16 = dtype == F::kFloat16;
    for (Tensor two : {half_bits(dtype, {}, {0x4000}), i64({1}, {2})}) {  // 2 is 0x4000 in both
      KernelTest test("Pow");
      test.input(half_bits(dtype, {65536}, bits)).initializer(two).output(dtype, {65536});
      GE_RUN_KERNEL(out, test);
      Result<PreparedKernel> kernel = test.prepare();
      ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
      EXPECT_NE(kernel->name.find("square"), std::string::npos) << kernel->name;
      ASSERT_EQ(out[0].element_count(), 65536);
      const auto* y = static_cast<const uint16_t*>(out[0].raw_data());
      int mismatches = 0;
      for (size_t i = 0; i < bits.size() && mismatches < 5; ++i) {
        const double x = f16 ? float16_to_float(bits[i]) : bfloat16_to_float(bits[i]);
        const uint16_t expected = f16 ? float16_from_double(std::pow(x, 2.0)) : bfloat16_from_double(std::pow(x, 2.0));
        const double got = f16 ? float16_to_float(y[i]) : bfloat16_to_float(y[i]);
        const bool ok = std::isnan(x) ? std::isnan(got) : y[i] == expected;
        if (!ok) ++mismatches;
        EXPECT_TRUE(ok) << (f16 ? "float16" : "bfloat16") << " bits 0x" << std::hex << i << ": got 0x" << y[i]
                        << ", expected 0x" << expected;
      }
    }
  }
}

TEST(MathBinaryKernel, ModTakesTheSignOfTheDivisor) {
  // np.mod([-4, 7, 5, 4, -7, 8], [3, -3, 8, -2, -2, -3]) = [2, -2, 5, 0, -1, -1]
  KernelTest test("Mod");
  test.input(i32({6}, {-4, 7, 5, 4, -7, 8})).input(i32({6}, {3, -3, 8, -2, -2, -3})).output(F::kInt32, {6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {6}, {2, -2, 5, 0, -1, -1});
}

TEST(MathBinaryKernel, FmodTakesTheSignOfTheDividend) {
  // np.fmod([-4, 7, 5, 4, -7, 8], [3, -3, 8, -2, -2, -3]) = [-1, 1, 5, 0, -1, 2]
  KernelTest ints("Mod");
  ints.input(i32({6}, {-4, 7, 5, 4, -7, 8}))
      .input(i32({6}, {3, -3, 8, -2, -2, -3}))
      .attribute("fmod", int64_t{1})
      .output(F::kInt32, {6});
  GE_RUN_KERNEL(i, ints);
  expect_tensor<int32_t>(i[0], {6}, {-1, 1, 5, 0, -1, 2});
  // np.fmod([-4.5, 7.25, 5], [2, -3, -2.5]) = [-0.5, 1.25, 0]
  KernelTest floats("Mod");
  floats.input(f32({3}, {-4.5f, 7.25f, 5})).input(f32({3}, {2, -3, -2.5f})).attribute("fmod", int64_t{1}).output(
      F::kFloat32, {3});
  GE_RUN_KERNEL(f, floats);
  expect_tensor<float>(f[0], {3}, {-0.5f, 1.25f, 0});
  // float16: np.fmod(np.float16([-4.5, 7.5]), np.float16([2, -2])) = [-0.5, 1.5]
  KernelTest halves("Mod");
  halves.input(half_bits(F::kFloat16, {2}, {0xc480, 0x4780}))
      .input(half_bits(F::kFloat16, {2}, {0x4000, 0xc000}))
      .attribute("fmod", int64_t{1})
      .output(F::kFloat16, {2});
  GE_RUN_KERNEL(h, halves);
  expect_half_bits(h[0], F::kFloat16, {2}, {0xb800, 0x3e00});
}

TEST(MathBinaryKernel, ModOfLowestByMinusOneAndByZero) {
  KernelTest lowest("Mod");
  lowest.input(typed<int8_t>({1}, {-128})).input(typed<int8_t>({1}, {-1})).output(F::kInt8, {1});
  GE_RUN_KERNEL(out, lowest);
  expect_tensor<int8_t>(out[0], {1}, {0});
  KernelTest zero("Mod");
  zero.input(i32({2}, {1, 2})).input(i32({2}, {1, 0})).output(F::kInt32, {2});
  int code = 0;
  EXPECT_FALSE(zero.run(&code).is_ok());
  EXPECT_EQ(code, kKernelIntegerDivisionByZero);
}

TEST(MathBinaryKernel, FloatModNeedsFmod) {
  KernelTest test("Mod");
  test.input(f32({1}, {1})).input(f32({1}, {2})).output(F::kFloat32, {1});
  expect_prepare_error(test, StatusCode::kInvalidArgument, "attribute 'fmod' must be 1");
}

TEST(MathBinaryKernel, ComparisonsBroadcast) {
  // a = arange(6).reshape(2, 3), b = [1, 2, 3]
  KernelTest less("Less");
  less.input(f32_iota({2, 3})).input(f32({3}, {1, 2, 3})).output(F::kBool, {2, 3});
  GE_RUN_KERNEL(l, less);
  expect_bools(l[0], {2, 3}, {1, 1, 1, 0, 0, 0});
  KernelTest greater_equal("GreaterOrEqual");
  greater_equal.input(f32_iota({2, 3})).input(f32({3}, {0, 2, 3})).output(F::kBool, {2, 3});
  GE_RUN_KERNEL(ge, greater_equal);
  expect_bools(ge[0], {2, 3}, {1, 0, 0, 1, 1, 1});
  KernelTest less_equal("LessOrEqual");
  less_equal.input(i32({3}, {1, 2, 3})).input(i32({}, {2})).output(F::kBool, {3});
  GE_RUN_KERNEL(le, less_equal);
  expect_bools(le[0], {3}, {1, 1, 0});
  KernelTest greater("Greater");
  greater.input(typed<uint64_t>({2}, {1, 18446744073709551615ULL})).input(typed<uint64_t>({2}, {2, 1})).output(
      F::kBool, {2});
  GE_RUN_KERNEL(g, greater);
  expect_bools(g[0], {2}, {0, 1});
}

TEST(MathBinaryKernel, ComparisonsWithNaNAreFalse) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  KernelTest equal("Equal");
  equal.input(f32({2}, {nan, 1})).input(f32({2}, {nan, 1})).output(F::kBool, {2});
  GE_RUN_KERNEL(out, equal);
  expect_bools(out[0], {2}, {0, 1});
}

TEST(MathBinaryKernel, EqualOnBoolAndString) {
  KernelTest booleans("Equal");
  booleans.input(bools({2, 2}, {1, 0, 1, 0})).input(bools({2}, {1, 1})).output(F::kBool, {2, 2});
  GE_RUN_KERNEL(b, booleans);
  expect_bools(b[0], {2, 2}, {1, 0, 1, 0});
  KernelTest texts("Equal");
  texts.input(strings({3}, {"a", "bc", ""})).input(strings({3}, {"a", "b", ""})).output(F::kBool, {3});
  GE_RUN_KERNEL(s, texts);
  expect_bools(s[0], {3}, {1, 0, 1});
}

TEST(MathBinaryKernel, AndOrXorBroadcast) {
  // a = [[1, 0], [1, 1]], b = [0, 1]
  Tensor a = bools({2, 2}, {1, 0, 1, 1});
  Tensor b = bools({2}, {0, 1});
  KernelTest logical_and("And");
  logical_and.input(a).input(b).output(F::kBool, {2, 2});
  GE_RUN_KERNEL(n, logical_and);
  expect_bools(n[0], {2, 2}, {0, 0, 0, 1});
  KernelTest logical_or("Or");
  logical_or.input(a).input(b).output(F::kBool, {2, 2});
  GE_RUN_KERNEL(o, logical_or);
  expect_bools(o[0], {2, 2}, {1, 1, 1, 1});
  KernelTest logical_xor("Xor");
  logical_xor.input(a).input(b).output(F::kBool, {2, 2});
  GE_RUN_KERNEL(x, logical_xor);
  expect_bools(x[0], {2, 2}, {1, 1, 1, 0});
}

TEST(MathBinaryKernel, LegacyAndWithAxis) {
  // Opset 1: B [2] lines up with axis 0 of A [2, 2].
  KernelTest test("And", 1);
  test.input(bools({2, 2}, {1, 1, 1, 1}))
      .input(bools({2}, {0, 1}))
      .attribute("broadcast", int64_t{1})
      .attribute("axis", int64_t{0})
      .output(F::kBool, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_bools(out[0], {2, 2}, {0, 0, 1, 1});
}

TEST(MathBinaryKernel, BitShift) {
  // np.left_shift(np.uint8([1, 2, 255, 1]), [2, 7, 1, 8]) = [4, 0, 254, 0] (8 shifts out)
  KernelTest left("BitShift");
  left.input(typed<uint8_t>({4}, {1, 2, 255, 1}))
      .input(typed<uint8_t>({4}, {2, 7, 1, 8}))
      .attribute("direction", "LEFT")
      .output(F::kUInt8, {4});
  GE_RUN_KERNEL(l, left);
  expect_tensor<uint8_t>(l[0], {4}, {4, 0, 254, 0});
  // np.right_shift(np.uint32([16, 255, 1]), [2, 4, 31]) = [4, 15, 0]
  KernelTest right("BitShift");
  right.input(typed<uint32_t>({3}, {16, 255, 1}))
      .input(typed<uint32_t>({3}, {2, 4, 31}))
      .attribute("direction", "RIGHT")
      .output(F::kUInt32, {3});
  GE_RUN_KERNEL(r, right);
  expect_tensor<uint32_t>(r[0], {3}, {4, 15, 0});
  KernelTest wide("BitShift");
  wide.input(typed<uint16_t>({1}, {0xffff})).input(typed<uint16_t>({1}, {15})).attribute("direction", "LEFT").output(
      F::kUInt16, {1});
  GE_RUN_KERNEL(w, wide);
  expect_tensor<uint16_t>(w[0], {1}, {0x8000});
}

TEST(MathBinaryKernel, BitShiftNeedsADirection) {
  KernelTest test("BitShift");
  test.input(typed<uint8_t>({1}, {1})).input(typed<uint8_t>({1}, {1})).attribute("direction", "UP").output(F::kUInt8,
                                                                                                           {1});
  expect_prepare_error(test, StatusCode::kInvalidArgument, "attribute 'direction' is 'UP'");
}

TEST(MathBinaryKernel, BitwiseAndOrXor) {
  Tensor a = i32({3}, {12, -1, 5});
  Tensor b = i32({3}, {10, 6, 0});
  KernelTest bit_and("BitwiseAnd", 18);
  bit_and.input(a).input(b).output(F::kInt32, {3});
  GE_RUN_KERNEL(n, bit_and);
  expect_tensor<int32_t>(n[0], {3}, {8, 6, 0});
  KernelTest bit_or("BitwiseOr", 18);
  bit_or.input(a).input(b).output(F::kInt32, {3});
  GE_RUN_KERNEL(o, bit_or);
  expect_tensor<int32_t>(o[0], {3}, {14, -1, 5});
  KernelTest bit_xor("BitwiseXor", 18);
  bit_xor.input(a).input(b).output(F::kInt32, {3});
  GE_RUN_KERNEL(x, bit_xor);
  expect_tensor<int32_t>(x[0], {3}, {6, -7, 5});
}

TEST(MathBinaryKernel, PReluBroadcastsTheSlope) {
  // x = [[-2, -1], [3, -4]], slope = [0.1, 0.5]: [[-0.2, -0.5], [3, -2]]
  KernelTest test("PRelu");
  test.input(f32({2, 2}, {-2, -1, 3, -4})).input(f32({2}, {0.1f, 0.5f})).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {-0.2f, -0.5f, 3, -2}, 1e-6);
}

TEST(MathBinaryKernel, PReluOpset6SlopeIsPerChannel) {
  // x = arange(-4, 4).reshape(2, 2, 2), slope [0.5, 0.25] on axis 1:
  // [-2, -1.5, -0.5, -0.25, 0, 1, 2, 3]
  KernelTest test("PRelu", 6);
  test.input(f32_iota({2, 2, 2}, -4)).input(f32({2}, {0.5f, 0.25f})).output(F::kFloat32, {2, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2, 2}, {-2, -1.5f, -0.5f, -0.25f, 0, 1, 2, 3});
}

TEST(MathBinaryKernel, PReluSlopeMustNotGrowTheOutput) {
  KernelTest test("PRelu");
  test.input(f32({2}, {1, 2})).input(f32({2, 2}, {1, 2, 3, 4})).output(F::kFloat32, {2});
  expect_prepare_error(test, StatusCode::kInvalidArgument, "does not broadcast to X");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
