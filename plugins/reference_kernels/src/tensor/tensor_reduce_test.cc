// Reduce*, ArgMax/ArgMin, CumSum and TopK kernel tests. x is the [3,2,2] tensor of the
// ONNX reduce examples [[[5,1],[20,2]],[[30,1],[40,2]],[[55,1],[60,2]]]; expected values
// printed by numpy (/usr/bin/python3), e.g. np.sqrt(np.sum(x*x, axis=2)).

#include <gtest/gtest.h>

#include <limits>

#include "tensor/tensor_common.h"
#include "testing/kernel_test_util.h"
#include "testing/tensor_test_support.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor x() { return f32({3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2}); }

TEST(ReduceKernel, SumWithAxesInputKeepsDims) {
  KernelTest test("ReduceSum", 13);
  test.input(x()).input(i64({1}, {-2})).output(F::kFloat32, {3, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 1, 2}, {25, 3, 70, 3, 115, 3});
}

TEST(ReduceKernel, SumEmptyAxesReducesAllOrNothing) {
  KernelTest all("ReduceSum", 13);
  all.input(x()).input(i64({0}, {})).attribute("keepdims", int64_t{0}).output(F::kFloat32, {});
  GE_RUN_KERNEL(total, all);
  expect_tensor<float>(total[0], {}, {219});
  KernelTest noop("ReduceSum", 13);
  noop.input(x()).input(i64({0}, {})).attribute("noop_with_empty_axes", int64_t{1}).output(F::kFloat32, {3, 2, 2});
  GE_RUN_KERNEL(same, noop);
  expect_tensor<float>(same[0], {3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
}

TEST(ReduceKernel, AxesInputThatContradictsTheOutputFailsAtLaunch) {
  KernelTest test("ReduceSum", 13);
  test.input(x()).input(i64({1}, {0})).output(F::kFloat32, {3, 1, 2});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelRuntimeShapeMismatch);
}

TEST(ReduceKernel, AttributeAxes) {
  KernelTest l2("ReduceL2", 13);
  l2.input(x())
      .attribute("axes", std::vector<int64_t>{2})
      .attribute("keepdims", int64_t{0})
      .output(F::kFloat32, {3, 2});
  GE_RUN_KERNEL(l2_out, l2);
  expect_tensor<float>(l2_out[0], {3, 2},
                       {5.0990195f, 20.0997505f, 30.0166626f, 40.0499687f, 55.0090904f, 60.0333252f});
  KernelTest log_sum("ReduceLogSum", 13);
  log_sum.input(x())
      .attribute("axes", std::vector<int64_t>{0, 2})
      .attribute("keepdims", int64_t{0})
      .output(F::kFloat32, {2});
  GE_RUN_KERNEL(log_sum_out, log_sum);
  expect_tensor<float>(log_sum_out[0], {2}, {4.5325994f, 4.8362818f});
  KernelTest mean("ReduceMean", 13);
  mean.input(x()).attribute("axes", std::vector<int64_t>{0}).output(F::kFloat32, {1, 2, 2});
  GE_RUN_KERNEL(mean_out, mean);
  expect_tensor<float>(mean_out[0], {1, 2, 2}, {30, 1, 40, 2});
  KernelTest prod("ReduceProd", 13);
  prod.input(x()).attribute("axes", std::vector<int64_t>{-1}).output(F::kFloat32, {3, 2, 1});
  GE_RUN_KERNEL(prod_out, prod);
  expect_tensor<float>(prod_out[0], {3, 2, 1}, {5, 40, 30, 80, 55, 120});
}

// Gives a Reduce* node at opset 13 its axes: input 1 of ReduceSum, the attribute of the
// others (after the data input).
void set_axes(KernelTest& test, const std::string& op, const std::vector<int64_t>& axes) {
  if (op == "ReduceSum") {
    test.input(i64({static_cast<int64_t>(axes.size())}, axes));
  } else {
    test.attribute("axes", axes);
  }
}

// The in-order double sum of `count` values from `first`, `stride` apart (a mean divides
// it by `count`), rounded once to float.
float in_order_sum(const std::vector<float>& values, int64_t first, int64_t stride, int64_t count, bool mean) {
  double sum = 0.0;
  for (int64_t i = 0; i < count; ++i) sum += values[static_cast<size_t>(first + i * stride)];
  return static_cast<float>(mean ? sum / static_cast<double>(count) : sum);
}

// Float32 Sum/Mean over the innermost axes take a vectorised path (eight partial sums in
// double); every other reduction walks the input in order. Both must agree with an
// in-order double sum rounded once, for row lengths around the lane count.
TEST(ReduceKernel, InnermostFloatSumAndMeanMatchAnInOrderDoubleSum) {
  for (const int64_t length : {1, 7, 8, 9, 37, 1000}) {
    const int64_t rows = 6;
    std::vector<float> values(static_cast<size_t>(rows * length));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 7919) % 1013) * 0.37f - 150.0f;
    for (const std::string op : {"ReduceSum", "ReduceMean"}) {
      for (const bool both_axes : {false, true}) {
        // [rows/2, 2, length]: axes {2}, or {1, 2} (then each output reduces 2 * length)
        const int64_t per_output = both_axes ? 2 * length : length;
        const std::vector<int64_t> axes = both_axes ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{-1};
        KernelTest test(op, 13);
        test.input(f32({rows / 2, 2, length}, values)).attribute("keepdims", int64_t{0});
        set_axes(test, op, axes);
        const std::vector<int64_t> y_dims = both_axes ? std::vector<int64_t>{rows / 2} : std::vector<int64_t>{rows / 2, 2};
        test.output(F::kFloat32, y_dims);
        GE_RUN_KERNEL(out, test);
        const int64_t outputs = rows * length / per_output;
        ASSERT_EQ(out[0].element_count(), outputs);
        for (int64_t r = 0; r < outputs; ++r) {
          EXPECT_FLOAT_EQ(out[0].data<float>()[r], in_order_sum(values, r * per_output, 1, per_output, op == "ReduceMean"))
              << op << " length " << length << " row " << r;
        }
      }
    }
  }
}

