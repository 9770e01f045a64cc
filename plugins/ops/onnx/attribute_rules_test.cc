// The attribute rules run before libonnx's inference: each case here reached a division
// by zero (SIGFPE) or a nonsense shape inside libonnx before them.

#include "attribute_rules.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "onnx_op_library.h"

namespace ge::onnx_ops {
namespace {

constexpr int64_t kOpset = 17;

struct Case {
  std::string op_type;
  std::vector<int64_t> x_dims, w_dims;  // w_dims empty: no weight input
  std::string attribute;
  Attribute value;
  std::string message;
};

class AttributeRulesTest : public ::testing::TestWithParam<Case> {
 protected:
  AttributeRulesTest() {
    graph_.set_opset_import("", kOpset);
    registry_.add_library(library_);
  }

  Node* make_node(const Case& c) {
    std::vector<Value*> inputs{graph_.add_input("x", TensorDesc::of(DataType::kFloat32, c.x_dims))};
    if (!c.w_dims.empty()) inputs.push_back(graph_.add_input("w", TensorDesc::of(DataType::kFloat32, c.w_dims)));
    Node* node = graph_.add_node(c.op_type, inputs, 1, "n");
    const bool pool = c.op_type == "MaxPool" || c.op_type == "AveragePool" || c.op_type == "LpPool";
    if (pool && c.attribute != "kernel_shape") {
      node->set_attribute("kernel_shape", std::vector<int64_t>(c.x_dims.size() - 2, 2));
    }
    node->set_attribute(c.attribute, c.value);
    return node;
  }

  std::shared_ptr<OnnxOpLibrary> library_ = std::make_shared<OnnxOpLibrary>();
  OpRegistry registry_;
  Graph graph_;
};

TEST_P(AttributeRulesTest, BrokenRuleIsAnErrorBeforeLibonnxRuns) {
  const Case& c = GetParam();
  Node* node = make_node(c);
  Status status = library_->infer(*node, kOpset, {}, registry_);
  ASSERT_FALSE(status.is_ok()) << c.op_type << " " << c.attribute;
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find(c.op_type + " 'n' (ai.onnx opset 17): attribute '" + c.attribute + "'"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find(c.message), std::string::npos) << status.message();
  EXPECT_FALSE(node->output(0)->desc().has_rank());
}

using Ints = std::vector<int64_t>;
const std::vector<int64_t> kImage{1, 4, 8, 8}, kWeights{4, 4, 3, 3};

INSTANTIATE_TEST_SUITE_P(
    ConvAndPools, AttributeRulesTest,
    ::testing::Values(
        Case{"Conv", kImage, kWeights, "strides", Ints{0, 0}, "is [0, 0]; strides must be >= 1"},
        Case{"Conv", {1, 4, 8}, {4, 4, 3}, "strides", Ints{0}, "is [0]; strides must be >= 1"},
        Case{"Conv", kImage, kWeights, "dilations", Ints{1, 0}, "dilations must be >= 1"},
        Case{"Conv", kImage, kWeights, "kernel_shape", Ints{3, 0}, "kernel_shape must be >= 1"},
        Case{"Conv", kImage, kWeights, "pads", Ints{0, -1, 0, 0}, "pads must be >= 0"},
        Case{"Conv", kImage, kWeights, "group", int64_t{0}, "is 0; group must be >= 1"},
        Case{"Conv", kImage, kWeights, "strides", Ints{1, 1, 1}, "input 0 has 2 spatial dims, so strides needs 2"},
        Case{"Conv", kImage, kWeights, "pads", Ints{1, 1}, "so pads needs 4"},
        Case{"ConvTranspose", kImage, kWeights, "strides", Ints{0, 1}, "strides must be >= 1"},
        Case{"ConvTranspose", kImage, kWeights, "output_padding", Ints{-1, 0}, "output_padding must be >= 0"},
        Case{"MaxPool", kImage, {}, "strides", Ints{0, 0}, "strides must be >= 1"},
        Case{"MaxPool", kImage, {}, "kernel_shape", Ints{0, 2}, "kernel_shape must be >= 1"},
        Case{"MaxPool", kImage, {}, "dilations", Ints{0, 0}, "dilations must be >= 1"},
        Case{"MaxPool", kImage, {}, "storage_order", int64_t{2}, "storage_order must be 0 or 1"},
        Case{"AveragePool", kImage, {}, "strides", Ints{0, 0}, "strides must be >= 1"},
        Case{"AveragePool", kImage, {}, "ceil_mode", int64_t{-1}, "ceil_mode must be 0 or 1"},
        Case{"AveragePool", kImage, {}, "kernel_shape", Ints{2}, "so kernel_shape needs 2"},
        Case{"LpPool", kImage, {}, "strides", Ints{0, 0}, "strides must be >= 1"},
        Case{"LpPool", kImage, {}, "pads", Ints{0, 0, -2, 0}, "pads must be >= 0"},
        // 2^62 squared is 0 in int64: libonnx divided the channels by it (SIGFPE).
        Case{"DepthToSpace", kImage, {}, "blocksize", int64_t{1} << 62, "blocksize must be between 1 and 2147483647"},
        Case{"SpaceToDepth", kImage, {}, "blocksize", int64_t{0}, "blocksize must be between 1 and 2147483647"},
        // libonnx indexed the shape with it: SIGSEGV.
        Case{"LayerNormalization", kImage, {8}, "axis", int64_t{INT64_MAX}, "axis must be in [-4, 4) for input 0"},
        Case{"LayerNormalization", kImage, {8}, "axis", int64_t{-5}, "axis must be in [-4, 4)"}));

TEST(AttributeRules, ValidAttributesAndOtherOpsPass) {
  Graph graph;
  graph.set_opset_import("", kOpset);
  Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, kImage));
  Node* pool = graph.add_node("MaxPool", {x}, 1, "pool");
  pool->set_attribute("kernel_shape", Ints{2, 2});
  pool->set_attribute("strides", Ints{1, 2});
  pool->set_attribute("pads", Ints{0, 1, 0, 1});
  EXPECT_TRUE(check_attribute_rules(*pool, "pool").is_ok());
  // Not in the table: attributes of the same names are not checked.
  Node* other = graph.add_node("Relu", {x}, 1, "relu");
  other->set_attribute("strides", Ints{0});
  EXPECT_TRUE(check_attribute_rules(*other, "relu").is_ok());
  // An unknown rank leaves the lengths unchecked, not the bounds.
  Value* unranked = graph.add_input("u", TensorDesc());
  Node* conv = graph.add_node("Conv", {unranked, x}, 1, "conv");
  conv->set_attribute("strides", Ints{1, 1, 1});
  EXPECT_TRUE(check_attribute_rules(*conv, "conv").is_ok());
  conv->set_attribute("strides", Ints{1, 0, 1});
  EXPECT_FALSE(check_attribute_rules(*conv, "conv").is_ok());
}

