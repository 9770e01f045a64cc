// Window and MelWeightMatrix kernel tests; expected values from numpy
// (/usr/bin/python3): the window formulas and the ONNX reference mel construction.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(WindowKernel, PeriodicHann) {
  KernelTest test("HannWindow", 17);
  test.input(i32({}, {5})).output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {0, 0.3454915f, 0.9045085f, 0.9045085f, 0.3454915f});
}

TEST(WindowKernel, SymmetricHammingInDouble) {
  KernelTest test("HammingWindow", 17);
  test.input(i64({}, {5}))
      .attribute("periodic", int64_t{0})
      .attribute("output_datatype", int64_t{11})
      .output(F::kFloat64, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {5}, {0.086956522, 0.54347826, 1, 0.54347826, 0.086956522}, 1e-7);
}

TEST(WindowKernel, PeriodicBlackman) {
  KernelTest test("BlackmanWindow", 17);
  test.input(i32({}, {5})).output(F::kFloat32, {5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {5}, {0, 0.20077014f, 0.84922986f, 0.84922986f, 0.20077014f});
}

TEST(WindowKernel, SizeDisagreeingWithTheOutputFailsAtLaunch) {
  KernelTest test("HannWindow", 17);
  test.input(i32({}, {4})).output(F::kFloat32, {5});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 303);
}

TEST(WindowKernel, NonNumericOutputDatatypeIsInvalid) {
  KernelTest test("HannWindow", 17);
  test.input(i32({}, {5})).attribute("output_datatype", int64_t{8}).output(F::kString, {5});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("output_datatype"), std::string::npos) << kernel.status().message();
}

TEST(MelWeightMatrixKernel, TriangularFilters) {
  // 3 mel bins, dft_length 16, 1000 Hz, 100-450 Hz: filter points at bins [1 2 3 5 6].
  KernelTest test("MelWeightMatrix", 17);
  test.input(i32({}, {3}))
      .input(i32({}, {16}))
      .input(i32({}, {1000}))
      .input(f32({}, {100}))
      .input(f32({}, {450}))
      .output(F::kFloat32, {9, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {9, 3}, {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0.5f, 0.5f, 0, 0, 1,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
