#include "precision_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ge/tensor.h"

namespace ge::tools {
namespace {

TaskTraceRecord kernel(const std::string& name, const std::string& node) {
  TaskTraceRecord record;
  record.name = name;
  record.node = node;
  return record;
}

RuntimeValue floats(const std::vector<float>& values) {
  return RuntimeValue::of(Tensor::from_vector<float>({static_cast<int64_t>(values.size())}, values));
}

RuntimeValue int64s(const std::vector<int64_t>& values) {
  return RuntimeValue::of(Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values));
}

TEST(PrecisionReport, KernelPrecisionIsTheNamesLastPart) {
  EXPECT_EQ(kernel_precision("cpu.Conv.dnnl:brg:avx512_core.bf16"), "bf16");
  EXPECT_EQ(kernel_precision("cpu.MatMul.dnnl:gemm:jit.1x1.bf16"), "bf16");
  EXPECT_EQ(kernel_precision("cpu.Conv.dnnl:jit:avx2.f16"), "f16");
  // An ISA named in the implementation is not the kernel's precision.
  EXPECT_EQ(kernel_precision("cpu.Conv.dnnl:jit:avx512_core_bf16"), "fp32");
  EXPECT_EQ(kernel_precision("cpu.Relu"), "fp32");
  EXPECT_EQ(kernel_precision("bf16"), "fp32");
}

TEST(PrecisionReport, NodesPerPrecisionOnceEachInTheOrderTheyRan) {
  const std::vector<TaskTraceRecord> tasks = {
      kernel("memcpy", ""),
      kernel("cpu.Conv.dnnl:brg:avx512_core.bf16", "Conv 'c1'"),
      kernel("cpu.Relu", "Relu 'r1'"),
      kernel("cpu.Gemm.dnnl:gemm.bf16", "Gemm 'fc'"),
      kernel("cpu.Conv.dnnl:brg:avx512_core.bf16", "Conv 'c1'"),  // a second run
      kernel("cpu.Relu", "Relu 'r1'"),
      kernel("event_record", ""),
  };
  EXPECT_EQ(format_node_precisions(tasks, Precision::kBf16, Precision::kBf16, 0),
            "precision: bf16; nodes by the precision their kernels computed in:\n"
            "  bf16: 2 nodes: Conv 'c1', Gemm 'fc'\n"
            "  fp32: 1 node (the model's own types): Relu 'r1'\n");
  EXPECT_EQ(format_node_precisions(tasks, Precision::kBf16, Precision::kBf16, 1),
            "precision: bf16; nodes by the precision their kernels computed in:\n"
            "  bf16: 2 nodes: Conv 'c1', ... (1 more; -vv lists all)\n"
            "  fp32: 1 node (the model's own types): Relu 'r1'\n");
}

TEST(PrecisionReport, NodesPerPrecisionSaysWhenTheBackendHadNone) {
  const std::vector<TaskTraceRecord> tasks = {kernel("npu_sim.Conv", "Conv 'c1'")};
  EXPECT_EQ(format_node_precisions(tasks, Precision::kFp32, Precision::kMixed, 0),
            "precision: fp32 (mixed asked; the backend has none); nodes by the precision their kernels computed in:\n"
            "  fp32: 1 node (the model's own types): Conv 'c1'\n");
  EXPECT_EQ(format_node_precisions({}, Precision::kFp32, Precision::kFp32, 0),
            "precision: fp32; nodes by the precision their kernels computed in:\n"
            "  (the device traced no kernel of a named node)\n");
}

TEST(PrecisionReport, FloatErrorsAbsoluteAndRelativeWithAFloorNearZero) {
  // Errors 0.01 at 10 (rel 1e-3), 0.004 at 0.001: its relative error is floored at
  // 1e-3 * max |x32| = 0.01, so 0.4, not 4.
  const PrecisionError e = compare_with_float32(floats({10.01f, 0.005f, -2.0f}), floats({10.0f, 0.001f, -2.0f}));
  ASSERT_TRUE(e.compared);
  EXPECT_TRUE(e.floating);
  EXPECT_EQ(e.elements, 3);
  EXPECT_NEAR(e.max_abs, 0.01, 1e-6);
  EXPECT_NEAR(e.max_rel, 0.4, 1e-4);
  EXPECT_NEAR(e.reference_max, 10.0, 1e-6);
  EXPECT_EQ(e.non_finite, 0);
  const PrecisionError same = compare_with_float32(floats({1, 2}), floats({1, 2}));
  EXPECT_EQ(same.max_abs, 0);
  EXPECT_EQ(same.max_rel, 0);
}

TEST(PrecisionReport, NonFiniteWhereFloat32IsFiniteIsCountedAndLeftOutOfTheErrors) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const PrecisionError e = compare_with_float32(floats({nan, inf, 1.5f, nan}), floats({1.0f, 2.0f, 1.0f, nan}));
  ASSERT_TRUE(e.compared);
  EXPECT_EQ(e.non_finite, 2);  // the last is NaN in float32 too: not counted
  EXPECT_NEAR(e.max_abs, 0.5, 1e-6);
  EXPECT_EQ(format_precision_check(Precision::kBf16, Precision::kBf16, {"y"}, {e}),
            "check precision: bf16 against fp32 on the same inputs:\n"
            "  output 0 'y': max abs error 0.5, max rel error 0.5, max abs / max |fp32| 0.25 (fp32 max |x| 2, 4 "
            "elements); argmax over the last axis agrees in 0 of 1 rows; NON-FINITE: 2 of 4 elements are NaN or inf "
            "where fp32's are finite\n");
}

