#include "ge/autofuse/loop_ir.h"

#include <gtest/gtest.h>

#include "ge/autofuse/loop_plan.h"

namespace ge::autofuse {
namespace {

constexpr const char* kRmsNorm =
    "autofuse 1\n"
    "shape 4 32\n"
    "reduce 1\n"
    "input 4 32\n"
    "input 32\n"
    "%0 = load 0\n"
    "%1 = mul %0 %0\n"
    "%2 = reduce_mean %1\n"
    "%3 = const 0x1.4f8b58p-17\n"
    "%4 = add %2 %3\n"
    "%5 = sqrt %4\n"
    "%6 = div %0 %5\n"
    "%7 = load 1\n"
    "%8 = mul %6 %7\n"
    "output %8 4 32\n"
    "output %5 4 1\n";

TEST(LoopIr, ParsesPrintsAndRoundTrips) {
  Result<Program> parsed = parse(kRmsNorm);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  const Program& p = parsed.value();
  EXPECT_EQ(p.shape, (std::vector<int64_t>{4, 32}));
  EXPECT_EQ(p.reduced_axes, 1);
  ASSERT_EQ(p.code.size(), 9u);
  EXPECT_EQ(p.code[3].constant, 1e-5f);
  EXPECT_EQ(print(p), kRmsNorm);
  const std::vector<bool> row = row_values(p);
  EXPECT_EQ(row, (std::vector<bool>{false, false, true, true, true, true, false, false, false}));
  EXPECT_EQ(row_count(p), 4);
  EXPECT_EQ(row_length(p), 32);
}

TEST(LoopIr, RejectsInvalidPrograms) {
  auto error = [](const std::string& text) {
    Result<Program> parsed = parse(text);
    return parsed.is_ok() ? std::string() : parsed.status().message();
  };
  const std::string head = "autofuse 1\nshape 4 32\nreduce 1\ninput 4 32\n%0 = load 0\n";
  EXPECT_NE(error("").find("empty"), std::string::npos);
  EXPECT_NE(error("autofuse 2\n").find("expected 'autofuse 1'"), std::string::npos);
  EXPECT_NE(error(head + "%1 = frobnicate %0\noutput %1 4 32\n").find("unknown op"), std::string::npos);
  EXPECT_NE(error(head + "%1 = add %0 %5\noutput %1 4 32\n").find("not an earlier value"), std::string::npos);
  EXPECT_NE(error(head + "%2 = neg %0\n").find("expected %1"), std::string::npos);
  EXPECT_NE(error(head + "%1 = reduce_sum %0\n%2 = reduce_sum %1\noutput %2 4 1\n").find("reduces a row value"),
            std::string::npos);
  EXPECT_NE(error(head + "output %0 4 1\n").find("elements"), std::string::npos);
  EXPECT_NE(error(head).find("no outputs"), std::string::npos);
  EXPECT_NE(error("autofuse 1\nshape 4 32\nreduce 1\ninput 4 2\n%0 = load 0\noutput %0 4 32\n").find("broadcast"),
            std::string::npos);
  // Along the reduced axes an input is whole or constant, never partly broadcast.
  EXPECT_NE(error("autofuse 1\nshape 3 4 5\nreduce 2\ninput 4 1\n%0 = load 0\noutput %0 3 4 5\n")
                .find("neither constant nor complete"),
            std::string::npos);
  EXPECT_NE(error("autofuse 1\nshape 4 0\nreduce 0\ninput 4\n%0 = load 0\noutput %0 4\n").find("dim 0"),
            std::string::npos);
  EXPECT_NE(error("autofuse 1\nshape 4\nreduce 0\ninput 4\n%0 = load 3\noutput %0 4\n").find("does not exist"),
            std::string::npos);
}

constexpr const char* kMaskedSoftmax =
    "autofuse 1\n"
    "shape 2 8\n"
    "reduce 1\n"
    "input float16 2 8\n"
    "input bool 8\n"
    "%0 = load 0\n"
    "%1 = load 1\n"
    "%2 = const -inf\n"
    "%3 = where %1 %0 %2\n"
    "%4 = reduce_max %3\n"
    "%5 = sub %3 %4\n"
    "%6 = exp %5\n"
    "%7 = reduce_sum %6\n"
    "%8 = div %6 %7\n"
    "%9 = greater %8 %2\n"
    "%10 = cast_bool %4\n"
    "output %8 2 8\n"
    "output %9 bool 2 8\n"
    "output %10 bool 2 1\n";

TEST(LoopIr, DtypesAndWhereRoundTrip) {
  Result<Program> parsed = parse(kMaskedSoftmax);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  const Program& p = parsed.value();
  EXPECT_EQ(p.inputs[0].dtype, DataType::kFloat16);
  EXPECT_EQ(p.inputs[1].dtype, DataType::kBool);
  EXPECT_EQ(p.inputs[1].dims, (std::vector<int64_t>{8}));
  EXPECT_EQ(p.code[3].op, Op::kWhere);
  EXPECT_EQ(operands(p.code[3]), (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(p.outputs[0].dtype, DataType::kFloat32);
  EXPECT_EQ(p.outputs[1].dtype, DataType::kBool);
  EXPECT_EQ(print(p), kMaskedSoftmax);
  EXPECT_EQ(boolean_values(p), (std::vector<bool>{false, true, false, false, false, false, false, false, false, true,
                                                  true}));
  const std::vector<bool> row = row_values(p);
  EXPECT_FALSE(row[3]) << "where of a full value is full";
  EXPECT_TRUE(row[10]);
  // "float32" is the default, accepted when written out and not printed.
  EXPECT_EQ(print(parse("autofuse 1\nshape 4\nreduce 0\ninput float32 4\n%0 = load 0\noutput %0 float32 4\n").value()),
            "autofuse 1\nshape 4\nreduce 0\ninput 4\n%0 = load 0\noutput %0 4\n");
}

TEST(LoopIr, RejectsBadDtypes) {
  auto error = [](const std::string& text) {
    Result<Program> parsed = parse(text);
    return parsed.is_ok() ? std::string() : parsed.status().message();
  };
  const std::string head = "autofuse 1\nshape 4\nreduce 0\n";
  EXPECT_NE(error(head + "input float17 4\n").find("unknown dtype 'float17'"), std::string::npos);
  EXPECT_NE(error(head + "input int32 4\n%0 = load 0\noutput %0 4\n").find("is int32, expected float32, float16, bool or int64"),
            std::string::npos);
  EXPECT_NE(error(head + "input 4\n%0 = load 0\noutput %0 int32 4\n").find("is int32, expected float32, float16 or bool"),
            std::string::npos);
  Result<Program> half = parse(head + "input float16 4\n%0 = load 0\noutput %0 float16 4\n");
  ASSERT_TRUE(half.is_ok()) << half.status().to_string();
  EXPECT_EQ(half.value().outputs[0].dtype, DataType::kFloat16);
  EXPECT_NE(print(half.value()).find("output %0 float16 4"), std::string::npos);
  EXPECT_NE(error(head + "input 4\n%0 = load 0\noutput %0 bool 4\n").find("is not always 0 or 1"), std::string::npos);
  EXPECT_NE(error(head + "input bool 4\n%0 = load 0\n%1 = const 2\n%2 = where %0 %0 %1\noutput %2 bool 4\n")
                .find("output 0 is bool, its value %2 is not always 0 or 1"),
            std::string::npos);
  EXPECT_NE(error(head + "input 4\n%0 = load 0\n%1 = where %0 %0\noutput %1 4\n").find("expected 3 operands"),
            std::string::npos);
  EXPECT_NE(error(head + "input 4\n%0 = load 0\n%1 = where %0 %0 %1\noutput %1 4\n").find("not an earlier value"),
            std::string::npos);
  EXPECT_EQ(error(head + "input bool 4\n%0 = load 0\n%1 = const 1\n%2 = where %0 %0 %1\noutput %2 bool 4\n"), "");
}

TEST(LoopPlan, CoalescesRowsAndFindsTheInnerExtent) {
  // No reduction: [2, 3, 4, 5] with a [4, 5] input walks 6 rows of 20.
  Program p = parse("autofuse 1\nshape 2 3 4 5\nreduce 0\ninput 2 3 4 5\ninput 4 5\n%0 = load 0\n%1 = load 1\n"
                    "%2 = add %0 %1\noutput %2 2 3 4 5\n")
                  .value();
  LoopPlan plan = plan_loops(p);
  EXPECT_EQ(plan.inner, 20);
  EXPECT_EQ(plan.rows, 6);
  EXPECT_EQ(plan.outer_dims, (std::vector<int64_t>{6}));
  EXPECT_EQ(plan.inputs[0].outer_strides, (std::vector<int64_t>{20}));
  EXPECT_EQ(plan.inputs[1].outer_strides, (std::vector<int64_t>{0}));
  EXPECT_TRUE(plan.inputs[1].contiguous_inner);
  // A per-channel operand [3, 1, 1] of [2, 3, 4, 5]: rows are (n, c), each constant; n
  // and c do not coalesce (the operand repeats over n).
  p = parse("autofuse 1\nshape 2 3 4 5\nreduce 0\ninput 2 3 4 5\ninput 3 1 1\n%0 = load 0\n%1 = load 1\n"
            "%2 = mul %0 %1\noutput %2 2 3 4 5\n")
          .value();
  plan = plan_loops(p);
  EXPECT_EQ(plan.inner, 20);
  EXPECT_EQ(plan.outer_dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(plan.inputs[0].outer_strides, (std::vector<int64_t>{60, 20}));
  EXPECT_EQ(plan.inputs[1].outer_strides, (std::vector<int64_t>{0, 1}));
  EXPECT_FALSE(plan.inputs[1].contiguous_inner);
  EXPECT_TRUE(plan.per_row[1]);
  EXPECT_FALSE(plan.per_row[2]);
  EXPECT_EQ(row_offset(plan, 1, 4), 1);  // row 4 is n=1, c=1
  // A reduction fixes the inner extent to the reduced axes.
  plan = plan_loops(parse(kRmsNorm).value());
  EXPECT_EQ(plan.inner, 32);
  EXPECT_EQ(plan.rows, 4);
  EXPECT_EQ(plan.output_per_row, (std::vector<bool>{false, true}));
}

// A channel LayerNorm's mean over axis 1 of [N, C, H, W]: "reduce 1 inner 2". Rows are
// (n, h, w); the plan walks rows of n, the reduced extent C strided by H * W, and H * W
// lanes; a per-channel [C, 1, 1] operand is whole along C and constant along the lanes.
constexpr const char* kChannelMean =
    "autofuse 1\n"
    "shape 2 8 1 5\n"
    "reduce 1 inner 2\n"
    "input 2 8 1 5\n"
    "input 8 1 1\n"
    "input 2 1 1 5\n"
    "%0 = load 0\n"
    "%1 = load 1\n"
    "%2 = mul %0 %1\n"
    "%3 = reduce_mean %2\n"
    "%4 = load 2\n"
    "%5 = add %3 %4\n"
    "output %5 2 1 1 5\n"
    "output %2 2 8 1 5\n";

TEST(LoopIr, ReducesAxesBeforeInnerOnes) {
  Result<Program> parsed = parse(kChannelMean);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  const Program& p = parsed.value();
  EXPECT_EQ(p.reduced_axes, 1);
  EXPECT_EQ(p.inner_axes, 2);
  EXPECT_EQ(print(p), kChannelMean);
  EXPECT_EQ(first_reduced_axis(p), 1u);
  EXPECT_EQ(row_count(p), 10);
  EXPECT_EQ(row_length(p), 8);
  EXPECT_EQ(row_values(p), (std::vector<bool>{false, false, false, true, true, true}));
  const LoopPlan plan = plan_loops(p);
  EXPECT_EQ(plan.outer_dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(plan.inner, 8);
  EXPECT_EQ(plan.lanes, 5);
  EXPECT_EQ(plan.inputs[0].outer_strides, (std::vector<int64_t>{40}));
  EXPECT_EQ(plan.inputs[0].inner_stride, 5);
  EXPECT_TRUE(plan.inputs[0].contiguous_lanes);
  EXPECT_EQ(plan.inputs[1].inner_stride, 1);
  EXPECT_FALSE(plan.inputs[1].contiguous_lanes);
  EXPECT_EQ(plan.inputs[2].outer_strides, (std::vector<int64_t>{5}));
  EXPECT_EQ(plan.inputs[2].inner_stride, 0);
  EXPECT_TRUE(plan.inputs[2].contiguous_lanes);
  EXPECT_EQ(plan.per_row, (std::vector<bool>{false, false, false, true, true, true}));
  EXPECT_EQ(plan.output_per_row, (std::vector<bool>{true, false}));
  // Without inner axes the text and the plan are as before.
  EXPECT_EQ(plan_loops(parse(kRmsNorm).value()).lanes, 1);
}

TEST(LoopIr, RejectsBadInnerAxes) {
  auto error = [](const std::string& text) {
    Result<Program> parsed = parse(text);
    return parsed.is_ok() ? std::string() : parsed.status().message();
  };
  const std::string tail = "input 3 4 5\n%0 = load 0\noutput %0 3 4 5\n";
  EXPECT_NE(error("autofuse 1\nshape 3 4 5\nreduce 0 inner 1\n" + tail).find("needs reduced axes"), std::string::npos);
  EXPECT_NE(error("autofuse 1\nshape 3 4 5\nreduce 2 inner 2\n" + tail).find("outside [0, 1]"), std::string::npos);
  EXPECT_NE(error("autofuse 1\nshape 3 4 5\nreduce 1 inner\n" + tail).find("expected 'reduce N' or 'reduce N inner M'"),
            std::string::npos);
  // Along the inner axes an input is whole or constant, never partly broadcast.
  EXPECT_NE(error("autofuse 1\nshape 3 4 5\nreduce 1 inner 2\ninput 5\n%0 = load 0\noutput %0 3 4 5\n")
                .find("neither constant nor complete along the inner axes"),
            std::string::npos);
  EXPECT_EQ(error("autofuse 1\nshape 3 4 5\nreduce 1 inner 2\ninput 4 5\n%0 = load 0\noutput %0 4 5\n"), "");
}

}  // namespace
}  // namespace ge::autofuse
