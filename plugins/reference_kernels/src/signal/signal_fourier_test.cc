// DFT and STFT kernel tests; expected values from numpy.fft (/usr/bin/python3).

#include <gtest/gtest.h>

#include "common/special_common.h"
#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

// The complex signal [1, 2+i, -i, -1+0.5i] as [1, 4, 2].
Tensor complex_signal() { return f32({1, 4, 2}, {1, 0, 2, 1, 0, -1, -1, 0.5f}); }

TEST(FourierKernel, ComplexDft) {
  KernelTest test("DFT", 17);
  test.input(complex_signal()).output(F::kFloat32, {1, 4, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 4, 2}, {2, 0.5f, 1.5f, -2, 0, -2.5f, 0.5f, 4});
}

TEST(FourierKernel, InverseDftDividesByTheLength) {
  KernelTest test("DFT", 17);
  test.input(complex_signal()).attribute("inverse", int64_t{1}).output(F::kFloat32, {1, 4, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 4, 2}, {0.5f, 0.125f, 0.125f, 1, 0, -0.625f, 0.375f, -0.5f});
}

TEST(FourierKernel, OnesidedRealDftZeroPaddedToDftLength) {
  // np.fft.fft([1, 2, 0, -1], 6)[:4]
  KernelTest test("DFT", 17);
  test.input(f64({1, 4, 1}, {1, 2, 0, -1}))
      .input(i64({}, {6}))
      .attribute("onesided", int64_t{1})
      .output(F::kFloat64, {1, 4, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 4, 2}, {2, 0, 3, -1.7320508, -1, -1.7320508, 0, 0}, 1e-7);
}

TEST(FourierKernel, DftAlongASecondSignalAxis) {
  // x [1, 2, 4, 1] transformed along axis 2: each of the 2 rows is its own 4-point DFT.
  KernelTest test("DFT", 17);
  test.input(f32({1, 2, 4, 1}, {1, 2, 0, -1, 1, 1, 1, 1})).attribute("axis", int64_t{2}).output(F::kFloat32, {1, 2, 4, 2});
  GE_RUN_KERNEL(out, test);
  // fft([1, 2, 0, -1]) = [2, 1-3i, 0, 1+3i]; fft([1, 1, 1, 1]) = [4, 0, 0, 0].
  expect_tensor<float>(out[0], {1, 2, 4, 2}, {2, 0, 1, -3, 0, 0, 1, 3, 4, 0, 0, 0, 0, 0, 0, 0});
}

TEST(FourierKernel, Dft20TakesTheAxisAsAnInputDefaultingToTheLastSignalAxis) {
  // The same transform as DftAlongASecondSignalAxis, with DFT-20's axis: the default -2
  // names dim 2 of [1, 2, 4, 1]; an axis input of 1 transforms the 2-point columns.
  KernelTest by_default("DFT", 20);
  by_default.input(f32({1, 2, 4, 1}, {1, 2, 0, -1, 1, 1, 1, 1})).output(F::kFloat32, {1, 2, 4, 2});
  GE_RUN_KERNEL(out, by_default);
  expect_tensor<float>(out[0], {1, 2, 4, 2}, {2, 0, 1, -3, 0, 0, 1, 3, 4, 0, 0, 0, 0, 0, 0, 0});

  KernelTest columns("DFT", 20);
  columns.input(f32({1, 2, 4, 1}, {1, 2, 0, -1, 1, 1, 1, 1}))
      .no_input()
      .initializer(Tensor::from_vector<int64_t>({}, {1}))
      .output(F::kFloat32, {1, 2, 4, 2});
  GE_RUN_KERNEL(by_column, columns);
  // fft([a, b]) = [a + b, a - b] per column.
  expect_tensor<float>(by_column[0], {1, 2, 4, 2}, {2, 0, 3, 0, 1, 0, 0, 0, 0, 0, 1, 0, -1, 0, -2, 0});

  KernelTest outside("DFT", 20);
  outside.input(f32({1, 2, 4, 1}, {1, 2, 0, -1, 1, 1, 1, 1}))
      .no_input()
      .initializer(Tensor::from_vector<int64_t>({}, {-1}))
      .output(F::kFloat32, {1, 2, 4, 2});
  Result<PreparedKernel> refused = outside.prepare();
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("axis -1 is outside"), std::string::npos) << refused.status().message();
}

TEST(FourierKernel, Float16DftRoundsEachResult) {
  // fft([1, 2, 0, -1]) = [2, 1-3i, 0, 1+3i]: every value is exact in float16.
  Tensor x = Tensor::zeros(F::kFloat16, {1, 4, 1});
  const float values[] = {1, 2, 0, -1};
  for (int i = 0; i < 4; ++i) x.data<uint16_t>()[i] = float16_from_float(values[i]);
  KernelTest test("DFT", 17);
  test.input(x).output(F::kFloat16, {1, 4, 2});
  GE_RUN_KERNEL(out, test);
  const float expected[] = {2, 0, 1, -3, 0, 0, 1, 3};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(float16_to_float(out[0].data<uint16_t>()[i]), expected[i]) << "element " << i;
  }
}

TEST(FourierKernel, DftLengthDisagreeingWithTheOutputFailsAtLaunch) {
  KernelTest test("DFT", 17);
  test.input(complex_signal()).input(i64({}, {5})).output(F::kFloat32, {1, 4, 2});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 303);
}

TEST(FourierKernel, StftWithPeriodicHannWindow) {
  // signal arange(8), frame_step 2, window 0.5 - 0.5 cos(2 pi n / 4): three 4-sample
  // frames, onesided (3 bins).
  KernelTest test("STFT", 17);
  test.input(f32({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7}))
      .input(i64({}, {2}))
      .input(f32({4}, {0, 0.5f, 1, 0.5f}))
      .output(F::kFloat32, {1, 3, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 3, 2}, {4, 0, -2, 1, 0, 0, 8, 0, -4, 1, 0, 0, 12, 0, -6, 1, 0, 0});
}

TEST(FourierKernel, StftNeedsAWindowOrAFrameLength) {
  KernelTest test("STFT", 17);
  test.input(f32({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7})).input(i64({}, {2})).output(F::kFloat32, {1, 3, 3, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("frame_length"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
