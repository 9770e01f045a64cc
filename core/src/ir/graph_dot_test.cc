// Tests of the Graphviz printer of graphs (core/src/ir/graph_dot.h).
#include "graph_dot.h"

#include <gtest/gtest.h>

namespace ge {
namespace {

TEST(GraphDot, DrawsNodesValuesAndEdges) {
  Graph g("main");
  Value* x = g.add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)}));
  Value* w = g.add_initializer("w", Tensor::from_vector<float>({3}, {1.f, 2.f, 3.f}));
  Node* mul = g.add_node("Mul", {x, w}, 1, "mul \"1\"\\", {"m"});
  mul->output(0)->set_desc(TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)}));
  Node* relu = g.add_node("Relu", {mul->output(0)}, 1, "", {"r"});
  relu->set_name("");
  Node* print = g.add_node("Print", {}, 0, "print", {}, "my.domain");
  relu->add_control_predecessor(print);
  g.add_output(relu->output(0));

  // Labels are DOT strings: quotes and backslashes escaped, "\n" a line break.
  EXPECT_EQ(graph_to_dot(g),
            "digraph \"main\" {\n"
            "  node [fontname=\"Helvetica\", fontsize=10];\n"
            "  edge [fontname=\"Helvetica\", fontsize=9];\n"
            "  g_in0 [shape=ellipse, label=\"x\\nfloat32[N,3]\"];\n"
            "  g_init0 [shape=note, label=\"w\\nfloat32[3]\"];\n"
            "  g_n0 [shape=box, label=\"Mul\\nmul \\\"1\\\"\\\\\"];\n"
            "  g_n1 [shape=box, label=\"Relu\"];\n"
            "  g_n2 [shape=box, label=\"my.domain::Print\\nprint\"];\n"
            "  g_out0 [shape=ellipse, style=bold, label=\"output r\"];\n"
            "  g_n1 -> g_out0 [label=\"r\"];\n"
            "  g_in0 -> g_n0 [label=\"x\\nfloat32[N,3]\"];\n"
            "  g_init0 -> g_n0 [label=\"w\\nfloat32[3]\"];\n"
            "  g_n0 -> g_n1 [label=\"m\\nfloat32[N,3]\"];\n"
            "  g_n2 -> g_n1 [style=dashed];\n"
            "}\n");
}

TEST(GraphDot, DrawsSubgraphsAsClustersFedByTheirCaptures) {
  Graph g("main");
  Value* cond = g.add_input("cond", TensorDesc(DataType::kBool, {}));
  Value* x = g.add_initializer("x", Tensor::from_vector<float>({1}, {1.f}), /*also_input=*/true);
  auto then_branch = std::make_shared<Graph>("then");
  then_branch->set_parent(&g);
  Value* cap = then_branch->add_capture("x", TensorDesc());
  Node* neg = then_branch->add_node("Neg", {cap}, 1, "neg", {"n"});
  then_branch->add_output(neg->output(0));
  Node* branch = g.add_node("If", {cond}, 1, "if", {"y"});
  branch->set_attribute("then_branch", then_branch);
  g.add_output(branch->output(0));
  (void)x;

  EXPECT_EQ(graph_to_dot(g),
            "digraph \"main\" {\n"
            "  node [fontname=\"Helvetica\", fontsize=10];\n"
            "  edge [fontname=\"Helvetica\", fontsize=9];\n"
            "  g_in0 [shape=ellipse, label=\"cond\\nbool[]\"];\n"
            "  g_init0 [shape=note, label=\"x\\nfloat32[1]\\n(overridable input)\"];\n"
            "  g_n0 [shape=box, label=\"If\\nif\"];\n"
            "  g_out0 [shape=ellipse, style=bold, label=\"output y\"];\n"
            "  g_n0 -> g_out0 [label=\"y\"];\n"
            "  g_in0 -> g_n0 [label=\"cond\\nbool[]\"];\n"
            "  subgraph cluster_g_n0_s0 {\n"
            "    label=\"then_branch: then\";\n"
            "    style=rounded;\n"
            "    g_n0_s0_cap0 [shape=ellipse, style=dashed, label=\"capture x\"];\n"
            "    g_init0 -> g_n0_s0_cap0 [style=dotted];\n"
            "    g_n0_s0_n0 [shape=box, label=\"Neg\\nneg\"];\n"
            "    g_n0_s0_out0 [shape=ellipse, style=bold, label=\"output n\"];\n"
            "    g_n0_s0_n0 -> g_n0_s0_out0 [label=\"n\"];\n"
            "    g_n0_s0_cap0 -> g_n0_s0_n0 [label=\"x\"];\n"
            "  }\n"
            "}\n");
}

TEST(GraphDot, EscapesGraphNamesAndControlCharacters) {
  Graph g("a \"b\"\tc");
  g.add_input("line\nbreak", TensorDesc());
  EXPECT_EQ(graph_to_dot(g),
            "digraph \"a \\\"b\\\"?c\" {\n"
            "  node [fontname=\"Helvetica\", fontsize=10];\n"
            "  edge [fontname=\"Helvetica\", fontsize=9];\n"
            "  g_in0 [shape=ellipse, label=\"line\\nbreak\"];\n"
            "}\n");
}

}  // namespace
}  // namespace ge
