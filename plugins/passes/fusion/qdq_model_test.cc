// The QDQ CNNs that testdata/make_qdq_model.py writes through ge::Session: qdq_cnn (a torch
// export, statically quantised as ONNX Runtime's QDQ quantiser lays it out) and
// qdq_cnn_torch (fake-quantised in torch and exported as PyTorch writes QDQ: weights as
// QuantizeLinear(float W) -> DequantizeLinear, float biases). At -O2 their three
// convolutions and classifier Gemm run as QLinearConv, no float Conv or Gemm is left, and
// the logits agree with -O0's (the float QDQ graph) within one quantisation step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

std::filesystem::path model_path(const std::string& name) {
  const char* dir = std::getenv("GE_QDQ_MODELS_DIR");
  return std::filesystem::path(dir != nullptr ? dir : "test_models/qdq") / (name + ".onnx");
}

Result<Tensor> read_input(const std::string& name, const std::vector<int64_t>& dims) {
  Tensor tensor = Tensor::zeros(DataType::kFloat32, dims);
  const std::filesystem::path path = std::filesystem::path(model_path(name)).replace_extension(".input.bin");
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(tensor.raw_data()), static_cast<std::streamsize>(tensor.byte_size()));
  if (!in || in.peek() != EOF)
    return not_found(path.string() + ": missing or not " + std::to_string(tensor.byte_size()) + " bytes");
  return tensor;
}

struct Run {
  Tensor logits;
  double logits_scale = 0;
  std::map<std::string, int> op_counts;
};

Result<Run> run(const std::string& name, int opt_level) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(
      env.require({"onnx", "onnx_std", "cpu", "noop_elimination", "constant_folding", "cse", "fusion", "dce"}));
  SessionOptions options;
  options.passes.opt_level = opt_level;
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::create(env.host(), model_path(name), options));
  const Value* input = session->graph().runtime_inputs().at(0);
  GE_ASSIGN_OR_RETURN(Tensor x, read_input(name, input->desc().static_dims()));
  std::vector<Tensor> outputs;
  GE_RETURN_IF_ERROR(session->run({{input->name(), x}}, outputs));
  Run result;
  result.logits = outputs.at(0);
  for (const auto& node : session->graph().nodes()) ++result.op_counts[node->op_type()];
  // The step of the logits: the scale of the DequantizeLinear that gives them.
  const Value* logits = session->graph().outputs().at(0);
  const Node* dequantize = logits->producer();
  if (dequantize == nullptr || dequantize->op_type() != "DequantizeLinear" || !dequantize->input(1)->is_constant()) {
    return not_found("the logits are not the output of a DequantizeLinear with a constant scale");
  }
  result.logits_scale = dequantize->input(1)->constant()->scalar_as_double();
  return result;
}

class QdqModel : public ::testing::TestWithParam<const char*> {};

TEST_P(QdqModel, ConvolutionsAndGemmRunAsQLinearConvAndAgreeWithTheFloatGraphWithinOneStep) {
  const std::string name = GetParam();
  auto o0 = run(name, 0);
  ASSERT_TRUE(o0.is_ok()) << o0.status().to_string();
  auto o2 = run(name, 2);
  ASSERT_TRUE(o2.is_ok()) << o2.status().to_string();
  EXPECT_EQ(o0->op_counts["Conv"], 3);
  EXPECT_EQ(o2->op_counts["Conv"], 0);
  // The three convolutions, and the classifier's Gemm with its bias as a 1x1 QLinearConv.
  EXPECT_EQ(o2->op_counts["QLinearConv"], 4);
  EXPECT_EQ(o2->op_counts["Gemm"], 0);
  const Tensor& a = o2->logits;
  const Tensor& b = o0->logits;
  ASSERT_EQ(a.shape(), b.shape());
  double largest = 0;
  int64_t equal = 0;
  for (int64_t i = 0; i < b.element_count(); ++i) {
    const double difference = std::fabs(a.scalar_as_double(i) - b.scalar_as_double(i));
    largest = std::max(largest, difference);
    equal += difference == 0;
    EXPECT_LE(difference, o0->logits_scale * 1.001)
        << "logit " << i << ": -O2 " << a.scalar_as_double(i) << ", -O0 " << b.scalar_as_double(i);
  }
  std::cout << name << ": " << equal << " of " << b.element_count()
            << " logits equal at -O0 and -O2, largest difference " << largest / o0->logits_scale << " steps\n";
}

INSTANTIATE_TEST_SUITE_P(Generated, QdqModel, ::testing::Values("qdq_cnn", "qdq_cnn_torch"));

}  // namespace
}  // namespace ge