// Float32 Sum/Mean over the outermost axes (pooling over rows) take a path of column
// sums, a block of columns at a time: the same in-order double sum per column, rounded
// once, for column counts around the block size, over one and over two leading axes.
TEST(ReduceKernel, OutermostFloatSumAndMeanMatchAnInOrderDoubleSum) {
  for (const int64_t columns : {1, 9, 255, 256, 257, 600}) {
    const int64_t rows = 10;  // [rows/2, 2, columns]
    std::vector<float> values(static_cast<size_t>(rows * columns));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 7919) % 1013) * 0.37f - 150.0f;
    for (const std::string op : {"ReduceSum", "ReduceMean"}) {
      for (const bool both_axes : {false, true}) {
        // axes {0}: [2, columns] outputs over rows/2 rows; {0, 1}: [columns] over all rows
        const std::vector<int64_t> axes = both_axes ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0};
        const int64_t per_output = both_axes ? rows : rows / 2, outputs = rows * columns / per_output;
        KernelTest test(op, 13);
        test.input(f32({rows / 2, 2, columns}, values)).attribute("keepdims", int64_t{1});
        set_axes(test, op, axes);
        test.output(F::kFloat32, both_axes ? std::vector<int64_t>{1, 1, columns} : std::vector<int64_t>{1, 2, columns});
        GE_RUN_KERNEL(out, test);
        ASSERT_EQ(out[0].element_count(), outputs);
        for (int64_t c = 0; c < outputs; ++c) {
          EXPECT_EQ(out[0].data<float>()[c], in_order_sum(values, c, outputs, per_output, op == "ReduceMean"))
              << op << " columns " << columns << " at " << c;
        }
      }
    }
  }
}

