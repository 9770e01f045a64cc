// Tests of graph rewrites for passes (ge/plugin_api/graph_rewrite.h).
#include "ge/plugin_api/graph_rewrite.h"

#include <gtest/gtest.h>

#include "ge/graph_text.h"
#include "ge/testing/sdk.h"
#include "ge/verifier.h"

namespace ge {
namespace {

using sdk_testing::parse;

TEST(GraphRewrite, BypassKeepsGraphOutputNames) {
  auto g = parse(R"(graph g {
    input %x : float32[2]
    %r : float32[2] = Relu(%x) "relu"
    %y : float32[2] = Identity(%r) "id"
    output %y
  })");
  auto bypassed = bypass_output(*g, *g->find_node("id"), 0, g->find_value("r"));
  ASSERT_TRUE(bypassed.is_ok());
  EXPECT_TRUE(*bypassed);
  EXPECT_EQ(print_graph(*g),
            "graph g {\n"
            "  input %x : float32[2]\n"
            "  %y : float32[2] = Relu(%x) \"relu\"\n"
            "  output %y\n"
            "}\n");
  EXPECT_TRUE(verify_graph(*g).is_ok());
}

TEST(GraphRewrite, BypassRefusesToRenameAGraphInput) {
  auto g = parse(R"(graph g {
    input %x : float32[2]
    %y : float32[2] = Identity(%x) "id"
    output %y
  })");
  auto bypassed = bypass_output(*g, *g->find_node("id"), 0, g->find_value("x"));
  ASSERT_TRUE(bypassed.is_ok());
  EXPECT_FALSE(*bypassed);
  EXPECT_EQ(g->node_count(), 1u);
}

TEST(GraphRewrite, BypassFollowsCapturesIntoSubgraphs) {
  auto g = parse(R"(graph g {
    input %c : bool[]
    input %x : float32[2]
    %r : float32[2] = Relu(%x) "relu"
    %i : float32[2] = Identity(%r) "id"
    %z : float32[2] = If(%c) {then_branch: graph = graph then {
      capture %i : float32[2]
      output %i
    }, else_branch: graph = graph else {
      capture %x : float32[2]
      output %x
    }} "if"
    output %z
  })");
  auto bypassed = bypass_output(*g, *g->find_node("id"), 0, g->find_value("r"));
  ASSERT_TRUE(bypassed.is_ok());
  EXPECT_TRUE(*bypassed);
  EXPECT_EQ(g->find_node("id"), nullptr);
  EXPECT_EQ(g->find_node("relu")->output(0)->name(), "i");
  Status verified = verify_graph(*g);
  EXPECT_TRUE(verified.is_ok()) << verified.to_string();
}

}  // namespace
}  // namespace ge
