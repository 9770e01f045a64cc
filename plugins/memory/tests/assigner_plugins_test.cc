// The three assigner plugins loaded through the core's plugin host, as ge-run does.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ge/memory_plan.h"
#include "ge/plugin_host.h"
#include "ge/testing/memory_plan.h"

namespace ge {
namespace {

using ::testing::HasSubstr;

std::filesystem::path write_registry(const std::string& name, const std::string& hill_climb_options) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ge_memory_plugins_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "registry.toml";
  std::ofstream out(path);
  out << "[[plugin]]\nname = \"naive\"\nkind = \"memory_assigner\"\nlibrary = \"" GE_MEMORY_NAIVE_PLUGIN "\"\n\n"
      << "[[plugin]]\nname = \"greedy_by_size\"\nkind = \"memory_assigner\"\nlibrary = "
         "\"" GE_MEMORY_GREEDY_BY_SIZE_PLUGIN "\"\n\n"
      << "[[plugin]]\nname = \"hill_climb\"\nkind = \"memory_assigner\"\nlibrary = \"" GE_MEMORY_HILL_CLIMB_PLUGIN
         "\"\n"
      << "[plugin.options]\n"
      << hill_climb_options;
  return path;
}

TEST(AssignerPluginsTest, LoadAndPlanThroughThePluginHost) {
  PluginHost host;
  Status loaded = host.load_registry(write_registry("ok", "seed = 3\nmax_iterations = 100\n"));
  ASSERT_TRUE(loaded.is_ok()) << loaded.to_string();
  std::vector<std::string> names;
  for (const auto& a : host.memory_assigners()) names.push_back(a->name());
  EXPECT_EQ(names, (std::vector<std::string>{"naive", "greedy_by_size", "hill_climb"}));

  auto graph = testing::parse_memory_dsl(
      "in x[128]; a=Conv(x)[256]; b=Conv(a)[128]; c=Conv(b)[384]; d=Conv(c,a)[128]; e=Conv(d)[512]; f=Conv(e,d)[128]; "
      "out f");
  Result<GraphMemoryPlan> plan = plan_memory(*graph, host.memory_assigners(), testing::toy_plan_options());
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->statistics.assigner, "greedy_by_size");  // first to reach the smallest (6 units)
  EXPECT_EQ(plan->feature_map_bytes, 6u * 512);
  ASSERT_EQ(plan->statistics.assigners.size(), 3u);
  EXPECT_EQ(plan->statistics.assigners[0].total_bytes, 11u * 512);
  EXPECT_EQ(plan->statistics.assigners[2].total_bytes, 6u * 512);
}

TEST(AssignerPluginsTest, BadHillClimbOptionIsAClearError) {
  PluginHost host;
  Status loaded = host.load_registry(write_registry("bad", "max_iterations = -1\n"));
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_THAT(loaded.to_string(), HasSubstr("hill_climb memory assigner: max_iterations"));
  EXPECT_EQ(host.memory_assigners().size(), 2u);
}

}  // namespace
}  // namespace ge