// A float32 ReduceMean over an outer axis keeps the general path: same values as numpy.
TEST(ReduceKernel, OuterAxisFloatMeanUsesTheGeneralPath) {
  KernelTest test("ReduceMean", 13);
  test.input(x()).attribute("axes", std::vector<int64_t>{1}).attribute("keepdims", int64_t{0}).output(F::kFloat32, {3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 2}, {12.5f, 1.5f, 35, 1.5f, 57.5f, 1.5f});
}

TEST(ReduceKernel, LogSumExpIsStableForLargeValues) {
  // log(sum(exp(x))) for x = [1000, 1000]: 1000 + log 2.
  KernelTest test("ReduceLogSumExp", 13);
  test.input(f64({2}, {1000, 1000})).attribute("keepdims", int64_t{0}).output(F::kFloat64, {});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {}, {1000.6931471805599});
}

TEST(ReduceKernel, EmptySetGivesTheIdentity) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<std::string, float>> cases = {
      {"ReduceSum", 0.0f}, {"ReduceProd", 1.0f}, {"ReduceMax", -inf}, {"ReduceMin", inf}, {"ReduceLogSumExp", -inf}};
  for (const auto& [op, expected] : cases) {
    // Opset 11: every reduction takes its axes as an attribute.
    KernelTest test(op, 11);
    test.input(f32({2, 0}, {})).attribute("axes", std::vector<int64_t>{1}).output(F::kFloat32, {2, 1});
    GE_RUN_KERNEL(out, test);
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(out[0].data<float>()[0], expected) << op;  // exact: infinities compare equal
    EXPECT_EQ(out[0].data<float>()[1], expected) << op;
  }
}

TEST(ReduceKernel, IntegersStayExact) {
  // int64 values beyond double's 53-bit mantissa sum exactly; min keeps the type.
  const int64_t big = (int64_t{1} << 60) + 1;
  KernelTest sum("ReduceSum", 13);
  sum.input(i64({2}, {big, 2})).input(i64({1}, {0})).attribute("keepdims", int64_t{0}).output(F::kInt64, {});
  GE_RUN_KERNEL(sum_out, sum);
  expect_tensor<int64_t>(sum_out[0], {}, {big + 2});
  KernelTest min("ReduceMin", 13);
  min.input(i32({2, 2}, {3, -4, 7, 1})).attribute("axes", std::vector<int64_t>{0}).output(F::kInt32, {1, 2});
  GE_RUN_KERNEL(min_out, min);
  expect_tensor<int32_t>(min_out[0], {1, 2}, {3, -4});
}

TEST(ReduceKernel, Float16AccumulatesInWideTypeAndRounds) {
  // 1.5 + 2.25 = 3.75: bit patterns 0x3e00 + 0x4080 -> 0x4380.
  Tensor x = Tensor::zeros(F::kFloat16, {2});
  x.data<uint16_t>()[0] = 0x3e00;
  x.data<uint16_t>()[1] = 0x4080;
  KernelTest test("ReduceSum", 13);
  test.input(x).input(i64({1}, {0})).attribute("keepdims", int64_t{0}).output(F::kFloat16, {});
  GE_RUN_KERNEL(out, test);
  EXPECT_EQ(out[0].data<uint16_t>()[0], 0x4380);
}

TEST(ArgKernel, TiesFirstOrLast) {
  const Tensor y = f32({2, 3}, {1, 5, 5, 7, 2, 7});
  KernelTest first("ArgMax", 13);
  first.input(y).attribute("axis", int64_t{1}).attribute("keepdims", int64_t{0}).output(F::kInt64, {2});
  GE_RUN_KERNEL(first_out, first);
  expect_tensor<int64_t>(first_out[0], {2}, {1, 0});
  KernelTest last("ArgMax", 13);
  last.input(y)
      .attribute("axis", int64_t{1})
      .attribute("keepdims", int64_t{0})
      .attribute("select_last_index", int64_t{1});
  last.output(F::kInt64, {2});
  GE_RUN_KERNEL(last_out, last);
  expect_tensor<int64_t>(last_out[0], {2}, {2, 2});
  KernelTest min("ArgMin", 13);
  min.input(y).output(F::kInt64, {1, 3});
  GE_RUN_KERNEL(min_out, min);
  expect_tensor<int64_t>(min_out[0], {1, 3}, {0, 1, 0});
}

