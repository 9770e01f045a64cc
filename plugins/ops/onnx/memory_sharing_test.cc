#include "memory_sharing.h"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include <set>
#include <string>

#include "onnx_op_library.h"

namespace ge::onnx_ops {
namespace {

// What the memory planner ran in place and as views when it held these lists itself
// (core/src/memory_plan.cc before the op libraries declared them): the declarations must
// give exactly the same plans.
const std::set<std::string> kFormerInPlaceOps = {
    "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization", "BitShift",
    "Ceil", "Celu", "Clip", "Cos", "Cosh", "Div", "Elu", "Erf", "Exp", "Floor", "HardSigmoid", "HardSwish",
    "LeakyRelu", "Log", "Max", "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu",
    "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt",
    "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Where", "Xor"};
const std::set<std::string> kFormerViewOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
// Continuous memory: the planner and the runtime named Concat of ai.onnx, its axis in "axis".
const std::set<std::string> kFormerConcatOps = {"Concat"};

TEST(MemorySharingTest, EverySchemaVersionDeclaresWhatThePlannerUsedToKnow) {
  OnnxOpLibrary library;
  size_t checked = 0, in_place = 0, views = 0, concatenations = 0, constants = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (!schema.domain().empty()) continue;
    const OpSchemaInfo* info = library.find_schema("", schema.Name(), schema.SinceVersion());
    ASSERT_NE(info, nullptr) << schema.Name() << "-" << schema.SinceVersion();
    if (info->since_version != schema.SinceVersion()) continue;  // a version GE does not run
    SCOPED_TRACE(schema.Name() + "-" + std::to_string(schema.SinceVersion()));
    ++checked;
    const bool expect_in_place = kFormerInPlaceOps.count(schema.Name()) != 0;
    EXPECT_EQ(!info->in_place.empty(), expect_in_place);
    for (size_t input = 0; input < 5; ++input) {
      EXPECT_EQ(info->may_run_in_place(input, 0), expect_in_place) << "input " << input;
      EXPECT_FALSE(info->may_run_in_place(input, 1)) << "only output 0 runs in place";
    }
    EXPECT_EQ(info->is_view, kFormerViewOps.count(schema.Name()) != 0);
    EXPECT_EQ(info->concatenates_along, kFormerConcatOps.count(schema.Name()) != 0 ? "axis" : "");
    EXPECT_EQ(info->is_constant, schema.Name() == "Constant");
    constants += info->is_constant;
    in_place += expect_in_place;
    views += info->is_view;
    concatenations += !info->concatenates_along.empty();
  }
  EXPECT_GT(checked, 300u);
  EXPECT_GE(in_place, kFormerInPlaceOps.size());
  EXPECT_GE(views, kFormerViewOps.size());
  // Every Concat version GE runs (1, 4, 11, 13).
  EXPECT_GE(concatenations, 4u);
  EXPECT_GE(constants, 5u);  // Constant 1, 9, 11, 12, 13, 19, 21, 23, ...
}

TEST(MemorySharingTest, OtherDomainsShareNothing) {
  EXPECT_TRUE(in_place_pairs_for("ai.onnx.ml", "Relu").empty());
  EXPECT_TRUE(in_place_pairs_for("com.example", "Add").empty());
  EXPECT_FALSE(in_place_pairs_for("ai.onnx", "Add").empty());
  EXPECT_FALSE(is_view_op("com.example", "Reshape"));
  EXPECT_FALSE(is_constant_op("com.example", "Constant"));
  EXPECT_TRUE(is_constant_op("ai.onnx", "Constant"));
  EXPECT_TRUE(is_view_op("ai.onnx", "Reshape"));
  EXPECT_FALSE(is_view_op("", "Transpose"));
  EXPECT_EQ(concatenation_axis_attribute("ai.onnx", "Concat"), "axis");
  EXPECT_EQ(concatenation_axis_attribute("com.example", "Concat"), "");
  EXPECT_EQ(concatenation_axis_attribute("", "ConcatFromSequence"), "");
}

}  // namespace
}  // namespace ge::onnx_ops
