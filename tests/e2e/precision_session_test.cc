// SessionOptions::precision with the real cpu and npu_sim backends (issue 37): the kernels
// each path prepares (the task sink, specialisations compiled at run time, a .gem) are of
// the session's precision, also after another session on the same backend set another;
// a backend without bfloat16 arithmetic runs float32 and says so.
#include <cpuid.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ge/model_file.h"
#include "ge/session.h"
#include "kernel_trace.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

/// Whether the cpu backend has bfloat16 arithmetic here: AVX512_BF16 by cpuid, oneDNN not
/// capped below it.
bool cpu_has_bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (eax & (1u << 5)) != 0 && std::getenv("ONEDNN_MAX_CPU_ISA") == nullptr &&
         std::getenv("DNNL_MAX_CPU_ISA") == nullptr;
}

/// y = Relu(Neg(x) @ w), x float32[rows,32] (rows symbolic when `rows` is 0): the MatMul
/// reads no graph input and writes no graph output, so mixed computes it in bfloat16 too.
std::unique_ptr<Graph> dense_graph(int64_t rows) {
  auto g = std::make_unique<Graph>("dense");
  g->set_opset_import("", 17);
  Value* x =
      g->add_input("x", TensorDesc(DataType::kFloat32, {rows > 0 ? Dim::of(rows) : Dim::named("N"), Dim::of(32)}));
  std::vector<float> weights(32 * 32);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = std::sin(0.37f * static_cast<float>(i)) * 0.3f;
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({32, 32}, weights));
  Node* neg = g->add_node("Neg", {x}, 1, "neg", {"n"});
  Node* matmul = g->add_node("MatMul", {neg->output(0), w}, 1, "dense", {"h"});
  Node* relu = g->add_node("Relu", {matmul->output(0)}, 1, "relu", {"y"});
  g->add_output(relu->output(0));
  return g;
}

Tensor rows_of(int64_t rows) {
  std::vector<float> data(static_cast<size_t>(rows * 32));
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::cos(0.11f * static_cast<float>(i));
  return Tensor::from_vector<float>({rows, 32}, data);
}

Result<std::unique_ptr<Session>> session_for(int64_t rows, Precision precision, const std::string& backend = "cpu") {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx_std", backend}));
  SessionOptions options;
  options.backend = backend;
  options.precision = precision;
  return Session::create(env.host(), dense_graph(rows), options);
}

/// The kernel the device ran for node 'dense' (the MatMul, maybe fused) in one run of
/// `session` on `rows` rows.
std::string dense_kernel_of_run(Session& session, int64_t rows, std::vector<Tensor>* outputs = nullptr) {
  return e2e_testing::kernel_of_node(session, {{"x", rows_of(rows)}}, "dense", outputs);
}

bool is_bf16_kernel(const std::string& name) { return name.size() > 5 && name.substr(name.size() - 5) == ".bf16"; }

TEST(SessionPrecision, TheTaskSinksKernelsAreOfTheSessionsPrecision) {
  std::vector<Tensor> float32;
  for (Precision precision : {Precision::kFp32, Precision::kBf16, Precision::kMixed}) {
    Result<std::unique_ptr<Session>> session = session_for(4, precision);
    ASSERT_TRUE(session.is_ok()) << session.status().to_string();
    ASSERT_TRUE((*session)->uses_task_sink());
    const Precision expected = cpu_has_bf16() ? precision : Precision::kFp32;
    EXPECT_EQ((*session)->precision(), expected);
    EXPECT_EQ((*session)->requested_precision(), precision);
    std::vector<Tensor> outputs;
    const std::string kernel = dense_kernel_of_run(**session, 4, &outputs);
    EXPECT_EQ(is_bf16_kernel(kernel), expected != Precision::kFp32) << kernel;
    ASSERT_EQ(outputs.size(), 1u);
    if (precision == Precision::kFp32) {
      float32 = outputs;
      continue;
    }
    // bfloat16 inputs (8 significant bits) over 32 products: within 2e-2 of float32's scale.
    double scale = 0, difference = 0;
    for (int64_t i = 0; i < outputs[0].element_count(); ++i) {
      scale = std::max(scale, std::fabs(float32[0].scalar_as_double(i)));
      difference = std::max(difference, std::fabs(outputs[0].scalar_as_double(i) - float32[0].scalar_as_double(i)));
    }
    EXPECT_LE(difference, 2e-2 * scale) << precision_name(precision);
    if (expected != Precision::kFp32) {
      EXPECT_GT(difference, 0.0) << "bf16 rounding should show";
    }
  }
}

