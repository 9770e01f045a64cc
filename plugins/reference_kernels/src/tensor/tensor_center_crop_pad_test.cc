// CenterCropPad-18 kernel tests. Expected values from a transcription of the ONNX
// reference (onnx/reference/ops/op_center_crop_pad.py, CenterCropPad._run) run with
// /usr/bin/python3 and numpy.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(CenterCropPadKernel, PadsOneAxisAndCropsTheOther) {
  // _run(arange(1, 21).reshape(4, 5), [7, 2]): rows padded 1 before and 2 after,
  // columns 1-2 kept (the crop start rounds down).
  KernelTest test("CenterCropPad", 18);
  test.input(f32_iota({4, 5}, 1.0f)).input(i64({2}, {7, 2})).output(F::kFloat32, {7, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {7, 2}, {0, 0, 2, 3, 7, 8, 12, 13, 17, 18, 0, 0, 0, 0});
}

TEST(CenterCropPadKernel, AxesAttributeWithNegativeAxisAndInt32Shape) {
  // _run(arange(24).reshape(2, 3, 4), [1, 7], axes=[-2, 2]); the shape an initializer.
  KernelTest test("CenterCropPad", 18);
  test.input(i32({2, 3, 4}, {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                             12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}))
      .initializer(i32({2}, {1, 7}))
      .attribute("axes", std::vector<int64_t>{-2, 2})
      .output(F::kInt32, {2, 1, 7});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 1, 7}, {0, 4, 5, 6, 7, 0, 0, 0, 16, 17, 18, 19, 0, 0});
}

TEST(CenterCropPadKernel, StringsPadWithEmptyStrings) {
  KernelTest test("CenterCropPad", 18);
  test.initializer(Tensor::from_strings({2}, {"a", "b"})).initializer(i64({1}, {3})).output(F::kString, {3});
  GE_RUN_CONSTANT_KERNEL(out, test);
  expect_strings(out[0], {3}, {"a", "b", ""});
}

TEST(CenterCropPadKernel, ConstantShapeMustMatchTheOutput) {
  KernelTest test("CenterCropPad", 18);
  test.input(f32_iota({4})).initializer(i64({1}, {3})).output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

TEST(CenterCropPadKernel, RuntimeShapeThatContradictsTheOutputFailsAtLaunch) {
  KernelTest test("CenterCropPad", 18);
  test.input(f32_iota({4})).input(i64({1}, {3})).output(F::kFloat32, {2});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelRuntimeSizeMismatch);
}

TEST(CenterCropPadKernel, ShapeMustHoldOneValuePerAxis) {
  KernelTest test("CenterCropPad", 18);
  test.input(f32_iota({2, 2})).input(i64({1}, {2})).output(F::kFloat32, {2, 2});
  expect_invalid(test, "holds 1 values for 2 axes");
}

TEST(CenterCropPadKernel, RepeatedOrOutOfRangeAxesAreInvalid) {
  KernelTest repeated("CenterCropPad", 18);
  repeated.input(f32_iota({2, 2})).input(i64({2}, {2, 2})).attribute("axes", std::vector<int64_t>{0, -2});
  repeated.output(F::kFloat32, {2, 2});
  expect_invalid(repeated, "names axis 0 twice");
  KernelTest outside("CenterCropPad", 18);
  outside.input(f32_iota({2, 2})).input(i64({1}, {2})).attribute("axes", std::vector<int64_t>{2});
  outside.output(F::kFloat32, {2, 2});
  expect_invalid(outside, "axes");
}

}  // namespace
}  // namespace ge::reference_kernels::testing
