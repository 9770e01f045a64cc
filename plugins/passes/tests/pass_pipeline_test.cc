// The built-in passes' pipeline at every -O level, from their declared phases and
// constraints, and the registry options that move a pass.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "ge/pass_manager.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

const std::vector<std::string> kPassPlugins = {
    "noop_elimination", "constant_folding", "cse", "fusion", "autofusion", "dce", "layout_assignment"};

Result<std::vector<std::string>> pipeline(const PluginHost& host, int opt_level) {
  OpRegistry ops;
  PassManagerOptions options;
  options.opt_level = opt_level;
  return PassManager(host.passes(), ops, options).pipeline();
}

// The order the numeric positions gave before phases replaced them: noop_elimination 100,
// constant_folding 200, cse 300, the fusions 400..520 in the order below, autofusion 600,
// dce 900, layout_assignment 1000; fuse_qdq (phase fold, before constant_folding) and
// widen_half_precision (phase canonicalize, after noop_elimination) and einsum_to_matmul
// (canonicalize) came later.
TEST(BuiltInPipeline, IsTheOrderTheNumericPositionsGaveAtEveryLevel) {
  const PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require(kPassPlugins).is_ok()) << env.require(kPassPlugins).to_string();
  const std::vector<std::vector<std::string>> expected = {
      {},
      {"noop_elimination", "constant_folding", "cse", "dce"},
      {"noop_elimination", "widen_half_precision", "einsum_to_matmul", "fuse_qdq", "constant_folding", "cse", "fuse_pad", "fuse_bias_add",
       "fuse_conv_bn", "fuse_matmul_add", "reduce_then_matmul", "fuse_layer_norm", "fuse_softmax", "fuse_hard_swish",
       "dce", "layout_assignment"},
      {"noop_elimination", "widen_half_precision", "einsum_to_matmul", "fuse_qdq", "constant_folding", "cse", "fuse_pad", "fuse_bias_add",
       "fuse_conv_bn", "fuse_matmul_add", "reduce_then_matmul", "fuse_layer_norm", "fuse_softmax", "fuse_hard_swish",
       "fuse_gelu", "fuse_matmul_bias", "fuse_conv_residual", "fuse_activation", "fuse_scatter_rows", "autofusion", "dce",
       "layout_assignment"}};
  for (int level = 0; level <= 3; ++level) {
    Result<std::vector<std::string>> names = pipeline(env.host(), level);
    ASSERT_TRUE(names.is_ok()) << names.status().to_string();
    EXPECT_EQ(*names, expected[static_cast<size_t>(level)]) << "-O" << level;
  }
}

TEST(BuiltInPipeline, ListPluginsPrintsEachPassWithPhaseAndConstraintsInPipelineOrder) {
  const PluginEnvironment& env = PluginEnvironment::get();
  ASSERT_TRUE(env.require(kPassPlugins).is_ok());
  const std::string text = env.host().describe();
  const size_t section = text.find("pass pipeline (by phase; inside a phase after/before, then registration order):\n");
  ASSERT_NE(section, std::string::npos) << text;
  size_t at = section;
  for (const char* line :
       {"  canonicalize  noop_elimination", "  fold          constant_folding", "  fold          cse ",
        "  fuse          fuse_bias_add", "  fuse          fuse_conv_bn", "  fuse          fuse_activation",
        "  fuse          autofusion", "  cleanup       dce", "  layout        layout_assignment"}) {
    const size_t next = text.find(line, at);
    ASSERT_NE(next, std::string::npos) << "'" << line << "' missing or out of order in:\n" << text;
    at = next;
  }
  EXPECT_NE(text.find("-O1  after constant_folding\n", section), std::string::npos) << text;
  EXPECT_NE(text.find("fuse_hard_swish       -O2  before fuse_activation, autofusion\n", section), std::string::npos)
      << text;
}

