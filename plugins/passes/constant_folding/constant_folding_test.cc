// The size cap of constant_folding, which needs the pass built directly (a small cap).
// Folding runs the cpu backend's kernels, loaded from the build's plugin registry. The
// golden text-IR tests are in tests/passes/constant_folding.ge.
#include "constant_folding.h"

#include <gtest/gtest.h>

#include "plugin_test_env.h"

namespace ge::passes {
namespace {

using pass_testing::PluginEnvironment;

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

}  // namespace
}  // namespace ge::passes
