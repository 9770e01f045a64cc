// Tests of pattern matching (ge/plugin_api/pattern_match.h).
#include "ge/plugin_api/pattern_match.h"

#include <gtest/gtest.h>

#include "ge/testing/sdk.h"

namespace ge {
namespace {

using sdk_testing::parse;

TEST(PatternMatch, BindsOpsAndCaptures) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    init %c : float32[4] = [1, 2, 3, 4]
    %r : float32[4] = Relu(%x) "relu"
    %a : float32[4] = Add(%r, %c) "add"
    output %a
  })");
  Pattern p("relu_add");
  PatternValue x = p.any("x");
  PatternOp& relu = p.op("Relu", {x}, "relu");
  p.op("Add", {relu, p.constant("c")}, "add");
  Node* add = g->find_node("add");
  auto m = match_pattern(p, *add);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_EQ(m->root(), add);
  EXPECT_EQ(m->node("relu"), g->find_node("relu"));
  EXPECT_EQ(m->value("x"), g->find_value("x"));
  ASSERT_NE(m->constant("c"), nullptr);
  EXPECT_EQ(m->constant("c")->values<float>()[3], 4.f);
  EXPECT_EQ(m->nodes(), (std::vector<Node*>{g->find_node("relu"), add}));
  EXPECT_EQ(m->describe(), "pattern 'relu_add' at Add 'add' (relu: Relu 'relu', add: Add 'add')");
}

TEST(PatternMatch, ExplainsWhyItFailed) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    input %y : float32[4]
    %r : float32[4] = Relu(%x) "relu"
    %a : float32[4] = Add(%r, %y) "add"
    output %a
  })");
  Pattern p("relu_add");
  p.op("Add", {p.op("Relu", {p.any()}, "relu"), p.constant("c")}, "add");
  EXPECT_EQ(match_pattern(p, *g->find_node("add")).status().message(),
            "input 1 of Add 'add' (pattern op 'add'): %y (a graph input) is not a constant");
  EXPECT_EQ(match_pattern(p, *g->find_node("relu")).status().message(), "Relu 'relu' is not a Add (pattern op 'add')");
}

TEST(PatternMatch, CommutativeInputsMatchInEitherOrder) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    init %c : float32[4] = [1, 2, 3, 4]
    %r : float32[4] = Relu(%x) "relu"
    %a : float32[4] = Add(%c, %r) "add"
    output %a
  })");
  Pattern strict("strict");
  strict.op("Add", {strict.op("Relu", {strict.any()}), strict.constant("c")});
  EXPECT_FALSE(match_pattern(strict, *g->find_node("add")).is_ok());
  Pattern either("either");
  either.op("Add", {either.op("Relu", {either.any()}), either.constant("c")}).commutative();
  auto m = match_pattern(either, *g->find_node("add"));
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_EQ(m->value("c"), g->find_value("c"));
}

TEST(PatternMatch, SharedValuesMustBeOneGraphValue) {
  // Mul(x, Exp(x)): both uses of x must be the same value.
  auto g = parse(R"(graph g {
    input %x : float32[4]
    input %z : float32[4]
    %e : float32[4] = Exp(%x) "exp"
    %same : float32[4] = Mul(%x, %e) "same"
    %other : float32[4] = Mul(%z, %e) "other"
    output %same
    output %other
  })");
  Pattern p("x_exp_x");
  PatternValue x = p.any("x");
  p.op("Mul", {x, p.op("Exp", {x}, "exp")}).commutative();
  EXPECT_TRUE(match_pattern(p, *g->find_node("same")).is_ok());
  auto other = match_pattern(p, *g->find_node("other"));
  ASSERT_FALSE(other.is_ok());
  EXPECT_NE(other.status().message().find("is not the value matched earlier"), std::string::npos)
      << other.status().message();
}

TEST(PatternMatch, OptionalOpsMayBeAbsent) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    %r : float32[4] = Relu(%x) "relu"
    %n1 : float32[4] = Neg(%r) "with_relu"
    %n2 : float32[4] = Neg(%x) "without_relu"
    output %n1
    output %n2
  })");
  Pattern p("maybe_relu");
  PatternValue x = p.any("x");
  PatternOp& relu = p.op("Relu", {x}, "relu").optional();
  p.op("Neg", {relu}, "neg");
  auto with = match_pattern(p, *g->find_node("with_relu"));
  ASSERT_TRUE(with.is_ok()) << with.status().message();
  EXPECT_EQ(with->node("relu"), g->find_node("relu"));
  EXPECT_EQ(with->value("x"), g->find_value("x"));
  auto without = match_pattern(p, *g->find_node("without_relu"));
  ASSERT_TRUE(without.is_ok()) << without.status().message();
  EXPECT_EQ(without->node("relu"), nullptr);
  EXPECT_EQ(without->value("x"), g->find_value("x"));
  EXPECT_EQ(without->nodes().size(), 1u);
}

