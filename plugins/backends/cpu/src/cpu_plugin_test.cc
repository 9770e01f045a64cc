// Loads the built libge_backend_cpu.so through the core's PluginHost, as ge-run does, and
// checks that it registers one working backend named "cpu".

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace ge
