// The generated models (make_models.py) give the same outputs at -O0 and -O3 (1e-5
// relative), both match the numpy reference, and -O3 has the fused graph we expect.
// Node counts are printed for the record.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

std::filesystem::path models_dir() {
  const char* dir = std::getenv("GE_PASS_MODELS_DIR");
  return dir != nullptr ? dir : "test_models/passes";
}

Result<Tensor> read_floats(const std::filesystem::path& path, std::vector<int64_t> dims) {
  Tensor tensor = Tensor::zeros(DataType::kFloat32, std::move(dims));
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(tensor.raw_data()), static_cast<std::streamsize>(tensor.byte_size()));
  if (!in || in.peek() != EOF) return not_found(path.string() + ": missing or not " + std::to_string(tensor.byte_size()) + " bytes");
  return tensor;
}

struct Run {
  Tensor output;
  size_t nodes = 0;
  std::map<std::string, int> op_counts;  ///< "Conv", "ge::FusedConv", ...
};

Result<Run> run(const std::string& name, int opt_level, bool check_passes = false) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx", "onnx_std", "ge_fused", "cpu", "noop_elimination", "constant_folding",
                                  "cse", "fusion", "dce"}));
  SessionOptions options;
  options.passes.opt_level = opt_level;
  options.passes.check_passes = check_passes;
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                      Session::create(env.host(), models_dir() / (name + ".onnx"), options));
  const Value* input = session->graph().runtime_inputs().at(0);
  GE_ASSIGN_OR_RETURN(Tensor x, read_floats(models_dir() / (name + ".input.bin"), input->desc().static_dims()));
  std::vector<Tensor> outputs;
  GE_RETURN_IF_ERROR(session->run({{input->name(), x}}, outputs));
  Run result;
  result.output = outputs.at(0);
  result.nodes = session->graph().node_count();
  for (const auto& node : session->graph().nodes()) {
    ++result.op_counts[node->domain().empty() ? node->op_type() : node->domain() + "::" + node->op_type()];
  }
  return result;
}

std::string ops_text(const std::map<std::string, int>& counts) {
  std::string text;
  for (const auto& [op, count] : counts) text += (text.empty() ? "" : ", ") + op + " x" + std::to_string(count);
  return text;
}

/// Largest |a - b| / (|b| + atol / rtol), i.e. the smallest rtol that passes with that atol.
void expect_close(const Tensor& actual, const Tensor& expected, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  int reported = 0;
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    const double a = actual.values<float>()[static_cast<size_t>(i)];
    const double b = expected.values<float>()[static_cast<size_t>(i)];
    if (std::fabs(a - b) > atol + rtol * std::fabs(b) && reported++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << a << ", expected " << b;
    }
  }
}

class Equivalence : public ::testing::TestWithParam<const char*> {};

TEST_P(Equivalence, O3MatchesO0AndNumpy) {
  const std::string name = GetParam();
  auto o0 = run(name, 0);
  ASSERT_TRUE(o0.is_ok()) << o0.status().to_string();
  auto o3 = run(name, 3);
  ASSERT_TRUE(o3.is_ok()) << o3.status().to_string();
  std::cout << name << ": " << o0->nodes << " nodes at -O0 (" << ops_text(o0->op_counts) << "), " << o3->nodes
            << " at -O3 (" << ops_text(o3->op_counts) << ")\n";
  auto reference = read_floats(models_dir() / (name + ".output.bin"), o0->output.shape());
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  // float32 kernels against a float64 numpy evaluation.
  expect_close(o0->output, *reference, 1e-4, 1e-5, name + " -O0 vs numpy");
  expect_close(o3->output, *reference, 1e-4, 1e-5, name + " -O3 vs numpy");
  // The bar: -O3 equals -O0 within 1e-5 relative (1e-6 absolute for values near 0).
  expect_close(o3->output, o0->output, 1e-5, 1e-6, name + " -O3 vs -O0");
  EXPECT_LT(o3->nodes, o0->nodes);
}

INSTANTIATE_TEST_SUITE_P(GeneratedModels, Equivalence,
                         ::testing::Values("resnet_bottleneck", "mobilenet_v2_block", "transformer_encoder",
                                           "rmsnorm_swish"));

TEST(GeneratedModels, SpelledOutRmsNormAndSwishAutofuseToOneNode) {
  ASSERT_TRUE(PluginEnvironment::get().require({"autofusion"}).is_ok());
  auto o3 = run("rmsnorm_swish", 3);
  ASSERT_TRUE(o3.is_ok()) << o3.status().to_string();
  EXPECT_EQ(o3->op_counts, (std::map<std::string, int>{{"ge_autofuse::Fused", 1}})) << ops_text(o3->op_counts);
}

TEST(GeneratedModels, ResNetBottleneckFusesToThreeConvolutions) {
  auto o3 = run("resnet_bottleneck", 3);
  ASSERT_TRUE(o3.is_ok()) << o3.status().to_string();
  EXPECT_EQ(o3->op_counts, (std::map<std::string, int>{{"ge::FusedConv", 3}}));
}

TEST(GeneratedModels, MobileNetBlockFusesRelu6) {
  auto o3 = run("mobilenet_v2_block", 3);
  ASSERT_TRUE(o3.is_ok()) << o3.status().to_string();
  EXPECT_EQ(o3->op_counts, (std::map<std::string, int>{{"ge::FusedConv", 3}}));
}

TEST(GeneratedModels, TransformerEncoderFusesNormsGeluSoftmaxAndBiases) {
  auto o3 = run("transformer_encoder", 3);
  ASSERT_TRUE(o3.is_ok()) << o3.status().to_string();
  const std::map<std::string, int>& ops = o3->op_counts;
  EXPECT_EQ(ops.count("Shape"), 0u) << ops_text(ops);
  EXPECT_EQ(ops.count("Concat"), 0u) << ops_text(ops);
  EXPECT_EQ(ops.at("LayerNormalization"), 2) << ops_text(ops);
  // The spelled-out softmax becomes a Softmax (pattern fusion), which autofusion then
  // lowers into one kernel with the scores' scaling.
  EXPECT_EQ(ops.count("Softmax"), 0u) << ops_text(ops);
  EXPECT_EQ(ops.at("ge_autofuse::Fused"), 1) << ops_text(ops);
  EXPECT_EQ(ops.count("ge::Gelu"), 0u) << ops_text(ops);  // the FFN's first FusedMatMul's activation
  EXPECT_EQ(ops.at("ge::FusedMatMul"), 6) << ops_text(ops);
}

TEST(GeneratedModels, CheckPassesFindsNoNumericChangeAtO3) {
  auto o3 = run("transformer_encoder", 3, /*check_passes=*/true);
  EXPECT_TRUE(o3.is_ok()) << o3.status().to_string();
}

}  // namespace
}  // namespace ge