/// A registry in a temporary folder with the build's pass plugins and `options` TOML
/// lines per plugin name.
class MovedPasses : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path registry(const std::vector<std::pair<std::string, std::string>>& options) {
    std::filesystem::create_directories(dir_);
    const std::filesystem::path file = dir_ / "moved.toml";
    std::ofstream out(file);
    for (const std::string& name : kPassPlugins) {
      std::filesystem::path library;  // where the build's registry found it
      for (const PluginRecord& record : PluginEnvironment::get().host().records()) {
        if (record.name == name) library = std::filesystem::absolute(record.library);
      }
      out << "[[plugin]]\nname = \"" << name << "\"\nkind = \"pass\"\nlibrary = \"" << library.string() << "\"\n";
      for (const auto& [plugin, lines] : options) {
        if (plugin == name) out << "[plugin.options]\n" << lines << "\n";
      }
    }
    return file;
  }

  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("ge_moved_passes_" + std::to_string(::getpid()));
};

TEST_F(MovedPasses, PhaseAfterAndBeforeOptionsMoveAPass) {
  ASSERT_TRUE(PluginEnvironment::get().require(kPassPlugins).is_ok());
  // dce first; fuse_gelu last (its run_before autofusion gives way to the phases).
  PluginHost host;
  Status loaded = host.load_registry(registry({{"dce", "phase = \"canonicalize\"\nbefore = [\"noop_elimination\"]"},
                                               {"fusion",
                                                "\"fuse_gelu.phase\" = \"layout\"\n"
                                                "\"fuse_gelu.after\" = [\"layout_assignment\"]"}}));
  ASSERT_TRUE(loaded.is_ok()) << loaded.to_string();
  Result<std::vector<std::string>> names = pipeline(host, 3);
  ASSERT_TRUE(names.is_ok()) << names.status().to_string();
  EXPECT_EQ(*names,
            (std::vector<std::string>{"dce", "noop_elimination", "einsum_to_matmul", "fuse_qdq", "constant_folding", "cse", "fuse_pad", "fuse_bias_add",
                                      "fuse_conv_bn", "fuse_matmul_add", "reduce_then_matmul", "fuse_layer_norm",
                                      "fuse_softmax", "fuse_hard_swish", "fuse_matmul_bias", "fuse_conv_residual",
                                      "fuse_activation", "fuse_scatter_rows", "autofusion", "layout_assignment", "fuse_gelu"}));
}

TEST_F(MovedPasses, AnUnknownPhaseFailsThePluginWithAPreciseError) {
  PluginHost host;
  Status loaded = host.load_registry(registry({{"cse", "phase = \"dedupe\""}}));
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.message().find("plugin 'cse': registration failed: pass 'cse': option 'phase' = \"dedupe\" is not "
                                  "a phase (expected canonicalize, fold, fuse, cleanup or layout)"),
            std::string::npos)
      << loaded.to_string();
  EXPECT_NE(loaded.message().find("moved.toml' line "), std::string::npos) << loaded.to_string();
}

TEST_F(MovedPasses, TheRetiredOrderOptionIsAnError) {
  PluginHost host;
  Status loaded = host.load_registry(registry({{"fusion", "\"fuse_softmax.order\" = 445"}}));
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.message().find("option 'fuse_softmax.order' is no longer read"), std::string::npos)
      << loaded.to_string();
}

TEST_F(MovedPasses, ACycleOfConstraintsFailsThePipelineNamingItsPasses) {
  PluginHost host;
  Status loaded = host.load_registry(registry({{"noop_elimination", "phase = \"fold\"\nafter = [\"cse\"]"},
                                               {"constant_folding", "after = [\"noop_elimination\"]"}}));
  ASSERT_TRUE(loaded.is_ok()) << loaded.to_string();
  for (int level : {1, 3}) {
    Result<std::vector<std::string>> names = pipeline(host, level);
    ASSERT_FALSE(names.is_ok());
    EXPECT_EQ(names.status().message(),
              "the run_after / run_before constraints of phase fold form a cycle: 'constant_folding' runs before 'cse' "
              "runs before 'noop_elimination' runs before 'constant_folding' (change the 'after' / 'before' options "
              "of one of them)");
  }
  EXPECT_NE(host.describe().find("then registration order):\n  FAILED    the run_after / run_before constraints of "
                                 "phase fold form a cycle"),
            std::string::npos)
      << host.describe();
}

}  // namespace
}  // namespace ge
