// Pad-18 (axes input) and Pad-19 (mode "wrap") kernel tests. Expected values from a
// transcription of the ONNX reference (onnx/reference/ops/op_pad.py, _pad_impl: numpy.pad
// with the pads placed on `axes`) run with /usr/bin/python3 and numpy, except where a
// test says otherwise.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/narrow_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(PadKernel, Opset19WrapAllAxes) {
  // _pad_impl(arange(6).reshape(2, 3), [1, 1, 2, 1], "wrap").
  KernelTest test("Pad", 19);
  test.input(i32({2, 3}, {0, 1, 2, 3, 4, 5})).input(i64({4}, {1, 1, 2, 1})).attribute("mode", "wrap");
  test.output(F::kInt32, {5, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {5, 5}, {5, 3, 4, 5, 3, 2, 0, 1, 2, 0, 5, 3, 4, 5, 3, 2, 0, 1, 2, 0, 5, 3, 4, 5, 3});
}

TEST(PadKernel, Opset19WrapWithPadsLongerThanTheAxisRepeatsWholePeriods) {
  // pads [1, 4, 2, 1] of arange(6).reshape(2, 3): the torus of the spec, as numpy >= 1.25
  // pads "with strict multiples of the original data" (the machine's numpy 1.24 still has
  // the old, non-periodic result), computed as x[np.ix_((i - 1) % 2, (j - 4) % 3)].
  KernelTest test("Pad", 19);
  test.input(i32({2, 3}, {0, 1, 2, 3, 4, 5})).input(i64({4}, {1, 4, 2, 1})).attribute("mode", "wrap");
  test.output(F::kInt32, {5, 8});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {5, 8}, {5, 3, 4, 5, 3, 4, 5, 3, 2, 0, 1, 2, 0, 1, 2, 0, 5, 3, 4, 5,
                                          3, 4, 5, 3, 2, 0, 1, 2, 0, 1, 2, 0, 5, 3, 4, 5, 3, 4, 5, 3});
}

TEST(PadKernel, Opset19WrapOnAxesInput) {
  // _pad_impl(arange(12).reshape(3, 4), [2, 1], "wrap", axes=[1]).
  KernelTest test("Pad", 19);
  test.input(f32_iota({3, 4})).input(i64({2}, {2, 1})).no_input().input(i64({1}, {1})).attribute("mode", "wrap");
  test.output(F::kFloat32, {3, 7});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 7}, {2, 3, 0, 1, 2, 3, 0, 6, 7, 4, 5, 6, 7, 4, 10, 11, 8, 9, 10, 11, 8});
}

TEST(PadKernel, Opset19WrapAfterACropRepeatsTheCroppedData) {
  // numpy.pad rejects negative pads; as ONNX Runtime, the crop comes first:
  // np.pad([0, 1, 2, 3][1:], (0, 2), "wrap") = [1, 2, 3, 1, 2].
  KernelTest test("Pad", 19);
  test.input(i64({4}, {0, 1, 2, 3})).input(i64({2}, {-1, 2})).attribute("mode", "wrap").output(F::kInt64, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int64_t>(out[0], {5}, {1, 2, 3, 1, 2});
}

TEST(PadKernel, WrapBeforeOpset19IsInvalid) {
  KernelTest test("Pad", 18);
  test.input(i64({2}, {0, 1})).input(i64({2}, {1, 1})).attribute("mode", "wrap").output(F::kInt64, {4});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("needs opset 19"), std::string::npos) << kernel.status().message();
}

TEST(PadKernel, Opset18ConstantValueOnTwoAxesWithNegativeAxis) {
  // _pad_impl(arange(12).reshape(3, 4), [1, 0, 0, 2], "constant", 7.5, axes=[0, -1]).
  KernelTest test("Pad", 18);
  test.input(f32_iota({3, 4})).input(i64({4}, {1, 0, 0, 2})).input(f32({}, {7.5f})).input(i64({2}, {0, -1}));
  test.output(F::kFloat32, {4, 6});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {4, 6}, {7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 0, 1, 2,  3,  7.5f, 7.5f,
                                        4,    5,    6,    7,    7.5f, 7.5f, 8, 9, 10, 11, 7.5f, 7.5f});
}

TEST(PadKernel, Opset18ReflectOnConstantAxes) {
  // _pad_impl(arange(12).reshape(3, 4), [3, 2], "reflect", axes=[-1]); axes as an
  // initializer, pads at launch.
  KernelTest test("Pad", 18);
  test.input(f32_iota({3, 4})).input(i64({2}, {3, 2})).no_input().initializer(i64({1}, {-1}));
  test.attribute("mode", "reflect").output(F::kFloat32, {3, 9});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 9}, {3, 2, 1,  0, 1,  2,  3,  2,  1,  7,  6,  5,  4, 5,
                                        6, 7, 6,  5, 11, 10, 9, 8, 9, 10, 11, 10, 9});
}

TEST(PadKernel, Opset18RepeatedAxisFailsAtLaunch) {
  KernelTest test("Pad", 18);
  test.input(f32_iota({2, 2})).input(i64({4}, {1, 1, 0, 0})).no_input().input(i64({2}, {0, -2}));
  test.output(F::kFloat32, {4, 2});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelInvalidRuntimeArgument);
}

TEST(PadKernel, Opset18PadsThatDoNotMatchTheAxesAreInvalid) {
  KernelTest test("Pad", 18);
  test.input(f32_iota({2, 2})).input(i64({4}, {1, 1, 0, 0})).no_input().input(i64({1}, {0}));
  test.output(F::kFloat32, {4, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("holds 4 values, not 2 * 1"), std::string::npos)
      << kernel.status().message();
}

TEST(PadKernel, Float8AndInt4Constants) {
  // Without a constant_value the pad is 0, code 0 in every narrow type.
  KernelTest zero("Pad", 21);
  zero.input(codes(F::kFloat8E4M3FN, {2}, {0x38, 0xC0})).input(i64({2}, {1, 1})).output(F::kFloat8E4M3FN, {4});
  GE_RUN_KERNEL(a, zero);
  expect_codes(a[0], F::kFloat8E4M3FN, {4}, {0x00, 0x38, 0xC0, 0x00});
  KernelTest valued("Pad", 21);
  valued.input(codes(F::kInt4, {2}, {1, 2})).input(i64({2}, {2, 0})).input(codes(F::kInt4, {}, {0xF8}));
  valued.output(F::kInt4, {4});
  GE_RUN_KERNEL(b, valued);
  expect_codes(b[0], F::kInt4, {4}, {0xF8, 0xF8, 1, 2});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