TEST(CumSumKernel, ExclusiveReverseAlongAxis) {
  // [[1,2,3],[4,5,6]] along axis 1: exclusive reverse -> [[5,3,0],[11,6,0]].
  KernelTest test("CumSum", 14);
  test.input(f64({2, 3}, {1, 2, 3, 4, 5, 6}))
      .input(i32({}, {-1}))
      .attribute("exclusive", int64_t{1})
      .attribute("reverse", int64_t{1})
      .output(F::kFloat64, {2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {2, 3}, {5, 3, 0, 11, 6, 0});
  KernelTest plain("CumSum", 14);
  plain.input(i64({2, 3}, {1, 2, 3, 4, 5, 6})).input(i64({}, {0})).output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(plain_out, plain);
  expect_tensor<int64_t>(plain_out[0], {2, 3}, {1, 2, 3, 5, 7, 9});
}

TEST(TopKKernel, LargestAndSmallestWithTies) {
  const Tensor v = f32({2, 4}, {3, 1, 3, 2, 0, 9, 8, 9});
  KernelTest largest("TopK", 11);
  largest.input(v).input(i64({1}, {2})).output(F::kFloat32, {2, 2}).output(F::kInt64, {2, 2});
  GE_RUN_KERNEL(top, largest);
  expect_tensor<float>(top[0], {2, 2}, {3, 3, 9, 9});
  expect_tensor<int64_t>(top[1], {2, 2}, {0, 2, 1, 3});
  KernelTest smallest("TopK", 11);
  smallest.input(v)
      .input(i64({1}, {3}))
      .attribute("largest", int64_t{0})
      .output(F::kFloat32, {2, 3})
      .output(F::kInt64, {2, 3});
  GE_RUN_KERNEL(bottom, smallest);
  expect_tensor<float>(bottom[0], {2, 3}, {1, 2, 3, 0, 8, 9});
  expect_tensor<int64_t>(bottom[1], {2, 3}, {1, 3, 0, 0, 2, 1});
}

TEST(TopKKernel, AxisZeroAndMismatchedK) {
  KernelTest axis0("TopK", 11);
  axis0.input(f32({3, 2}, {1, 6, 5, 2, 3, 4}))
      .input(i64({1}, {1}))
      .attribute("axis", int64_t{0})
      .output(F::kFloat32, {1, 2});
  axis0.output(F::kInt64, {1, 2});
  GE_RUN_KERNEL(out, axis0);
  expect_tensor<float>(out[0], {1, 2}, {5, 6});
  expect_tensor<int64_t>(out[1], {1, 2}, {1, 0});
  KernelTest wrong("TopK", 11);
  wrong.input(f32({3}, {1, 2, 3})).input(i64({1}, {2})).output(F::kFloat32, {1}).output(F::kInt64, {1});
  EXPECT_EQ(launch_code(wrong), reference_kernels::kKernelRuntimeShapeMismatch);
}

// ---- opset 18: axes as input 1 for every Reduce*, noop_with_empty_axes; opset 20 bool ----

// Expected values from transcriptions of the ONNX reference's *_18 reduce classes
// (onnx/reference/ops/op_reduce_*.py with _op.OpRunReduceNumpy.handle_axes) run with
// /usr/bin/python3 and numpy on float32 data:
//   over axes [-1, 0] of x() / 10 with keepdims=0, over no axes of `y` with
//   noop_with_empty_axes=1 (each element "reduced" alone: ReduceLogSum is log, ...), and
//   over all axes of `y` with keepdims=1 when the axes input is omitted.
struct ReduceCase {
  const char* op;
  std::vector<float> over_axes;  // shape [2]
  std::vector<float> noop;       // shape [2, 2]
  float all;                     // shape [1, 1]
};

const std::vector<ReduceCase>& reduce_cases() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  static const std::vector<ReduceCase> cases = {
      {"ReduceMax", {5.5f, 6}, {1.5f, -2, 0.25f, 4}, 4},
      {"ReduceMin", {0.100000001f, 0.200000003f}, {1.5f, -2, 0.25f, 4}, -2},
      {"ReduceMean", {1.54999983f, 2.0999999f}, {1.5f, -2, 0.25f, 4}, 0.9375f},
      {"ReduceSum", {9.29999924f, 12.5999994f}, {1.5f, -2, 0.25f, 4}, 3.75f},
      {"ReduceProd", {0.00825000089f, 0.384000033f}, {1.5f, -2, 0.25f, 4}, -3},
      {"ReduceL1", {9.29999924f, 12.5999994f}, {1.5f, 2, 0.25f, 4}, 7.75f},
      {"ReduceL2", {6.28728867f, 7.49132872f}, {1.5f, 2, 0.25f, 4}, 4.72361088f},
      {"ReduceLogSum", {2.23001432f, 2.53369689f}, {0.405465096f, nan, -1.38629436f, 1.38629436f}, 1.32175589f},
      {"ReduceLogSumExp", {5.59746504f, 6.15077353f}, {1.5f, -2, 0.25f, 4}, 4.10263014f},
      {"ReduceSumSquare", {39.5299988f, 56.1200027f}, {2.25f, 4, 0.0625f, 16}, 22.3125f},
  };
  return cases;
}

