// Golden text-IR tests: IR in -> noop_elimination -> expected IR.
#include <gtest/gtest.h>

#include "plugin_test_env.h"

namespace ge::passes {
namespace {

using pass_testing::inferred;

std::string eliminate(const std::string& ir) {
  auto result = pass_testing::run_passes(ir, {"noop_elimination"});
  return result.is_ok() ? *result : result.status().to_string();
}

TEST(NoOpElimination, RemovesIdentitiesKeepingOutputNames) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  %i1 = Identity(%x) "id1"
  %r = Relu(%i1) "relu"
  %i2 = Identity(%r) "id2"
  %n = Neg(%i2) "neg"
  %y = Identity(%n) "id3"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  %r : float32[2,3] = Relu(%x) "relu"
  %y : float32[2,3] = Neg(%r) "neg"
  output %y
}
)");
}

TEST(NoOpElimination, KeepsAnIdentityFromAGraphInputToAGraphOutput) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : float32[2]
  %y = Identity(%x) "id"
  output %y
})";
  EXPECT_EQ(eliminate(ir), inferred(ir));
}

TEST(NoOpElimination, RemovesInferenceDropoutOnly) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float32[4]
  init %train : bool[] = [true]
  %a = Dropout(%x) {seed: int = 1} "inference"
  %b, %mask = Dropout(%a) "mask_used"
  %c = Dropout(%b, _, %train) "training"
  output %c
  output %mask
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[4]
  init %train : bool[] = [true]
  %b : float32[4], %mask : bool[4] = Dropout(%x) "mask_used"
  %c : float32[4] = Dropout(%b, _, %train) "training"
  output %c
  output %mask
}
)");
}

TEST(NoOpElimination, RemovesCastsToTheSameType) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float32[4]
  %a = Cast(%x) {to: int = 1} "same"
  %b = Cast(%a) {to: int = 7} "to_int64"
  output %b
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[4]
  %b : int64[4] = Cast(%x) {to: int = 7} "to_int64"
  output %b
}
)");
}

TEST(NoOpElimination, RemovesReshapeChainsBackToTheSameShape) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %same : int64[2] = [2, 3]
  init %flat : int64[1] = [6]
  init %back : int64[2] = [2, 3]
  init %axes : int64[1] = [0]
  %a = Reshape(%x, %same) "same_shape"
  %b = Reshape(%a, %flat) "flatten"
  %c = Reshape(%b, %back) "unflatten"
  %d = Unsqueeze(%c, %axes) "unsqueeze"
  %e = Squeeze(%d, %axes) "squeeze"
  %y = Relu(%e) "relu"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[2,3]
  init %same : int64[2] = [2, 3]
  init %flat : int64[1] = [6]
  init %back : int64[2] = [2, 3]
  init %axes : int64[1] = [0]
  %y : float32[2,3] = Relu(%x) "relu"
  output %y
}
)");
}

TEST(NoOpElimination, CancelsSqueezeUnsqueezePairsOnSymbolicShapes) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float32[N,1,C]
  init %one : int64[1] = [1]
  init %minus_two : int64[1] = [-2]
  init %zero : int64[1] = [0]
  %a = Squeeze(%x, %one) "squeeze"
  %b = Unsqueeze(%a, %minus_two) "unsqueeze"
  %c = Unsqueeze(%b, %zero) "unsqueeze_other"
  %d = Squeeze(%c, %one) "squeeze_other_axis"
  output %d
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[N,1,C]
  init %one : int64[1] = [1]
  init %minus_two : int64[1] = [-2]
  init %zero : int64[1] = [0]
  %c : float32[1,N,1,C] = Unsqueeze(%x, %zero) "unsqueeze_other"
  %d : float32[1,1,C] = Squeeze(%c, %one) "squeeze_other_axis"
  output %d
}
)");
}

TEST(NoOpElimination, CancelsAndMergesTransposes) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float32[2,3,4]
  %a = Transpose(%x) {perm: ints = [0, 1, 2]} "identity"
  %b = Transpose(%a) {perm: ints = [1, 2, 0]} "t1"
  %c = Transpose(%b) {perm: ints = [2, 0, 1]} "t1_inverse"
  %d = Transpose(%c) {perm: ints = [1, 0, 2]} "t2"
  %e = Transpose(%d) {perm: ints = [0, 2, 1]} "t3"
  output %e
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[2,3,4]
  %e : float32[3,4,2] = Transpose(%x) {perm: ints = [1, 2, 0]} "t3"
  output %e
}
)");
}

TEST(NoOpElimination, RemovesNoOpsInSubgraphsAndFollowsCaptures) {
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  %r = Relu(%x) "relu"
  %i = Identity(%r) "outer_id"
  %z = If(%cond) {else_branch: graph = graph else {
    capture %x : float32[2]
    %e = Identity(%x) "inner_id"
    %n = Neg(%e) "inner_neg"
    output %n
  }, then_branch: graph = graph then {
    capture %i : float32[2]
    output %i
  }} "if"
  output %z
})"),
            R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  %i : float32[2] = Relu(%x) "relu"
  %z : float32[2] = If(%cond) {else_branch: graph = graph else {
    capture %x : float32[2]
    %n : float32[2] = Neg(%x) "inner_neg"
    output %n
  }, then_branch: graph = graph then {
    capture %i : float32[2]
    output %i
  }} "if"
  output %z
}
)");
}

}  // namespace
}  // namespace ge::passes
