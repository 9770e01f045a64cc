// Golden text-IR tests: IR in -> constant_folding -> expected IR. Folding runs the cpu
// backend's kernels, loaded from the build's plugin registry.
#include "constant_folding.h"

#include <gtest/gtest.h>

#include "plugin_test_env.h"

namespace ge::passes {
namespace {

using pass_testing::inferred;
using pass_testing::PluginEnvironment;

std::string fold(const std::string& ir) {
  auto result = pass_testing::run_passes(ir, {"constant_folding"});
  return result.is_ok() ? *result : result.status().to_string();
}

TEST(ConstantFolding, FoldsArithmeticOnConstantsKeepingNames) {
  // [1, 2] + [3, 4] = [4, 6]; [4, 6] * 0.5 = [2, 3].
  EXPECT_EQ(fold(R"(graph main (opset ""=17) {
  input %x : float32[2]
  init %a : float32[2] = [1, 2]
  init %b : float32[2] = [3, 4]
  init %half : float32[] = [0.5]
  %c = Add(%a, %b) "add"
  %d = Mul(%c, %half) "scale"
  %y = Mul(%x, %d) "use"
  output %y
  output %c
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[2]
  init %a : float32[2] = [1, 2]
  init %b : float32[2] = [3, 4]
  init %half : float32[] = [0.5]
  init %c : float32[2] = [4, 6]
  init %d : float32[2] = [2, 3]
  %y : float32[2] = Mul(%x, %d) "use"
  output %y
  output %c
}
)");
}

TEST(ConstantFolding, FoldsShapesSoReshapeBecomesStatic) {
  // Shape(x)[:1] = [2]; Concat([2], [-1]) = [2, -1]: the Reshape of z [24] becomes [2, 12].
  EXPECT_EQ(fold(R"(graph main (opset ""=17) {
  input %x : float32[2,3,4]
  input %z : float32[24]
  init %minus_one : int64[1] = [-1]
  %s = Shape(%x) {end: int = 1} "shape"
  %target = Concat(%s, %minus_one) {axis: int = 0} "concat"
  %y = Reshape(%z, %target) "reshape"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[2,3,4]
  input %z : float32[24]
  init %minus_one : int64[1] = [-1]
  init %s : int64[1] = [2]
  init %target : int64[2] = [2, -1]
  %y : float32[2,12] = Reshape(%z, %target) "reshape"
  output %y
}
)");
}

TEST(ConstantFolding, ExpandAndConstantOfShapeBecomeStatic) {
  // Shape(x) = [3, 4]: Expand(y, [3, 4]) infers [3, 4]; ConstantOfShape([3, 4]) folds whole.
  EXPECT_EQ(fold(R"(graph main (opset ""=17) {
  input %x : float32[3,4]
  input %y : float32[1,4]
  %s = Shape(%x) "shape"
  %e = Expand(%y, %s) "expand"
  %z = ConstantOfShape(%s) {value: tensor = float32[1] [7]} "fill"
  %out = Add(%e, %z) "add"
  output %out
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[3,4]
  input %y : float32[1,4]
  init %s : int64[2] = [3, 4]
  init %z : float32[3,4] = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]
  %e : float32[3,4] = Expand(%y, %s) "expand"
  %out : float32[3,4] = Add(%e, %z) "add"
  output %out
}
)");
}

TEST(ConstantFolding, FoldsConstantNodesAndSizes) {
  EXPECT_EQ(fold(R"(graph main (opset ""=17) {
  input %x : float32[N,3]
  input %w : float32[2,3]
  %k = Constant() {value_ints: ints = [3, 1]} "k"
  %n = Size(%w) "size"
  %unknown = Size(%x) "dynamic_size"
  output %k
  output %n
  output %unknown
})"),
            R"(graph main (opset ""=17) {
  input %x : float32[N,3]
  input %w : float32[2,3]
  init %k : int64[2] = [3, 1]
  init %n : int64[] = [6]
  %unknown : int64[] = Size(%x) "dynamic_size"
  output %k
  output %n
  output %unknown
}
)");
}