Tensor y() { return f32({2, 2}, {1.5f, -2, 0.25f, 4}); }

TEST(ReduceKernel, Opset18AxesInputForEveryReduceOp) {
  Tensor x_tenth = f32({3, 2, 2}, {0.5f, 0.1f, 2, 0.2f, 3, 0.1f, 4, 0.2f, 5.5f, 0.1f, 6, 0.2f});
  for (const ReduceCase& c : reduce_cases()) {
    SCOPED_TRACE(c.op);
    KernelTest test(c.op, 18);
    test.input(x_tenth).input(i64({2}, {-1, 0})).attribute("keepdims", int64_t{0}).output(F::kFloat32, {2});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {2}, c.over_axes);
  }
}

TEST(ReduceKernel, Opset18ConstantAxesInputForEveryReduceOp) {
  // The same reductions with the axes as an initializer (prepared, not read at launch).
  Tensor x_tenth = f32({3, 2, 2}, {0.5f, 0.1f, 2, 0.2f, 3, 0.1f, 4, 0.2f, 5.5f, 0.1f, 6, 0.2f});
  for (const ReduceCase& c : reduce_cases()) {
    SCOPED_TRACE(c.op);
    KernelTest test(c.op, 18);
    test.input(x_tenth).initializer(i64({2}, {-1, 0})).attribute("keepdims", int64_t{1});
    test.output(F::kFloat32, {1, 2, 1});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {1, 2, 1}, c.over_axes);
  }
}

TEST(ReduceKernel, Opset18NoopWithEmptyAxesInputForEveryReduceOp) {
  for (const ReduceCase& c : reduce_cases()) {
    SCOPED_TRACE(c.op);
    KernelTest test(c.op, 18);
    test.input(y()).input(i64({0}, {})).attribute("noop_with_empty_axes", int64_t{1}).output(F::kFloat32, {2, 2});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {2, 2}, c.noop);
  }
}

