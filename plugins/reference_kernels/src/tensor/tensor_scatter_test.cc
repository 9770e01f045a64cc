// ScatterElements-18 / ScatterND-18 reduction "max" and "min" kernel tests. Expected
// values from transcriptions of the ONNX reference (onnx/reference/ops/
// op_scatter_elements.py scatter_elements and op_scatternd.py _scatter_nd_impl) run with
// /usr/bin/python3 and numpy.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

void scatter_elements(KernelTest& test, const std::string& reduction) {
  // Duplicates at index 1; -1 is the last element.
  test.input(f32({1, 5}, {1, 2, 3, 4, 5}))
      .input(i64({1, 4}, {1, 1, -1, 3}))
      .input(f32({1, 4}, {1.1f, 2.1f, 7, 0.5f}))
      .attribute("axis", int64_t{1})
      .attribute("reduction", reduction)
      .output(F::kFloat32, {1, 5});
}

TEST(ScatterElementsKernel, Opset18ReductionMax) {
  KernelTest test("ScatterElements", 18);
  scatter_elements(test, "max");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 5}, {1, 2.1f, 3, 4, 7});
}

TEST(ScatterElementsKernel, Opset18ReductionMin) {
  KernelTest test("ScatterElements", 18);
  scatter_elements(test, "min");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 5}, {1, 1.1f, 3, 0.5f, 5});
}

TEST(ScatterElementsKernel, MaxBeforeOpset18IsInvalid) {
  KernelTest test("ScatterElements", 16);
  test.input(f32({2}, {1, 2})).input(i64({1}, {0})).input(f32({1}, {3})).attribute("reduction", "max");
  test.output(F::kFloat32, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("needs opset 18"), std::string::npos) << kernel.status().message();
}

void scatter_nd(KernelTest& test, const std::string& reduction, Tensor indices, Tensor updates) {
  test.input(i64({3, 2}, {1, 8, 3, 4, 5, 6}))
      .input(std::move(indices))
      .input(std::move(updates))
      .attribute("reduction", reduction)
      .output(F::kInt64, {3, 2});
}

TEST(ScatterNdKernel, Opset18ReductionMaxAndMinOfRows) {
  // Rows 0, 2, 0 of [[1, 8], [3, 4], [5, 6]] with [[2, 3], [9, 1], [7, 5]].
  KernelTest max("ScatterND", 18);
  scatter_nd(max, "max", i64({3, 1}, {0, 2, 0}), i64({3, 2}, {2, 3, 9, 1, 7, 5}));
  GE_RUN_KERNEL(max_out, max);
  expect_tensor<int64_t>(max_out[0], {3, 2}, {7, 8, 3, 4, 9, 6});
  KernelTest min("ScatterND", 18);
  scatter_nd(min, "min", i64({3, 1}, {0, 2, 0}), i64({3, 2}, {2, 3, 9, 1, 7, 5}));
  GE_RUN_KERNEL(min_out, min);
  expect_tensor<int64_t>(min_out[0], {3, 2}, {1, 3, 3, 4, 5, 1});
}

TEST(ScatterNdKernel, Opset18ReductionMaxAndMinOfElements) {
  // Elements (0, 1), (2, 0), (0, 1) with 10, -4, 9.
  KernelTest max("ScatterND", 18);
  scatter_nd(max, "max", i64({3, 2}, {0, 1, 2, 0, 0, 1}), i64({3}, {10, -4, 9}));
  GE_RUN_KERNEL(max_out, max);
  expect_tensor<int64_t>(max_out[0], {3, 2}, {1, 10, 3, 4, 5, 6});
  KernelTest min("ScatterND", 18);
  scatter_nd(min, "min", i64({3, 2}, {0, 1, 2, 0, 0, 1}), i64({3}, {10, -4, 9}));
  GE_RUN_KERNEL(min_out, min);
  expect_tensor<int64_t>(min_out[0], {3, 2}, {1, 8, 3, 4, -4, 6});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
