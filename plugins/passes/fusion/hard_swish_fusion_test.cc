#include <gtest/gtest.h>

#include <algorithm>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

// The golden cases that need no particular check inputs are in tests/passes/hard_swish_fusion.ge.

/// x from -5 to 5, through both clip bounds (x + 3 = 0 and 6) and the part between.
std::vector<std::pair<std::string, Tensor>> spanning_input(std::vector<int64_t> dims) {
  Tensor x = Tensor::zeros(DataType::kFloat32, std::move(dims));
  const float values[] = {-5, -4, -3, -2.5f, -1, -0.5f, 0, 0.5f, 1, 2.5f, 3, 5};
  for (int64_t i = 0; i < x.element_count(); ++i) x.data<float>()[i] = values[i % 12];
  return {{"x", x}};
}

// Each way exporters spell it: / 6 or * (1/6) on the product, on the Clip or on x;
// operands in either order; x * HardSigmoid(x) with alpha 1/6.
const char* const kSpellings = R"(graph main (opset ""=17) {
  input %x : float32[2,6]
  init %three : float32[] = [3]
  init %zero : float32[] = [0]
  init %six : float32[] = [6]
  init %sixth : float32[] = [0.16666667]
  %a1 = Add(%x, %three) "a_add"
  %a2 = Clip(%a1, %zero, %six) "a_relu6"
  %a3 = Mul(%x, %a2) "a_mul"
  %ya = Div(%a3, %six) "a_div"
  %b1 = Add(%three, %x) "b_add"
  %b2 = Clip(%b1, %zero, %six) "b_relu6"
  %b3 = Mul(%b2, %x) "b_mul"
  %yb = Mul(%sixth, %b3) "b_sixth"
  %c1 = Add(%x, %three) "c_add"
  %c2 = Clip(%c1, %zero, %six) "c_relu6"
  %c3 = Mul(%c2, %sixth) "c_sixth"
  %yc = Mul(%x, %c3) "c_mul"
  %d1 = Add(%x, %three) "d_add"
  %d2 = Clip(%d1, %zero, %six) "d_relu6"
  %d3 = Div(%d2, %six) "d_div"
  %yd = Mul(%d3, %x) "d_mul"
  %e1 = Div(%x, %six) "e_div"
  %e2 = Add(%x, %three) "e_add"
  %e3 = Clip(%e2, %zero, %six) "e_relu6"
  %ye = Mul(%e1, %e3) "e_mul"
  %f1 = HardSigmoid(%x) {alpha: float = 0.16666667, beta: float = 0.5} "f_hard_sigmoid"
  %yf = Mul(%f1, %x) "f_mul"
  output %ya
  output %yb
  output %yc
  output %yd
  output %ye
  output %yf
})";

/// kSpellings fused at `opset`: `op` is HardSwish or ge::HardSwish.
std::string fused_spellings(int opset, const std::string& op) {
  const std::string imports = op.rfind("ge::", 0) == 0 ? ", \"ge\"=1" : "";
  std::string ir = "graph main (opset \"\"=" + std::to_string(opset) + imports + R"() {
  input %x : float32[2,6]
  init %three : float32[] = [3]
  init %zero : float32[] = [0]
  init %six : float32[] = [6]
  init %sixth : float32[] = [0.16666667]
)";
  for (const char* node : {"yf = $(%x) \"f_mul\"", "ye = $(%x) \"e_mul\"", "yd = $(%x) \"d_mul\"",
                           "yc = $(%x) \"c_mul\"", "yb = $(%x) \"b_sixth\"", "ya = $(%x) \"a_div\""}) {
    std::string line = std::string("  %") + node + "\n";
    line.replace(line.find('$'), 1, op);
    ir += line;
  }
  return ir + R"(  output %ya
  output %yb
  output %yc
  output %yd
  output %ye
  output %yf
})";
}

TEST(HardSwishFusion, EachSpellingFuses) {
  EXPECT_EQ(run(kSpellings, {"fuse_hard_swish"}, checked_at(2, spanning_input({2, 6}))),
            inferred(fused_spellings(17, "HardSwish")));
}

TEST(HardSwishFusion, BeforeOpset14TheGeHardSwishAtO3Only) {
  // -O2 graphs keep to ai.onnx ops, which have no HardSwish before opset 14: that -O2
  // leaves the graph unchanged is a case in tests/passes/hard_swish_fusion.ge.
  const std::string opset13 = at_opset(kSpellings, 13);
  EXPECT_EQ(run(opset13, {"fuse_hard_swish"}, checked_at(3, spanning_input({2, 6}))),
            inferred(fused_spellings(13, "ge::HardSwish")));
}