TEST(AttributeRules, ScanCountsAndDirections) {
  Graph graph;
  graph.set_opset_import("", kOpset);
  Value* state = graph.add_input("s", TensorDesc::of(DataType::kFloat32, {3}));
  Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {2, 3}));
  Node* scan = graph.add_node("Scan", {state, x}, 2, "scan");
  scan->set_attribute("num_scan_inputs", int64_t{1});
  scan->set_attribute("scan_input_directions", Ints{1});
  EXPECT_TRUE(check_attribute_rules(*scan, "scan").is_ok());
  // -1 was "vector::_M_fill_insert" from inside libonnx's Scan inference.
  scan->set_attribute("num_scan_inputs", int64_t{-1});
  EXPECT_EQ(check_attribute_rules(*scan, "scan").message(),
            "scan: attribute 'num_scan_inputs' is -1; num_scan_inputs must be >= 1");
  scan->set_attribute("num_scan_inputs", int64_t{1});
  scan->set_attribute("scan_input_directions", Ints{5});
  EXPECT_EQ(check_attribute_rules(*scan, "scan").message(),
            "scan: attribute 'scan_input_directions' is [5]; scan_input_directions must be 0 or 1");
  scan->set_attribute("scan_input_directions", Ints{0});
  scan->set_attribute("scan_output_directions", Ints{-1});
  EXPECT_EQ(check_attribute_rules(*scan, "scan").message(),
            "scan: attribute 'scan_output_directions' is [-1]; scan_output_directions must be 0 or 1");
}

TEST(AttributeRules, ReduceAxesNameEachAxisOnce) {
  Graph graph;
  graph.set_opset_import("", 13);
  Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {2, 3, 4}));
  Node* reduce = graph.add_node("ReduceMax", {x}, 1, "max");
  reduce->set_attribute("axes", Ints{0, -1});
  EXPECT_TRUE(check_attribute_rules(*reduce, "max").is_ok());
  reduce->set_attribute("axes", Ints{1, 1});
  EXPECT_EQ(check_attribute_rules(*reduce, "max").message(),
            "max: attribute 'axes' is [1, 1]; axes must name each axis once, but entries 0 and 1 both name axis 1 of "
            "input 0 (rank 3)");
  reduce->set_attribute("axes", Ints{0, 2, -1});
  EXPECT_EQ(check_attribute_rules(*reduce, "max").message(),
            "max: attribute 'axes' is [0, 2, -1]; axes must name each axis once, but entries 1 and 2 both name axis 2 "
            "of input 0 (rank 3)");
  // Of an unknown rank only equal entries are known to repeat.
  Node* mean = graph.add_node("ReduceMean", {graph.add_input("u", TensorDesc())}, 1, "mean");
  mean->set_attribute("axes", Ints{0, -3});
  EXPECT_TRUE(check_attribute_rules(*mean, "mean").is_ok());
  mean->set_attribute("axes", Ints{-3, -3});
  EXPECT_EQ(check_attribute_rules(*mean, "mean").message(),
            "mean: attribute 'axes' is [-3, -3]; axes must name each axis once, but entries 0 and 1 both name axis -3");
}

}  // namespace
}  // namespace ge::onnx_ops
