// The plugin as the host sees it: loaded from a registry with Boost.DLL, registering a
// parser named "onnx" that claims ".onnx" files.

#include <gtest/gtest.h>

#include "ge/plugin_host.h"
#include "test_util.h"

namespace ge::onnx_parser {
namespace {

using namespace ge::onnx_parser::testing;

TEST(OnnxParserPlugin, LoadsThroughThePluginHost) {
  TempDir dir;
  const fs::path registry = dir.write(
      "plugins.toml", std::string("[[plugin]]\nname = \"onnx\"\nkind = \"parser\"\nlibrary = \"") +
                          GE_PARSER_ONNX_PLUGIN_PATH + "\"\nenabled = true\n");
  PluginHost host;
  const Status loaded = host.load_registry(registry);
  ASSERT_TRUE(loaded.is_ok()) << loaded.to_string();
  ASSERT_EQ(host.parsers().size(), 1u);
  ASSERT_EQ(host.records().size(), 1u);
  EXPECT_TRUE(host.records()[0].loaded);

  auto parser = host.parser_for("some/model.onnx");
  ASSERT_TRUE(parser.is_ok()) << parser.status().to_string();
  EXPECT_EQ((*parser)->name(), "onnx");
  EXPECT_EQ((*parser)->extensions(), std::vector<std::string>{".onnx"});

  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y");
  const fs::path path = dir.write("relu.onnx", model.SerializeAsString());
  auto graph = (*parser)->parse_file(path);
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  EXPECT_NE((*graph)->find_node("relu"), nullptr);

  // Errors cross the plugin boundary as a Status, not an exception.
  auto missing = (*parser)->parse_file(dir.path() / "absent.onnx");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ge::onnx_parser
