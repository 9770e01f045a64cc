#include "ge/onnx_common/graph_export.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

#include "ge/graph_text.h"

namespace ge::onnx_common {
namespace {

std::unique_ptr<Graph> parse(const std::string& text) {
  Result<std::unique_ptr<Graph>> graph = parse_graph(text);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  return graph.is_ok() ? std::move(graph).value() : std::make_unique<Graph>();
}

std::map<std::string, int64_t> opsets_of(const onnx::ModelProto& model) {
  std::map<std::string, int64_t> opsets;
  for (const auto& import : model.opset_import()) opsets[import.domain()] = import.version();
  return opsets;
}

// An optimised graph as the passes leave it: a fused op in "ge" writing a blocked value, a
// reorder back to plain, an ONNX op, nodes out of insertion order.
constexpr const char* kOptimised = R"(graph g (opset ""=13, "ge"=1) {
  input %x : float32[1,8,4,4]
  init %w : float32[8,8,1,1] = float32[8,8,1,1] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  %y : float32[1,8,4,4] = Add(%plain, %x) "add"
  %plain : float32[1,8,4,4] = ge::TransData(%c) "to_plain"
  %c : float32[1,8,4,4]{nChw8c} = ge::FusedConv(%x, %w) {activation: string = "Relu", kernel_shape: ints = [1, 1]} "conv"
  %z : float32[1,8,4,4] = ge_autofuse::Fused(%y) {program: string = "p"} "fused"
  output %z
})";

TEST(GraphExport, NodesInTopologicalOrderWithTheirDomainsAndOpsetImports) {
  std::unique_ptr<Graph> graph = parse(kOptimised);
  Result<onnx::ModelProto> model = graph_to_model_proto(*graph, {});
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  const onnx::GraphProto& g = model->graph();
  ASSERT_EQ(g.node_size(), 4);
  EXPECT_EQ(g.node(0).op_type(), "FusedConv");
  EXPECT_EQ(g.node(0).domain(), "ge");
  EXPECT_EQ(g.node(1).op_type(), "TransData");
  EXPECT_EQ(g.node(2).op_type(), "Add");
  EXPECT_EQ(g.node(2).domain(), "");
  EXPECT_EQ(g.node(3).domain(), "ge_autofuse");
  EXPECT_EQ(g.node(0).name(), "conv");
  EXPECT_EQ(g.node(2).input(0), "plain");
  EXPECT_EQ(opsets_of(*model), (std::map<std::string, int64_t>{{"", 13}, {"ge", 1}, {"ge_autofuse", 1}}));
  EXPECT_EQ(model->ir_version(), 8);
  EXPECT_EQ(model->producer_name(), "ge");
  // Attributes of every kind but graphs go through attribute_to_proto.
  ASSERT_EQ(g.node(0).attribute_size(), 2);
  EXPECT_EQ(g.node(0).attribute(0).name(), "activation");
  EXPECT_EQ(g.node(0).attribute(0).s(), "Relu");
}

TEST(GraphExport, InitializersInputsOutputsAndValueInfo) {
  std::unique_ptr<Graph> graph = parse(kOptimised);
  Result<onnx::ModelProto> model = graph_to_model_proto(*graph, {});
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  const onnx::GraphProto& g = model->graph();
  ASSERT_EQ(g.initializer_size(), 1);
  EXPECT_EQ(g.initializer(0).name(), "w");
  EXPECT_EQ(g.initializer(0).dims_size(), 4);
  EXPECT_EQ(g.initializer(0).raw_data().size(), 64u * 4);
  ASSERT_EQ(g.input_size(), 1);
  EXPECT_EQ(g.input(0).name(), "x");
  EXPECT_EQ(g.input(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(g.input(0).type().tensor_type().shape().dim(1).dim_value(), 8);
  ASSERT_EQ(g.output_size(), 1);
  EXPECT_EQ(g.output(0).name(), "z");
  // value_info: every intermediate, in node order; the blocked one says its format.
  ASSERT_EQ(g.value_info_size(), 3);
  EXPECT_EQ(g.value_info(0).name(), "c");
  EXPECT_EQ(g.value_info(0).doc_string(), "ge.format: nChw8c");
  EXPECT_EQ(g.value_info(0).type().tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(g.value_info(1).name(), "plain");
  EXPECT_EQ(g.value_info(1).doc_string(), "");
  ASSERT_EQ(model->metadata_props_size(), 1);
  EXPECT_EQ(model->metadata_props(0).key(), "ge.format:c");
  EXPECT_EQ(model->metadata_props(0).value(), "nChw8c");
}

TEST(GraphExport, SubgraphsBecomeGraphAttributesAndCapturesKeepOuterNames) {
  std::unique_ptr<Graph> graph = parse(R"(graph g (opset ""=13) {
  input %cond : bool[]
  input %x : float32[2]
  %y : float32[2] = If(%cond) {else_branch: graph = graph e {
      capture %x : float32[2]
      %n : float32[2] = Neg(%x) "neg"
      output %n
    }, then_branch: graph = graph t {
      capture %x : float32[2]
      output %x
    }} "if"
  output %y
})");
  Result<onnx::ModelProto> model = graph_to_model_proto(*graph, {});
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  const onnx::NodeProto& node = model->graph().node(0);
  ASSERT_EQ(node.attribute_size(), 2);
  EXPECT_EQ(node.attribute(0).name(), "else_branch");
  EXPECT_EQ(node.attribute(0).type(), onnx::AttributeProto::GRAPH);
  const onnx::GraphProto& body = node.attribute(0).g();
  EXPECT_EQ(body.input_size(), 0);  // a capture is an outer-scope reference in ONNX
  ASSERT_EQ(body.node_size(), 1);
  EXPECT_EQ(body.node(0).input(0), "x");
  EXPECT_EQ(body.output(0).name(), "n");
  EXPECT_EQ(node.attribute(1).g().output(0).name(), "x");
}

TEST(GraphExport, SharedNamesGetSuffixesAndOptionsReachTheModel) {
  std::unique_ptr<Graph> graph = parse(R"(graph g (opset ""=19) {
  input %x : float32[2]
  %a : float32[2] = Relu(%x) "r1"
  %b : float32[2] = Neg(%a) "n1"
  output %b
})");
  graph->find_node("n1")->output(0)->set_name("a");  // two values called "a"
  GraphExportOptions options;
  options.producer_version = "1.2.3";
  options.metadata["ge.opt_level"] = "3";
  Result<onnx::ModelProto> model = graph_to_model_proto(*graph, options);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ(model->graph().node(1).input(0), "a");
  EXPECT_EQ(model->graph().node(1).output(0), "a__1");
  EXPECT_EQ(model->graph().output(0).name(), "a__1");
  EXPECT_EQ(model->ir_version(), 9);
  EXPECT_EQ(model->producer_version(), "1.2.3");
  ASSERT_EQ(model->metadata_props_size(), 1);
  EXPECT_EQ(model->metadata_props(0).key(), "ge.opt_level");
}

TEST(GraphExport, WritesAFileThatParsesBackAndNamesAnUnwritableOne) {
  std::unique_ptr<Graph> graph = parse(kOptimised);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ge_graph_export_" + std::to_string(::getpid()) + ".onnx");
  ASSERT_TRUE(write_onnx_model(*graph, path).is_ok());
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(model.ParseFromIstream(&in));
  EXPECT_EQ(model.graph().node_size(), 4);
  std::filesystem::remove(path);

  const Status bad = write_onnx_model(*graph, "/nonexistent-dir/m.onnx");
  EXPECT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("'/nonexistent-dir/m.onnx'"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace ge::onnx_common