TEST(ConstantFolding, LeavesRandomOpsAndOverridableInitializers) {
  const std::string ir = R"(graph main (opset ""=17) {
  init %a : float32[2] = [1, 2]
  init input %b : float32[2] = [3, 4]
  %r = RandomNormalLike(%a) {seed: float = 1} "random"
  %c = Add(%a, %b) "add_overridable"
  output %r
  output %c
})";
  EXPECT_EQ(fold(ir), inferred(ir));
}

TEST(ConstantFolding, RespectsTheSizeCap) {
  PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require({"onnx_std", "cpu"}).is_ok()) << env.require({"onnx_std", "cpu"}).to_string();
  auto graph = parse_graph(R"(graph main (opset ""=17) {
  init %small : float32[2] = [1, 2]
  init %big : float32[4] = [1, 2, 3, 4]
  %s = Neg(%small) "small_neg"
  %b = Neg(%big) "big_neg"
  output %s
  output %b
})");
  ASSERT_TRUE(graph.is_ok());
  ASSERT_TRUE(env.ops().infer_graph(**graph).is_ok());
  ConstantFolding folding(/*max_folded_bytes=*/8);  // 2 floats fit, 4 do not
  PassContext context{&env.ops(), 2, env.cpu(), env.cpu()};
  bool changed = false;
  ASSERT_TRUE(folding.run(**graph, context, changed).is_ok());
  EXPECT_TRUE(changed);
  EXPECT_EQ(print_graph(**graph), R"(graph main (opset ""=17) {
  init %small : float32[2] = [1, 2]
  init %big : float32[4] = [1, 2, 3, 4]
  init %s : float32[2] = [-1, -2]
  %b : float32[4] = Neg(%big) "big_neg"
  output %s
  output %b
}
)");
}

TEST(ConstantFolding, FoldsInsideSubgraphs) {
  EXPECT_EQ(fold(R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  %y = If(%cond) {else_branch: graph = graph else {
    capture %x : float32[2]
    output %x
  }, then_branch: graph = graph then {
    init %one : float32[2] = [1, 1]
    capture %x : float32[2]
    %two = Add(%one, %one) "inner_fold"
    %t = Mul(%x, %two) "inner_use"
    output %t
  }} "if"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  %y : float32[2] = If(%cond) {else_branch: graph = graph else {
    capture %x : float32[2]
    output %x
  }, then_branch: graph = graph then {
    init %one : float32[2] = [1, 1]
    init %two : float32[2] = [2, 2]
    capture %x : float32[2]
    %t : float32[2] = Mul(%x, %two) "inner_use"
    output %t
  }} "if"
  output %y
}
)");
}

// A body slicing the enclosing graph's weights (PyTorch's LSTM export inside an If): the
// capture stands for the outer initializer, so the slices fold once at compile time. A
// capture of an outer graph input does not.
TEST(ConstantFolding, CapturesOfOuterInitializersFold) {
  EXPECT_EQ(fold(R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  init %w : float32[4] = [1, 2, 3, 4]
  init %starts : int64[1] = [2]
  init %ends : int64[1] = [4]
  %y = If(%cond) {else_branch: graph = graph else {
    capture %x : float32[2]
    output %x
  }, then_branch: graph = graph then {
    capture %w : float32[4]
    capture %x : float32[2]
    capture %starts : int64[1]
    capture %ends : int64[1]
    %tail = Slice(%w, %starts, %ends) "weight_slice"
    %moved = Slice(%x, %starts, %ends) "input_slice"
    %t = Mul(%x, %tail) "inner_use"
    output %t
  }} "if"
  output %y
})"),
            R"(graph main (opset ""=17) {
  input %cond : bool[]
  input %x : float32[2]
  init %w : float32[4] = [1, 2, 3, 4]
  init %starts : int64[1] = [2]
  init %ends : int64[1] = [4]
  %y : float32[2] = If(%cond) {else_branch: graph = graph else {
    capture %x : float32[2]
    output %x
  }, then_branch: graph = graph then {
    init %tail : float32[2] = [3, 4]
    capture %w : float32[4]
    capture %x : float32[2]
    capture %starts : int64[1]
    capture %ends : int64[1]
    %moved : float32[*] = Slice(%x, %starts, %ends) "input_slice"
    %t : float32[2] = Mul(%x, %tail) "inner_use"
    output %t
  }} "if"
  output %y
}
)");
}

}  // namespace
}  // namespace ge::passes
