#include "dead_code_elimination.h"

#include <gtest/gtest.h>

namespace ge::passes {
namespace {

TensorDesc f32(std::vector<int64_t> dims) { return TensorDesc::of(DataType::kFloat32, dims); }

bool run_dce(Graph& graph) {
  DeadCodeElimination dce;
  PassContext context;
  bool changed = false;
  Status status = dce.run(graph, context, changed);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  return changed;
}

TEST(DeadCodeElimination, RemovesChainsThatReachNoOutput) {
  Graph g;
  Value* x = g.add_input("x", f32({2}));
  Value* w = g.add_initializer("w", Tensor::from_vector<float>({2}, {1, 2}));
  Value* unused_w = g.add_initializer("unused_w", Tensor::from_vector<float>({2}, {3, 4}));
  Node* live = g.add_node("Relu", {x}, 1, "live", {"y"});
  Node* dead1 = g.add_node("Add", {x, unused_w}, 1, "dead1", {"d1"});
  g.add_node("Mul", {dead1->output(0), w}, 1, "dead2", {"d2"});
  g.add_output(live->output(0));

  EXPECT_TRUE(run_dce(g));
  ASSERT_EQ(g.node_count(), 1u);
  EXPECT_EQ(g.nodes().front()->name(), "live");
  EXPECT_EQ(g.find_value("unused_w"), nullptr);
  EXPECT_EQ(g.find_value("w"), nullptr);  // only the dead Mul used it
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_FALSE(run_dce(g)) << "a second run finds nothing";
}

TEST(DeadCodeElimination, KeepsControlPredecessorsOfLiveNodes) {
  Graph g;
  Value* x = g.add_input("x", f32({2}));
  Node* side = g.add_node("Identity", {x}, 1, "side", {"s"});
  Node* live = g.add_node("Relu", {x}, 1, "live", {"y"});
  live->add_control_predecessor(side);
  g.add_output(live->output(0));
  EXPECT_FALSE(run_dce(g));
  EXPECT_EQ(g.node_count(), 2u);
}

TEST(DeadCodeElimination, KeepsValuesCapturedBySubgraphsAndCleansSubgraphs) {
  Graph g;
  Value* cond = g.add_input("cond", TensorDesc::of(DataType::kBool, {}));
  Value* x = g.add_input("x", f32({2}));
  Node* producer = g.add_node("Neg", {x}, 1, "producer", {"captured"});
  auto then_branch = std::make_shared<Graph>("then");
  then_branch->set_parent(&g);
  Value* cap = then_branch->add_capture("captured", f32({2}));
  Node* inner_live = then_branch->add_node("Relu", {cap}, 1, "inner_live", {"t"});
  then_branch->add_node("Abs", {cap}, 1, "inner_dead", {"t_dead"});
  then_branch->add_output(inner_live->output(0));
  auto else_branch = std::make_shared<Graph>("else");
  else_branch->set_parent(&g);
  Value* cap_x = else_branch->add_capture("x", f32({2}));
  Node* e = else_branch->add_node("Identity", {cap_x}, 1, "e", {"e_out"});
  else_branch->add_output(e->output(0));
  Node* if_node = g.add_node("If", {cond}, 1, "if", {"y"});
  if_node->set_attribute("then_branch", Attribute(then_branch));
  if_node->set_attribute("else_branch", Attribute(else_branch));
  g.add_output(if_node->output(0));

  EXPECT_TRUE(run_dce(g));
  EXPECT_NE(g.find_node("producer"), nullptr) << "producer feeds the If through a capture";
  EXPECT_EQ(then_branch->node_count(), 1u);
  EXPECT_EQ(then_branch->find_node("inner_dead"), nullptr);
  (void)producer;
}

TEST(DeadCodeElimination, KeepsEverythingFeedingOutputs) {
  Graph g;
  Value* x = g.add_input("x", f32({2}));
  Node* a = g.add_node("Relu", {x}, 1, "a", {"a"});
  Node* b = g.add_node("Neg", {a->output(0)}, 1, "b", {"b"});
  g.add_output(a->output(0));
  g.add_output(b->output(0));
  EXPECT_FALSE(run_dce(g));
  EXPECT_EQ(g.node_count(), 2u);
}

}  // namespace
}  // namespace ge::passes