TEST(PatternMatch, AttributesAndPredicates) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    %a : float32[4] = LeakyRelu(%x) {alpha: float = 0.1} "a"
    %b : float32[4] = LeakyRelu(%x) "b"
    %c : float32[4] = LeakyRelu(%x) {alpha: float = 0.2} "c"
    output %a
    output %b
    output %c
  })");
  Pattern p("leaky_0.1");
  p.op("LeakyRelu", {p.any()}, "leaky").attr("alpha", 0.1f);
  EXPECT_TRUE(match_pattern(p, *g->find_node("a")).is_ok());
  EXPECT_EQ(match_pattern(p, *g->find_node("b")).status().message(),
            "LeakyRelu 'b' (pattern op 'leaky'): attribute 'alpha' is absent");
  EXPECT_EQ(match_pattern(p, *g->find_node("c")).status().message(),
            "LeakyRelu 'c' (pattern op 'leaky'): attribute 'alpha' has another value");
  Pattern defaulted("leaky_default");
  defaulted.op("LeakyRelu", {defaulted.any()}).attr("alpha", 0.01f, Attribute(0.01f));
  EXPECT_TRUE(match_pattern(defaulted, *g->find_node("b")).is_ok());
  Pattern predicate("named_c");
  predicate.op("LeakyRelu", {predicate.any()}, "leaky").where("named 'c'", [](const Node& n) { return n.name() == "c"; });
  EXPECT_TRUE(match_pattern(predicate, *g->find_node("c")).is_ok());
  EXPECT_EQ(match_pattern(predicate, *g->find_node("a")).status().message(),
            "LeakyRelu 'a' (pattern op 'leaky'): not named 'c'");
}

TEST(PatternMatch, ScalarConstants) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    init %half : float32[] = [0.5]
    init %halves : float32[2] = [0.5, 0.5]
    init %mixed : float32[2] = [0.5, 1]
    %a : float32[4] = Mul(%x, %half) "a"
    %b : float32[2] = Mul(%x, %halves) "b"
    %c : float32[2] = Mul(%x, %mixed) "c"
    output %a
    output %b
    output %c
  })");
  Pattern p("times_half");
  p.op("Mul", {p.any(), p.scalar(0.5)}, "mul");
  EXPECT_TRUE(match_pattern(p, *g->find_node("a")).is_ok());
  EXPECT_TRUE(match_pattern(p, *g->find_node("b")).is_ok());
  EXPECT_EQ(match_pattern(p, *g->find_node("c")).status().message(),
            "input 1 of Mul 'c' (pattern op 'mul'): %mixed is not a constant equal to 0.5");
}

TEST(PatternMatch, OptionalInputSlots) {
  auto g = parse(R"(graph g {
    input %x : float32[4]
    init %c : float32[4] = [1, 2, 3, 4]
    %a : float32[4] = Add(%x, %c) "two"
    %b : float32[4] = Add(%x) "one"
    output %a
    output %b
  })");
  Pattern p("add_maybe_c");
  p.op("Add", {p.any("x"), Pattern::maybe(p.constant("c"))});
  auto two = match_pattern(p, *g->find_node("two"));
  ASSERT_TRUE(two.is_ok());
  EXPECT_EQ(two->value("c"), g->find_value("c"));
  auto one = match_pattern(p, *g->find_node("one"));
  ASSERT_TRUE(one.is_ok()) << one.status().message();
  EXPECT_EQ(one->value("c"), nullptr);
}

TEST(PatternMatch, InvalidPatternsAreReported) {
  Pattern empty("empty");
  EXPECT_EQ(empty.validate().message(), "pattern 'empty': has no ops");
  Pattern dangling("dangling");
  PatternValue x = dangling.any();
  dangling.op("Relu", {x}, "side");
  PatternOp& root = dangling.op("Neg", {x}, "root");
  dangling.set_root(root);
  EXPECT_EQ(dangling.validate().message(), "pattern 'dangling': op 'side' does not feed the root op 'root'");
  Pattern dup("dup");
  dup.op("Neg", {dup.op("Relu", {dup.any()}, "a")}, "a");
  EXPECT_EQ(dup.validate().message(), "pattern 'dup': two ops are named 'a'");
  Pattern swap("swap");
  swap.op("Add", {swap.any()}).commutative(0, 1);
  EXPECT_EQ(swap.validate().message(), "pattern 'swap': op 'op0': commutative inputs 0, 1 are not two of its inputs");
}

TEST(PatternMatch, PatternsSurviveMoves) {
  auto make = [] {
    Pattern p("moved");
    p.op("Neg", {p.op("Relu", {p.any("x")}, "relu")}, "neg");
    return p;
  };
  std::vector<Pattern> list;
  list.push_back(make());
  list.push_back(make());  // reallocation moves the first
  auto g = parse(R"(graph g {
    input %x : float32[4]
    %r : float32[4] = Relu(%x) "relu"
    %n : float32[4] = Neg(%r) "neg"
    output %n
  })");
  EXPECT_TRUE(match_pattern(list[0], *g->find_node("neg")).is_ok());
}

}  // namespace
}  // namespace ge
