// ScatterElements-18 / ScatterND-18 reduction "max" and "min" kernel tests. Expected
// values from transcriptions of the ONNX reference (onnx/reference/ops/
// op_scatter_elements.py scatter_elements and op_scatternd.py _scatter_nd_impl) run with
// /usr/bin/python3 and numpy.

#include <gtest/gtest.h>

#include "ge/reference_kernels/kernel_util.h"
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

// ge::ScatterRows(data, rows, updates, shape) is ScatterElements(data, Expand(rows,
// shape), updates) on axis 0: each case runs both, the indices expanded here.
struct RowCase {
  std::vector<int64_t> data_dims, row_dims, update_dims, shape;
  std::vector<int64_t> rows;
};

Tensor counting(std::vector<int64_t> dims, float start) {
  std::vector<float> values(static_cast<size_t>(product(dims)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<float>(i);
  return f32(dims, values);
}

TEST(ScatterRowsKernel, MatchesScatterElementsOnTheExpandedIndices) {
  const RowCase cases[] = {
      {{5, 3, 2, 2}, {3, 1, 1, 1}, {3, 3, 2, 2}, {3, 3, 2, 2}, {4, 0, -2}},  // whole rows, a negative index
      {{5, 3, 2, 2}, {3, 1, 1, 1}, {3, 2, 1, 2}, {3, 2, 1, 2}, {1, 3, 1}},   // part rows, a duplicate: the last wins
      {{4, 3}, {1, 1}, {2, 3}, {2, 3}, {2}},                                 // one index for every update row
      {{4, 3}, {2, 1}, {2, 2}, {2}, {3, 0}},                                 // a shorter shape, aligned right
      {{6}, {2}, {2}, {2}, {5, 0}},                                          // 1-D
  };
  for (const RowCase& c : cases) {
    const std::string what = "data " + shape_to_string(c.data_dims) + " updates " + shape_to_string(c.update_dims);
    KernelTest rows("ScatterRows");
    rows.input(counting(c.data_dims, 0)).input(i64(c.row_dims, c.rows)).input(counting(c.update_dims, 100));
    rows.input(i64({static_cast<int64_t>(c.shape.size())}, c.shape)).output(F::kFloat32, c.data_dims);
    rows.node().set_domain("ge");
    Result<std::vector<Tensor>> got = rows.run();
    ASSERT_TRUE(got.is_ok()) << what << ": " << got.status().to_string();
    // The indices Expand would write: rows broadcast to the updates' shape.
    std::vector<int64_t> expanded(static_cast<size_t>(product(c.update_dims)));
    const int64_t per_row = product(c.update_dims, 1, c.update_dims.size());
    for (size_t i = 0; i < expanded.size(); ++i) {
      expanded[i] = c.rows[c.rows.size() == 1 ? 0 : i / static_cast<size_t>(per_row)];
    }
    KernelTest elements("ScatterElements");
    elements.input(counting(c.data_dims, 0)).input(i64(c.update_dims, expanded)).input(counting(c.update_dims, 100));
    elements.attribute("axis", int64_t{0}).output(F::kFloat32, c.data_dims);
    GE_RUN_KERNEL(expected, elements);
    expect_tensor<float>(got->at(0), c.data_dims,
                         std::vector<float>(expected[0].values<float>().begin(), expected[0].values<float>().end()));
  }
}

TEST(ScatterRowsKernel, AnIndexOutOfRangeOrAShapeThatIsNotTheUpdatesIsALaunchError) {
  KernelTest out_of_range("ScatterRows");
  out_of_range.input(counting({3, 2}, 0)).input(i64({2, 1}, {0, 3})).input(counting({2, 2}, 9));
  out_of_range.input(i64({2}, {2, 2})).output(F::kFloat32, {3, 2});
  out_of_range.node().set_domain("ge");
  int code = 0;
  Result<std::vector<Tensor>> result = out_of_range.run(&code);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(code, kKernelIndexOutOfRange);
  KernelTest mismatch("ScatterRows");  // Expand([2,1], [2,1]) is [2,1], the updates [2,2]
  mismatch.input(counting({3, 2}, 0)).input(i64({2, 1}, {0, 1})).input(counting({2, 2}, 9));
  mismatch.input(i64({2}, {2, 1})).output(F::kFloat32, {3, 2});
  mismatch.node().set_domain("ge");
  result = mismatch.run(&code);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(code, kKernelRuntimeShapeMismatch);
  KernelTest wide_rows("ScatterRows");  // rows [2, 2]: not a row index
  wide_rows.input(counting({3, 2}, 0)).input(i64({2, 2}, {0, 1, 1, 0})).input(counting({2, 2}, 9));
  wide_rows.input(i64({2}, {2, 2})).output(F::kFloat32, {3, 2});
  wide_rows.node().set_domain("ge");
  EXPECT_FALSE(wide_rows.prepare().is_ok());
}

}  // namespace
}  // namespace ge::reference_kernels::testing