TEST(ReduceKernel, Opset18NoopWithOmittedAxesForEveryReduceOp) {
  for (const ReduceCase& c : reduce_cases()) {
    SCOPED_TRACE(c.op);
    KernelTest test(c.op, 18);
    test.input(y()).attribute("noop_with_empty_axes", int64_t{1}).output(F::kFloat32, {2, 2});
    GE_RUN_KERNEL(out, test);
    expect_tensor<float>(out[0], {2, 2}, c.noop);
  }
}

TEST(ReduceKernel, Opset18OmittedAxesReduceEverythingForEveryReduceOp) {
  for (const ReduceCase& c : reduce_cases()) {
    SCOPED_TRACE(c.op);
    KernelTest omitted(c.op, 18);
    omitted.input(y()).output(F::kFloat32, {1, 1});
    GE_RUN_KERNEL(out, omitted);
    expect_tensor<float>(out[0], {1, 1}, {c.all});
    KernelTest empty(c.op, 18);
    empty.input(y()).input(i64({0}, {})).output(F::kFloat32, {1, 1});
    GE_RUN_KERNEL(empty_out, empty);
    expect_tensor<float>(empty_out[0], {1, 1}, {c.all});
  }
}

TEST(ReduceKernel, Opset18AxesInputOutOfRangeFailsAtLaunch) {
  KernelTest test("ReduceMax", 18);
  test.input(y()).input(i64({1}, {2})).output(F::kFloat32, {2, 1});
  EXPECT_EQ(launch_code(test), reference_kernels::kKernelInvalidRuntimeArgument);
}

// numpy: np.maximum.reduce(b, axis=1) and np.minimum.reduce(b, axis=0, keepdims=True)
// of b = [[True, False, False], [False, False, True]]; an empty reduction gives the
// reference's np.full(shape, False) for Max and np.full(shape, np.inf, dtype=bool) =
// True for Min.
Tensor flags() { return Tensor::from_vector<bool>({2, 3}, {true, false, false, false, false, true}); }

TEST(ReduceKernel, Opset20MaxAndMinOfBool) {
  KernelTest max("ReduceMax", 20);
  max.input(flags()).input(i64({1}, {1})).attribute("keepdims", int64_t{0}).output(F::kBool, {2});
  GE_RUN_KERNEL(max_out, max);
  expect_tensor<bool>(max_out[0], {2}, {true, true});
  KernelTest min("ReduceMin", 20);
  min.input(flags()).input(i64({1}, {0})).output(F::kBool, {1, 3});
  GE_RUN_KERNEL(min_out, min);
  expect_tensor<bool>(min_out[0], {1, 3}, {false, false, false});
}

TEST(ReduceKernel, Opset20EmptyBoolReductions) {
  Tensor empty = Tensor::zeros(DataType::kBool, {0, 2});
  KernelTest max("ReduceMax", 20);
  max.input(empty).input(i64({1}, {0})).attribute("keepdims", int64_t{0}).output(F::kBool, {2});
  GE_RUN_KERNEL(max_out, max);
  expect_tensor<bool>(max_out[0], {2}, {false, false});
  KernelTest min("ReduceMin", 20);
  min.input(empty).input(i64({1}, {0})).attribute("keepdims", int64_t{0}).output(F::kBool, {2});
  GE_RUN_KERNEL(min_out, min);
  expect_tensor<bool>(min_out[0], {2}, {true, true});
}

TEST(ReduceKernel, BoolBeforeOpset20AndForOtherReduceOpsIsUnsupported) {
  KernelTest early("ReduceMax", 18);
  early.input(flags()).output(F::kBool, {1, 1});
  Result<PreparedKernel> kernel = early.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("before opset 20"), std::string::npos) << kernel.status().message();
  KernelTest sum("ReduceSum", 20);
  sum.input(flags()).output(F::kBool, {1, 1});
  Result<PreparedKernel> sum_kernel = sum.prepare();
  ASSERT_FALSE(sum_kernel.is_ok());
  EXPECT_EQ(sum_kernel.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