TEST(HardSwishFusion, ClipBoundsFromAttributesBeforeOpset11) {
  EXPECT_EQ(run(R"(graph main (opset ""=10) {
  input %x : float32[2,6]
  init %three : float32[] = [3]
  init %six : float32[] = [6]
  %a = Add(%x, %three) "add"
  %r = Clip(%a) {max: float = 6, min: float = 0} "relu6"
  %m = Mul(%x, %r) "mul"
  %y = Div(%m, %six) "div"
  output %y
})",
                {"fuse_hard_swish"}, checked_at(3, spanning_input({2, 6}))),
            inferred(R"(graph main (opset ""=10, "ge"=1) {
  input %x : float32[2,6]
  init %three : float32[] = [3]
  init %six : float32[] = [6]
  %y = ge::HardSwish(%x) "div"
  output %y
})"));
}

class HardSwishFusionAtOpset : public ::testing::TestWithParam<int> {};

TEST_P(HardSwishFusionAtOpset, FusesAndStillInfersAtO3) {
  const int opset = GetParam();
  EXPECT_EQ(run(at_opset(kSpellings, opset), {"fuse_hard_swish"}, checked_at(3, spanning_input({2, 6}))),
            inferred(fused_spellings(opset, opset >= 14 ? "HardSwish" : "ge::HardSwish")));
}

// A Conv then a HardSwish spelled out: one FusedConv whatever the opset.
TEST_P(HardSwishFusionAtOpset, ThenFuseActivationTakesItIntoTheConv) {
  const int opset = GetParam();
  const std::string ir = at_opset(R"(graph main (opset ""=17) {
  input %x : float32[1,1,2,6]
  init %w : float32[2,1,1,1] = [2, -0.5]
  init %b : float32[2] = [0.5, 1]
  init %three : float32[] = [3]
  init %zero : float32[] = [0]
  init %six : float32[] = [6]
  %c = Conv(%x, %w, %b) "conv"
  %a = Add(%c, %three) "add"
  %r = Clip(%a, %zero, %six) "relu6"
  %m = Mul(%c, %r) "mul"
  %y = Div(%m, %six) "div"
  output %y
})",
                                  opset);
  EXPECT_EQ(run(ir, {"fuse_hard_swish", "fuse_activation"}, checked_at(3, spanning_input({1, 1, 2, 6}))),
            inferred(at_opset(R"(graph main (opset ""=17, "ge"=1) {
  input %x : float32[1,1,2,6]
  init %w : float32[2,1,1,1] = [2, -0.5]
  init %b : float32[2] = [0.5, 1]
  init %three : float32[] = [3]
  init %zero : float32[] = [0]
  init %six : float32[] = [6]
  %y = ge::FusedConv(%x, %w, %b) {activation: string = "HardSwish"} "conv"
  output %y
})",
                              opset)));
}

INSTANTIATE_TEST_SUITE_P(Opsets, HardSwishFusionAtOpset, ::testing::ValuesIn(testing::kOpsets), testing::opset_name);

TEST(HardSwishFusion, RunsBeforeFuseActivation) {
  pass_testing::PluginEnvironment& env = pass_testing::PluginEnvironment::get();
  for (int level : {2, 3}) {
    PassManagerOptions options;
    options.opt_level = level;
    auto pipeline = PassManager(env.host().passes(), env.ops(), options).pipeline();
    ASSERT_TRUE(pipeline.is_ok()) << pipeline.status().to_string();
    auto position = [&](const std::string& name) { return std::find(pipeline->begin(), pipeline->end(), name); };
    ASSERT_NE(position("fuse_hard_swish"), pipeline->end()) << "-O" << level;
    if (level == 3) {
      EXPECT_LT(position("fuse_hard_swish"), position("fuse_activation"));
    }
  }
}

// A float16/bfloat16 model's 1/6 is rounded (0.1666 in float16, 0.1670 in bfloat16):
// it matches within its dtype's precision.
class HardSwishFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(HardSwishFusionInHalf, EachSpellingFuses) {
  const std::string dtype = GetParam();
  EXPECT_EQ(
      run(testing::as_dtype(kSpellings, dtype), {"fuse_hard_swish"}, testing::checked_in(dtype, 2, {{"x", {2, 6}}})),
      inferred(testing::as_dtype(fused_spellings(17, "HardSwish"), dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, HardSwishFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
