#include "ge/plugin_api/graph_rewrite.h"

#include <gtest/gtest.h>

#include "ge/graph_text.h"
#include "ge/testing/sdk.h"
#include "ge/verifier.h"

namespace ge {
namespace {

using sdk_testing::parse;

TEST(GraphRewrite, ComparesTensorsAndAttributes) {
  Tensor a = Tensor::from_vector<float>({2}, {1.f, 2.f});
  Tensor b = Tensor::from_vector<float>({2}, {1.f, 2.f});
  Tensor c = Tensor::from_vector<float>({1, 2}, {1.f, 2.f});
  EXPECT_TRUE(tensors_equal(a, b));
  EXPECT_EQ(hash_tensor(a), hash_tensor(b));
  EXPECT_FALSE(tensors_equal(a, c));
  EXPECT_TRUE(attributes_equal(Attribute(int64_t{1}), Attribute(1.f)));
  EXPECT_FALSE(attributes_equal(Attribute(int64_t{1}), Attribute(std::string("1"))));
  EXPECT_TRUE(attributes_equal(Attribute(std::vector<int64_t>{1, 2}), Attribute(std::vector<int64_t>{1, 2})));
  EXPECT_TRUE(attributes_equal(Attribute(a), Attribute(b)));
  EXPECT_FALSE(attributes_equal(Attribute(a), Attribute(c)));
}

TEST(GraphRewrite, ReadsConstants) {
  auto g = parse(R"(graph g {
    init %s : float32[3] = [2, 2, 2]
    init %m : float32[2] = [2, 3]
    init %i : int64[2] = [-1, 4]
    init input %o : float32[] = [1]
    input %x : float32[2]
    output %x
  })");
  EXPECT_EQ(constant_scalar(g->find_value("s")), 2.0);
  EXPECT_EQ(constant_scalar(g->find_value("m")), std::nullopt);
  EXPECT_EQ(constant_scalar(g->find_value("o")), std::nullopt) << "an overridable initializer is not a constant";
  EXPECT_EQ(constant_ints(g->find_value("i")), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(constant_ints(g->find_value("s")), std::nullopt);
}

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

TEST(GraphRewrite, NodeAxesFromAttributeOrInput) {
  auto g = parse(R"(graph g {
    input %x : float32[2,3,4]
    init %axes : int64[1] = [-1]
    %a : float32[2,3,1] = ReduceMean(%x) {axes: ints = [-1, 0]} "attr"
    %b : float32[2,3,1] = ReduceSum(%x, %axes) "input"
    output %a
    output %b
  })");
  EXPECT_EQ(node_axes(*g->find_node("attr"), "axes", 1, 3), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(node_axes(*g->find_node("input"), "axes", 1, 3), (std::vector<int64_t>{2}));
  EXPECT_EQ(node_axes(*g->find_node("input"), "axes", 1, 0), std::nullopt);
}

}  // namespace
}  // namespace ge
