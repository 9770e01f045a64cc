// Clip (input and attribute bounds) and Where (three-way broadcasting, every element
// size, strings); values by hand.

#include <gtest/gtest.h>

#include <limits>

#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using namespace math_testing;  // NOLINT(build/namespaces)
using F = DataType;

Tensor clip_input() { return f32({5}, {-2, -0.5f, 0, 0.5f, 2}); }

TEST(MathClipKernel, BoundsFromInputs) {
  KernelTest test("Clip");
  test.input(clip_input()).input(f32({}, {-1})).input(f32({}, {1})).output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {-1, -0.5f, 0, 0.5f, 1});
}

TEST(MathClipKernel, OmittedMinIsUnbounded) {
  KernelTest test("Clip");
  test.input(clip_input()).no_input().initializer(f32({}, {0})).output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {-2, -0.5f, 0, 0, 0});
}

TEST(MathClipKernel, NoBoundsKeepsInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  KernelTest test("Clip");
  test.input(f32({2}, {-inf, inf})).output(F::kFloat32, {2});
  GE_RUN_KERNEL(out, test);
  expect_exact<float>(out[0], {2}, {-inf, inf});
}

TEST(MathClipKernel, MinAboveMaxGivesMax) {
  KernelTest test("Clip");
  test.input(clip_input()).input(f32({}, {2})).input(f32({}, {1})).output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {1, 1, 1, 1, 1});
}

TEST(MathClipKernel, LegacyAttributes) {
  KernelTest test("Clip", 6);
  test.input(clip_input()).attribute("min", -0.5f).attribute("max", 0.25f).output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {-0.5f, -0.5f, 0, 0.25f, 0.25f});
}

TEST(MathClipKernel, Int8WithMinOnly) {
  KernelTest test("Clip");
  test.input(typed<int8_t>({3}, {-128, 0, 127})).input(typed<int8_t>({}, {-5})).output(F::kInt8, {3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int8_t>(out[0], {3}, {-5, 0, 127});
}

TEST(MathClipKernel, BoundsMustBeScalars) {
  KernelTest test("Clip");
  test.input(clip_input()).input(f32({2}, {0, 1})).output(F::kFloat32, {5});
  expect_prepare_error(test, StatusCode::kInvalidArgument, "min must be a scalar");
}

TEST(MathWhereKernel, BroadcastsAllThreeInputs) {
  // condition [[1], [0]] picks row 0 from X = [1, 2, 3] and row 1 from Y = [[7, 8, 9]].
  KernelTest test("Where");
  test.input(bools({2, 1}, {1, 0})).input(i64({3}, {1, 2, 3})).input(i64({1, 3}, {7, 8, 9})).output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {2, 3}, {1, 2, 3, 7, 8, 9});
}

TEST(MathWhereKernel, ScalarOtherwise) {
  KernelTest test("Where");
  test.input(bools({2, 2}, {1, 0, 0, 1})).input(f32({2}, {1, 2})).input(f32({}, {-1})).output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {1, -1, -1, 2});
}

TEST(MathWhereKernel, Float16AndBoolElements) {
  KernelTest halves("Where");
  halves.input(bools({2}, {0, 1}))
      .input(half_bits(F::kFloat16, {2}, {0x3c00, 0x4000}))
      .input(half_bits(F::kFloat16, {2}, {0xbc00, 0xc000}))
      .output(F::kFloat16, {2});
  GE_RUN_KERNEL(h, halves);
  expect_half_bits(h[0], F::kFloat16, {2}, {0xbc00, 0x4000});
  KernelTest booleans("Where");
  booleans.input(bools({3}, {1, 0, 1})).input(bools({3}, {0, 0, 1})).input(bools({}, {1})).output(F::kBool, {3});
  GE_RUN_KERNEL(b, booleans);
  expect_bools(b[0], {3}, {0, 1, 1});
}

TEST(MathWhereKernel, Strings) {
  KernelTest test("Where");
  test.input(bools({3}, {1, 0, 1})).input(strings({3}, {"a", "b", "c"})).input(strings({}, {"-"})).output(
      F::kString, {3});
  GE_RUN_KERNEL(out, test);
  expect_strings(out[0], {3}, {"a", "-", "c"});
}

TEST(MathWhereKernel, XAndYDtypesMustMatch) {
  KernelTest test("Where");
  test.input(bools({1}, {1})).input(f32({1}, {1})).input(i32({1}, {1})).output(F::kFloat32, {1});
  expect_prepare_error(test, StatusCode::kUnsupported, "int32");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
