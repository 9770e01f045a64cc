// Loads the built libge_backend_cpu.so through the core's PluginHost, as ge-run does, and
// checks that it registers one working backend named "cpu".

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "ge/plugin_host.h"

namespace ge {
namespace {

TEST(CpuPlugin, RegistersTheCpuBackend) {
  const char* lib_dir = std::getenv("GE_TEST_LIB_DIR");
  ASSERT_NE(lib_dir, nullptr) << "run through ctest, which sets GE_TEST_LIB_DIR";
  const std::filesystem::path library = std::filesystem::path(lib_dir) / "libge_backend_cpu.so";
  ASSERT_TRUE(std::filesystem::exists(library)) << library;
  const std::filesystem::path registry =
      std::filesystem::temp_directory_path() / ("ge_cpu_plugin_test_" + std::to_string(::getpid()) + ".toml");
  {
    std::ofstream file(registry);
    file << "[[plugin]]\nname = \"cpu\"\nkind = \"backend\"\nlibrary = \"" << library.string()
         << "\"\nenabled = true\n";
  }
  PluginHost host;
  Status status = host.load_registry(registry);
  std::filesystem::remove(registry);
  ASSERT_TRUE(status.is_ok()) << status.to_string() << "\n" << host.describe();
  ASSERT_EQ(host.backends().size(), 1u);
  Result<Backend*> backend = host.backend("cpu");
  ASSERT_TRUE(backend.is_ok()) << backend.status().to_string();
  EXPECT_EQ((*backend)->name(), "cpu");
  EXPECT_TRUE((*backend)->device().host_accessible());

  // A kernel prepared by the loaded plugin runs (its code and params live in the plugin).
  Graph graph;
  graph.set_opset_import("", 17);
  Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {3}));
  Node* relu = graph.add_node("Relu", {x}, 1, "relu", {"y"});
  relu->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {3}));
  Result<PreparedKernel> kernel = (*backend)->prepare(*relu);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  const float in[] = {-1, 0, 2};
  float out[3] = {9, 9, 9};
  const void* inputs[] = {in};
  void* outputs[] = {out};
  KernelArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  args.params = kernel->params.get();
  EXPECT_EQ(kernel->function(args), 0);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 2.0f);
  kernel = Status(StatusCode::kInternal, "released before the host unloads the plugin");
}

/// The registry entry of the built cpu plugin, with `options` as its [plugin.options].
std::filesystem::path write_registry(const std::string& options) {
  const std::filesystem::path library = std::filesystem::path(std::getenv("GE_TEST_LIB_DIR")) / "libge_backend_cpu.so";
  static int count = 0;
  const std::filesystem::path registry = std::filesystem::temp_directory_path() /
                                         ("ge_cpu_settings_test_" + std::to_string(::getpid()) + "_" +
                                          std::to_string(++count) + ".toml");
  std::ofstream file(registry);
  file << "[[plugin]]\nname = \"cpu\"\nkind = \"backend\"\nlibrary = \"" << library.string() << "\"\n";
  if (!options.empty()) file << "[plugin.options]\n" << options << "\n";
  return registry;
}

/// The name of the kernel `backend` prepares for a 1x1 convolution of 8 channels.
std::string conv_kernel_name(Backend& backend) {
  Graph graph;
  graph.set_opset_import("", 17);
  Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {1, 8, 4, 4}));
  std::vector<float> weights(64, 0.5f);
  Value* w = graph.add_initializer("w", Tensor::from_vector<float>({8, 8, 1, 1}, weights));
  Node* conv = graph.add_node("Conv", {x, w}, 1, "conv", {"y"});
  conv->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 8, 4, 4}));
  Result<PreparedKernel> kernel = backend.prepare(*conv);
  return kernel.is_ok() ? kernel->name : "error: " + kernel.status().to_string();
}

// The kernel providers are an ordered list from the registry (or a tool's setting): the
// reference kernels alone, or the fast paths first.
TEST(CpuPlugin, KernelProvidersComeFromTheRegistryOrAToolSetting) {
  ASSERT_NE(std::getenv("GE_TEST_LIB_DIR"), nullptr) << "run through ctest, which sets GE_TEST_LIB_DIR";
  std::string names[3];
  for (int variant = 0; variant < 3; ++variant) {
    PluginHost host;
    const std::filesystem::path registry =
        write_registry(variant == 1 ? "kernel_providers = [\"reference\"]" : "");
    if (variant == 2) host.set_plugin_option("cpu", "kernel_providers", std::vector<std::string>{"reference"});
    Status status = host.load_registry(registry);
    std::filesystem::remove(registry);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    names[variant] = conv_kernel_name(**host.backend("cpu"));
  }
  EXPECT_NE(names[0].find("dnnl"), std::string::npos) << names[0];
  EXPECT_EQ(names[1].find("dnnl"), std::string::npos) << names[1];
  EXPECT_EQ(names[1].rfind("cpu.Conv", 0), 0u) << names[1];
  EXPECT_EQ(names[2], names[1]) << "the host's setting overrides the registry's";
}

TEST(CpuPlugin, BadKernelSettingsAreErrorsNamingTheOption) {
  ASSERT_NE(std::getenv("GE_TEST_LIB_DIR"), nullptr) << "run through ctest, which sets GE_TEST_LIB_DIR";
  const std::pair<std::string, std::string> cases[] = {
      {"kernel_providers = [\"dnnl\"]", "must end with 'reference'"},
      {"kernel_providers = [\"gpu\", \"reference\"]", "unknown kernel provider 'gpu'"},
      {"kernel_providers = [\"dnnl\", \"dnnl\", \"reference\"]", "'dnnl' is listed twice"},
      {"int8 = \"fast\"", "option int8 = \"fast\" is none of"},
      {"autofuse_mode = \"jit\"", "option autofuse_mode = \"jit\""},
      {"winograde = false", "winograd"},
      {"winograd = \"maybe\"", "option winograd must be a bool, got \"maybe\""},
      {"intra_op_threads = 2.5", "option intra_op_threads must be an integer, got 2.5"},
      {"kernel_providers = \"reference\"", "option kernel_providers must be a list of strings"},
      {"int8 = false", "option int8 must be a string, got false"},
  };
  for (const auto& [options, expected] : cases) {
    PluginHost host;
    const std::filesystem::path registry = write_registry(options);
    Status status = host.load_registry(registry);
    std::filesystem::remove(registry);
    ASSERT_FALSE(status.is_ok()) << options;
    EXPECT_NE(status.message().find(expected), std::string::npos) << options << ": " << status.message();
    EXPECT_FALSE(host.backend("cpu").is_ok()) << options;
  }
}

}  // namespace
}  // namespace ge
