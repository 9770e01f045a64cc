#include "tensor_dump.h"

#include <gtest/gtest.h>

#include "ge/graph_text.h"

namespace ge::tools {
namespace {

TEST(DumpFileName, SanitisesAndKeepsNamesUniqueIgnoringCase) {
  std::set<std::string> taken;
  EXPECT_EQ(dump_file_name("conv1/out:0", taken), "conv1_out_0.pb");
  EXPECT_EQ(dump_file_name("conv1_out_0", taken), "conv1_out_0_2.pb");
  EXPECT_EQ(dump_file_name("Conv1_Out_0", taken), "Conv1_Out_0_3.pb");
  EXPECT_EQ(dump_file_name("..", taken), "_..pb");
  EXPECT_EQ(dump_file_name("", taken), "_.pb");
  EXPECT_EQ(dump_file_name("a\tb", taken), "a_b.pb");
}

TEST(MakeDumpGraph, EveryNodeOutputInTopologicalOrderBlockedOnesThroughAReorder) {
  Result<std::unique_ptr<Graph>> compiled = parse_graph(R"(graph g (opset ""=13) {
  input %x : float32[1,8,2,2]
  %y : float32[1,8,2,2] = Relu(%b) "relu"
  %b : float32[1,8,2,2]{nChw8c} = Neg(%x) "neg"
  %s : seq(float32[1,8,2,2]) = SequenceConstruct(%y) "seq"
  output %y
})");
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  std::vector<DumpedValue> dumped;
  Result<std::unique_ptr<Graph>> graph = make_dump_graph(**compiled, dumped);
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  ASSERT_EQ(dumped.size(), 2u);  // the sequence is not a tensor
  EXPECT_EQ(dumped[0].name, "b");
  EXPECT_EQ(dumped[0].format, "nChw8c");
  EXPECT_EQ(dumped[0].node, "neg");
  EXPECT_EQ(dumped[0].op, "Neg");
  EXPECT_EQ(dumped[1].name, "y");
  EXPECT_EQ(dumped[1].file, "y.pb");
  const std::vector<Value*>& outputs = (*graph)->outputs();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0]->producer()->op_type(), "TransData");
  EXPECT_EQ(outputs[0]->producer()->domain(), "ge");
  EXPECT_TRUE(outputs[0]->desc().is_plain());
  EXPECT_EQ(outputs[0]->producer()->input(0)->name(), "b");
  EXPECT_EQ(outputs[1]->name(), "y");
  EXPECT_EQ((*graph)->opset_version("ge"), 1);
  // The compiled graph itself is untouched.
  EXPECT_EQ((*compiled)->outputs().size(), 1u);
  EXPECT_EQ((*compiled)->node_count(), 3u);
}

}  // namespace
}  // namespace ge::tools