TEST(SessionPrecision, SpecialisationsCompiledLaterKeepTheirSessionsPrecision) {
  // Both sessions share the one cpu backend; the fp32 one is created last, so without the
  // session setting its precision again before a run, the bf16 one's later
  // specialisations would be prepared in float32.
  Result<std::unique_ptr<Session>> bf16 = session_for(0, Precision::kBf16);
  ASSERT_TRUE(bf16.is_ok()) << bf16.status().to_string();
  ASSERT_TRUE((*bf16)->specialises());
  Result<std::unique_ptr<Session>> fp32 = session_for(0, Precision::kFp32);
  ASSERT_TRUE(fp32.is_ok()) << fp32.status().to_string();
  const bool bf16_kernels = cpu_has_bf16();
  for (int64_t rows : {3, 5}) {
    EXPECT_EQ(is_bf16_kernel(dense_kernel_of_run(**bf16, rows)), bf16_kernels) << rows << " rows";
    EXPECT_FALSE(is_bf16_kernel(dense_kernel_of_run(**fp32, rows))) << rows << " rows";
  }
  // Cached specialisations run the kernels they were prepared with.
  EXPECT_EQ(is_bf16_kernel(dense_kernel_of_run(**bf16, 3)), bf16_kernels);
}

TEST(SessionPrecision, ABackendWithoutBfloat16RunsFloat32) {
  Result<std::unique_ptr<Session>> refused = session_for(4, Precision::kBf16, "npu_sim");
  ASSERT_TRUE(refused.is_ok()) << refused.status().to_string();
  EXPECT_EQ((*refused)->precision(), Precision::kFp32);
  EXPECT_EQ((*refused)->requested_precision(), Precision::kBf16);
  Result<std::unique_ptr<Session>> plain = session_for(4, Precision::kFp32, "npu_sim");
  ASSERT_TRUE(plain.is_ok()) << plain.status().to_string();
  std::vector<Tensor> a, b;
  ASSERT_TRUE((*refused)->run({{"x", rows_of(4)}}, a).is_ok());
  ASSERT_TRUE((*plain)->run({{"x", rows_of(4)}}, b).is_ok());
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  for (int64_t i = 0; i < a[0].element_count(); ++i) EXPECT_EQ(a[0].scalar_as_double(i), b[0].scalar_as_double(i)) << i;
}

TEST(SessionPrecision, AModelFileRunsInThePrecisionItWasCompiledWith) {
  Result<std::unique_ptr<Session>> compiled = session_for(4, Precision::kBf16);
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  ModelFileInfo info;
  info.precision = (*compiled)->precision();
  info.plugins = required_plugins(PluginEnvironment::get().host(), "cpu");
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("ge_precision_" + std::to_string(::getpid()) + ".gem");
  const CompiledPlans plans = (*compiled)->runner()->compiled_plans();
  ASSERT_TRUE(write_model_file(file, (*compiled)->graph(), info, &plans).is_ok());
  // Another session on the backend sets fp32 in between: loading sets the file's again.
  ASSERT_TRUE(session_for(4, Precision::kFp32).is_ok());
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(PluginEnvironment::get().host(), file, {});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->precision(), info.precision);
  EXPECT_EQ((*loaded)->requested_precision(), info.precision);
  EXPECT_EQ(is_bf16_kernel(dense_kernel_of_run(**loaded, 4)), info.precision == Precision::kBf16);
  SessionOptions other;
  other.precision = info.precision == Precision::kBf16 ? Precision::kMixed : Precision::kBf16;
  Result<std::unique_ptr<Session>> refused =
      create_session_from_model_file(PluginEnvironment::get().host(), file, other);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      refused.status().message().find("was compiled with precision " + std::string(precision_name(info.precision)) +
                                      ", not " + std::string(precision_name(other.precision))),
      std::string::npos)
      << refused.status().message();
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace ge
