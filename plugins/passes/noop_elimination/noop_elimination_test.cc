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

TEST(NoOpElimination, FoldsCastsBackFromAnExactWidening) {
  // float16 -> float32 -> float16, bfloat16 -> float32 -> bfloat16, int8 -> int32 -> int8,
  // bool -> float16 -> bool: the value itself. A widening Cast still used elsewhere stays.
  EXPECT_EQ(eliminate(R"(graph main (opset ""=17) {
  input %x : float16[4]
  input %b : bfloat16[4]
  input %q : int8[4]
  input %m : bool[4]
  %x32 = Cast(%x) {to: int = 1} "widen_half"
  %x16 = Cast(%x32) {to: int = 10} "narrow_half"
  %b32 = Cast(%b) {to: int = 1} "widen_bf16"
  %b16 = Cast(%b32) {to: int = 16} "narrow_bf16"
  %q32 = Cast(%q) {to: int = 6} "widen_int8"
  %q8 = Cast(%q32) {to: int = 3} "narrow_int8"
  %mh = Cast(%m) {to: int = 10} "bool_to_half"
  %mb = Cast(%mh) {to: int = 9} "half_to_bool"
  %y = Neg(%x16) "neg_half"
  %s = Sigmoid(%x32) "uses_the_widened"
  %c = Neg(%b16) "neg_bf16"
  %z = Neg(%q8) "neg_int8"
  %n = Not(%mb) "not"
  output %y
  output %s
  output %c
  output %z
  output %n
})"),
            R"(graph main (opset ""=17) {
  input %x : float16[4]
  input %b : bfloat16[4]
  input %q : int8[4]
  input %m : bool[4]
  %x32 : float32[4] = Cast(%x) {to: int = 1} "widen_half"
  %y : float16[4] = Neg(%x) "neg_half"
  %s : float32[4] = Sigmoid(%x32) "uses_the_widened"
  %c : bfloat16[4] = Neg(%b) "neg_bf16"
  %z : int8[4] = Neg(%q) "neg_int8"
  %n : bool[4] = Not(%m) "not"
  output %y
  output %s
  output %c
  output %z
  output %n
}
)");
}

TEST(NoOpElimination, KeepsCastPairsThatRound) {
  // float32 -> float16 -> float32 rounds to float16; int32 -> float32 -> int32 loses
  // integers above 2^24; float32 -> int32 -> float32 truncates; float16 -> float32 ->
  // bfloat16 is no round trip; uint8 -> int8 -> uint8 wraps.
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : float32[4]
  input %i : int32[4]
  input %h : float16[4]
  input %u : uint8[4]
  %a = Cast(%x) {to: int = 10} "to_half"
  %b = Cast(%a) {to: int = 1} "back_to_float"
  %c = Cast(%i) {to: int = 1} "int_to_float"
  %d = Cast(%c) {to: int = 6} "back_to_int"
  %e = Cast(%x) {to: int = 6} "float_to_int"
  %f = Cast(%e) {to: int = 1} "back_to_float_again"
  %g = Cast(%h) {to: int = 1} "half_to_float"
  %k = Cast(%g) {to: int = 16} "float_to_bf16"
  %l = Cast(%u) {to: int = 3} "uint8_to_int8"
  %m = Cast(%l) {to: int = 2} "back_to_uint8"
  output %b
  output %d
  output %f
  output %k
  output %m
})";
  EXPECT_EQ(eliminate(ir), inferred(ir));
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
