// Golden text-IR tests: IR in -> cse -> expected IR.
#include <gtest/gtest.h>

#include "plugin_test_env.h"

namespace ge::passes {
namespace {

using pass_testing::inferred;

std::string cse(const std::string& ir) {
  auto result = pass_testing::run_passes(ir, {"cse"});
  return result.is_ok() ? *result : result.status().to_string();
}

TEST(Cse, MergesIdenticalNodesAndCommutativeOperands) {
  EXPECT_EQ(cse(R"(graph main (opset ""=17) {
  input %x : float32[4]
  input %w : float32[4]
  %a = Relu(%x) "a"
  %b = Relu(%x) "b"
  %s1 = Add(%x, %w) "s1"
  %s2 = Add(%w, %x) "s2"
  %d1 = Sub(%x, %w) "d1"
  %d2 = Sub(%w, %x) "d2"
  %y = Sum(%a, %b, %s1, %s2, %d1, %d2) "sum"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[4]
  input %w : float32[4]
  %a : float32[4] = Relu(%x) "a"
  %s1 : float32[4] = Add(%x, %w) "s1"
  %d1 : float32[4] = Sub(%x, %w) "d1"
  %d2 : float32[4] = Sub(%w, %x) "d2"
  %y : float32[4] = Sum(%a, %a, %s1, %s1, %d1, %d2) "sum"
  output %y
}
)");
}

TEST(Cse, ComparesAttributes) {
  EXPECT_EQ(cse(R"(graph main (opset ""=17) {
  input %x : float32[4]
  %a = LeakyRelu(%x) {alpha: float = 0.1} "a"
  %b = LeakyRelu(%x) {alpha: float = 0.2} "b"
  %c = LeakyRelu(%x) {alpha: float = 0.1} "c"
  %y = Sum(%a, %b, %c) "sum"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[4]
  %a : float32[4] = LeakyRelu(%x) {alpha: float = 0.1} "a"
  %b : float32[4] = LeakyRelu(%x) {alpha: float = 0.2} "b"
  %y : float32[4] = Sum(%a, %b, %a) "sum"
  output %y
}
)");
}

TEST(Cse, NeverMergesRandomOpsOrGraphOutputs) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : float32[4]
  %r1 = RandomUniformLike(%x) "r1"
  %r2 = RandomUniformLike(%x) "r2"
  %d1 = Dropout(%x) "d1"
  %d2 = Dropout(%x) "d2"
  %o1 = Neg(%x) "o1"
  %o2 = Neg(%x) "o2"
  output %r1
  output %r2
  output %d1
  output %d2
  output %o1
  output %o2
})";
  EXPECT_EQ(cse(ir), inferred(ir));
}

TEST(Cse, MergesIdenticalConstants) {
  EXPECT_EQ(cse(R"(graph main (opset ""=17) {
  input %x : float32[2]
  init %a : float32[2] = [1, 2]
  init %b : float32[2] = [1, 2]
  init %c : float32[2] = [1, 3]
  %p = Add(%x, %a) "p"
  %q = Add(%x, %b) "q"
  %r = Add(%x, %c) "r"
  %y = Sum(%p, %q, %r) "sum"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[2]
  init %a : float32[2] = [1, 2]
  init %c : float32[2] = [1, 3]
  %p : float32[2] = Add(%x, %a) "p"
  %r : float32[2] = Add(%x, %c) "r"
  %y : float32[2] = Sum(%p, %p, %r) "sum"
  output %y
}
)");
}

TEST(Cse, FollowsCapturesAndWorksInsideSubgraphs) {
  EXPECT_EQ(cse(R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  %a = Neg(%x) "a"
  %b = Neg(%x) "b"
  %y = If(%cond) {else_branch: graph = graph else {
    capture %a : float32[2]
    output %a
  }, then_branch: graph = graph then {
    capture %b : float32[2]
    %t1 = Relu(%b) "t1"
    %t2 = Relu(%b) "t2"
    %t = Add(%t1, %t2) "t"
    output %t
  }} "if"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  %a : float32[2] = Neg(%x) "a"
  %y : float32[2] = If(%cond) {else_branch: graph = graph else {
    capture %a : float32[2]
    output %a
  }, then_branch: graph = graph then {
    capture %a : float32[2]
    %t1 : float32[2] = Relu(%a) "t1"
    %t : float32[2] = Add(%t1, %t1) "t"
    output %t
  }} "if"
  output %y
}
)");
}

}  // namespace
}  // namespace ge::passes