TEST(PrecisionReport, ArgmaxAlongTheLastAxisPerRow) {
  // Row 0 keeps its top class, row 1 swaps it; a scalar output has no rows.
  const RuntimeValue got = RuntimeValue::of(Tensor::from_vector<float>({2, 3}, {0.1f, 0.7f, 0.2f, 0.5f, 0.4f, 0.1f}));
  const RuntimeValue want = RuntimeValue::of(Tensor::from_vector<float>({2, 3}, {0.1f, 0.8f, 0.1f, 0.4f, 0.5f, 0.1f}));
  const PrecisionError e = compare_with_float32(got, want);
  EXPECT_EQ(e.rows, 2);
  EXPECT_EQ(e.rows_same_argmax, 1);
  EXPECT_NE(format_precision_check(Precision::kBf16, Precision::kBf16, {"p"}, {e})
                .find("; argmax over the last axis agrees in 1 of 2 rows\n"),
            std::string::npos);
  const RuntimeValue scalar = RuntimeValue::of(Tensor::from_vector<float>({}, {1.0f}));
  EXPECT_EQ(compare_with_float32(scalar, scalar).rows, 0);
}

TEST(PrecisionReport, IntegerOutputsCountMismatchesAndOtherShapesAreNotCompared) {
  const PrecisionError classes = compare_with_float32(int64s({3, 7, 1}), int64s({3, 5, 1}));
  ASSERT_TRUE(classes.compared);
  EXPECT_FALSE(classes.floating);
  EXPECT_EQ(classes.mismatches, 1);
  const PrecisionError shapes = compare_with_float32(floats({1, 2}), floats({1, 2, 3}));
  EXPECT_FALSE(shapes.compared);
  EXPECT_EQ(format_precision_check(Precision::kFp32, Precision::kBf16, {"top1", "z"}, {classes, shapes}),
            "check precision: fp32 (bf16 asked; the backend has none) against fp32 on the same inputs:\n"
            "  output 0 'top1': 1 of 3 elements differ (max abs difference 2)\n"
            "  output 1 'z': not compared: float32[2] against fp32's float32[3]\n");
}

}  // namespace
}  // namespace ge::tools
