// Tests of the core IR: graphs, nodes, values and their edits (ge/graph.h).
#include "ge/graph.h"

#include <gtest/gtest.h>

namespace ge {
namespace {

TensorDesc f32(std::vector<int64_t> dims) { return TensorDesc::of(DataType::kFloat32, dims); }

TEST(Graph, BuildsUseListsAndReplacesUses) {
  Graph g;
  Value* x = g.add_input("x", f32({2}));
  Node* a = g.add_node("Relu", {x}, 1, "a", {"a_out"});
  Node* b = g.add_node("Neg", {a->output(0)}, 1, "b", {"b_out"});
  Node* c = g.add_node("Add", {a->output(0), b->output(0)}, 1, "c", {"c_out"});
  g.add_output(c->output(0));
  EXPECT_EQ(a->output(0)->uses().size(), 2u);
  EXPECT_EQ(a->output(0)->producer(), a);

  g.replace_all_uses(a->output(0), x);
  EXPECT_FALSE(a->output(0)->has_uses());
  EXPECT_EQ(x->uses().size(), 3u);
  EXPECT_EQ(b->input(0), x);
  EXPECT_EQ(c->input(0), x);
  ASSERT_TRUE(g.remove_node(a).is_ok());
  EXPECT_EQ(g.node_count(), 2u);
  EXPECT_EQ(g.find_value("a_out"), nullptr);
}

TEST(Graph, RefusesToRemoveNodesStillInUse) {
  Graph g;
  Value* x = g.add_input("x", f32({2}));
  Node* a = g.add_node("Relu", {x}, 1, "a", {"a_out"});
  g.add_output(a->output(0));
  Status s = g.remove_node(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is a graph output"), std::string::npos) << s.message();
}

TEST(Graph, InsertBetweenRewiresOneEdge) {
  Graph g;
  Value* x = g.add_input("x", f32({2, 3}));
  Node* a = g.add_node("Relu", {x}, 1, "a");
  Node* cast = g.insert_between(a, 0, "Identity", "ident");
  EXPECT_EQ(a->input(0), cast->output(0));
  EXPECT_EQ(cast->input(0), x);
  EXPECT_EQ(cast->output(0)->desc(), x->desc());
  EXPECT_EQ(x->uses().size(), 1u);
}

TEST(Graph, TopologicalOrdersRespectDataAndControlEdges) {
  Graph g;
  Value* x = g.add_input("x", f32({1}));
  // Inserted out of order on purpose: d uses c, c uses b.
  Node* d = g.add_node("Relu", {}, 1, "d");
  Node* c = g.add_node("Relu", {}, 1, "c");
  Node* b = g.add_node("Relu", {x}, 1, "b");
  Node* e = g.add_node("Relu", {x}, 1, "e");
  c->add_input(b->output(0));
  d->add_input(c->output(0));
  b->add_control_predecessor(e);
  for (TopoOrder order : {TopoOrder::kStable, TopoOrder::kDfs, TopoOrder::kBfs}) {
    auto result = g.topological_order(order);
    ASSERT_TRUE(result.is_ok());
    std::vector<std::string> names;
    for (Node* n : *result) names.push_back(n->name());
    auto pos = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
    EXPECT_LT(pos("e"), pos("b"));
    EXPECT_LT(pos("b"), pos("c"));
    EXPECT_LT(pos("c"), pos("d"));
  }
  auto stable = g.topological_order(TopoOrder::kStable);
  std::vector<std::string> names;
  for (Node* n : *stable) names.push_back(n->name());
  EXPECT_EQ(names, (std::vector<std::string>{"e", "b", "c", "d"}));
}

TEST(Graph, DetectsCycles) {
  Graph g;
  Value* x = g.add_input("x", f32({1}));
  Node* a = g.add_node("Add", {x}, 1, "a");
  Node* b = g.add_node("Relu", {a->output(0)}, 1, "b");
  a->add_input(b->output(0));
  for (TopoOrder order : {TopoOrder::kStable, TopoOrder::kDfs}) {
    auto result = g.topological_order(order);
    ASSERT_FALSE(result.is_ok());
    EXPECT_NE(result.status().message().find("cycle"), std::string::npos);
  }
}

TEST(Graph, SubgraphCapturesOrderTheirProducersAndFollowReplacements) {
  Graph g;
  Value* x = g.add_input("x", f32({1}));
  Value* cond = g.add_input("cond", TensorDesc::of(DataType::kBool, {}));
  auto body = std::make_shared<Graph>("then");
  body->set_parent(&g);
  Value* cap = body->add_capture("late", f32({1}));
  body->add_output(body->add_node("Identity", {cap}, 1, "i")->output(0));
  Node* if_node = g.add_node("If", {cond}, 1, "if");
  if_node->set_attribute("then_branch", Attribute(body));
  Node* late = g.add_node("Relu", {x}, 1, "late_node", {"late"});
  EXPECT_EQ(g.implicit_inputs(*if_node), std::vector<Value*>{late->output(0)});
  auto order = g.topological_order();
  ASSERT_TRUE(order.is_ok());
  EXPECT_EQ((*order)[0], late);
  EXPECT_EQ(g.resolve_name("late"), late->output(0));
  EXPECT_EQ(body->resolve_name("late"), late->output(0)) << "captures forward to the outer definition";

  g.replace_all_uses(late->output(0), x);
  EXPECT_EQ(cap->name(), "x") << "the capture follows the replacement";
}

TEST(Graph, CloneIsDeepAndIndependent) {
  Graph g;
  g.set_opset_import("", 13);
  Value* x = g.add_input("x", f32({2}));
  Value* w = g.add_initializer("w", Tensor::from_vector<float>({2}, {1.5f, 2.5f}));
  Node* a = g.add_node("Mul", {x, w}, 1, "a", {"y"});
  a->set_attribute("k", Attribute(int64_t{3}));
  g.add_output(a->output(0));
  std::unique_ptr<Graph> copy = g.clone();
  EXPECT_EQ(copy->opset_version(""), 13);
  ASSERT_EQ(copy->node_count(), 1u);
  Node* ca = copy->nodes().front().get();
  EXPECT_NE(ca, a);
  EXPECT_EQ(ca->input(1)->constant()->data<float>()[1], 2.5f);
  EXPECT_EQ(ca->get_int("k", 0), 3);
  EXPECT_EQ(copy->outputs()[0], ca->output(0));
  ca->set_name("changed");
  EXPECT_EQ(a->name(), "a");
}

TEST(Graph, RuntimeInputsExcludeInitializers) {
  Graph g;
  g.add_input("x", f32({2}));
  g.add_initializer("w", Tensor::from_vector<float>({1}, {1}), /*also_input=*/true);
  EXPECT_EQ(g.inputs().size(), 2u);
  ASSERT_EQ(g.runtime_inputs().size(), 1u);
  EXPECT_EQ(g.runtime_inputs()[0]->name(), "x");
}

TEST(TensorDesc, StaticAndSymbolicDims) {
  TensorDesc d(DataType::kFloat32, {Dim::named("N"), Dim::of(3), Dim::unknown()});
  EXPECT_FALSE(d.is_static());
  EXPECT_EQ(d.to_string(), "float32[N,3,?]");
  EXPECT_EQ(d.element_count(), -1);
  EXPECT_EQ(TensorDesc::of(DataType::kInt64, {2, 3}).element_count(), 6);
  TensorDesc unranked;
  unranked.dtype = DataType::kBool;
  EXPECT_EQ(unranked.to_string(), "bool[*]");
}

TEST(Tensor, ConvertsAndReshapes) {
  Tensor t = Tensor::from_vector<int32_t>({2, 2}, {1, -2, 3, 4});
  auto ints = t.to_int64_vector();
  ASSERT_TRUE(ints.is_ok());
  EXPECT_EQ(*ints, (std::vector<int64_t>{1, -2, 3, 4}));
  EXPECT_FALSE(t.reshaped({3}).is_ok());
  auto r = t.reshaped({4});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->raw_data(), t.raw_data()) << "a reshape shares storage";
  Tensor half = Tensor::zeros(DataType::kFloat16, {1});
  half.data<uint16_t>()[0] = 0x3c00;  // 1.0 in IEEE half
  EXPECT_EQ(half.scalar_as_double(), 1.0);
  EXPECT_FALSE(Tensor::from_vector<float>({1}, {1}).to_int64_vector().is_ok());
}

TEST(Status, CarriesCodeMessageAndContext) {
  Status s = not_found("thing");
  EXPECT_EQ(s.with_context("ctx").message(), "ctx: thing");
  EXPECT_EQ(s.to_string(), "not found: thing");
  Result<int> r = invalid_argument("bad");
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ge
