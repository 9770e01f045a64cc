// Loads the built plugin through the core's plugin host, the way ge-run does.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "ge/plugin_host.h"

namespace ge {
namespace {

TEST(OnnxOpsPluginTest, RegistersTheOnnxStdLibraryThroughTheHost) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ge_ops_onnx_plugin_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path registry = dir / "plugins.toml";
  {
    std::ofstream out(registry);
    out << "[[plugin]]\nname = \"onnx_std\"\nkind = \"op_library\"\nlibrary = \""
        << GE_OPS_ONNX_PLUGIN_PATH << "\"\nenabled = true\n";
  }
  {
    PluginHost host;
    Status status = host.load_registry(registry);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    ASSERT_EQ(host.op_libraries().size(), 1u);
    const OpLibrary& library = *host.op_libraries().front();
    EXPECT_EQ(library.name(), "onnx_std");
    const OpSchemaInfo* gemm = library.find_schema("", "Gemm", 17);
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->since_version, 13);

    // One inference through the loaded module: Gemm [2,3] x [3,4] = [2,4].
    OpRegistry registry_of_host = host.make_op_registry();
    Graph graph;
    graph.set_opset_import("", 17);
    Node* node = graph.add_node("Gemm",
                                {graph.add_input("a", TensorDesc::of(DataType::kFloat32, {2, 3})),
                                 graph.add_input("b", TensorDesc::of(DataType::kFloat32, {3, 4}))},
                                1, "gemm");
    status = registry_of_host.infer_node(*node);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    EXPECT_EQ(node->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 4}));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ge
