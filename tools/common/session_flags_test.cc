#include "session_flags.h"

#include <gtest/gtest.h>

#include <set>

namespace ge::tools {
namespace {

/// Parses `args` with the shared options of `groups`; the others are left to `rest`.
Result<SessionFlags> parse(const std::vector<std::string>& args, uint32_t groups,
                           std::vector<std::string>* rest = nullptr) {
  SessionFlags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    GE_ASSIGN_OR_RETURN(bool taken, take_shared_option(args, i, groups, flags));
    if (!taken && rest != nullptr) rest->push_back(args[i]);
  }
  return flags;
}

constexpr uint32_t kAll = kPluginFlags | kPassFlags | kDumpFlags | kCompileFlags;

TEST(SessionFlags, EachOptionLandsInItsSessionOption) {
  Result<SessionFlags> flags =
      parse({"--backend", "npu_sim", "-O3", "--passes=cse,dce", "--disable-pass", "fusion", "--threads", "4",
             "--memory-limit", "2G", "--memory-assigner", "naive", "--streams=2", "--stream-memory-ratio", "0",
             "--precision", "bf16", "--plugins", "a.toml", "-vv", "--verify-each", "--check-passes", "--check-rtol",
             "1e-3", "--plugin-option", "cpu.winograd=false", "--plugin-option=cpu.int8=off"},
            kAll);
  ASSERT_TRUE(flags.is_ok()) << flags.status().to_string();
  const SessionOptions options = flags->session_options();
  EXPECT_EQ(options.backend, "npu_sim");
  EXPECT_TRUE(flags->backend_given);
  EXPECT_EQ(options.passes.opt_level, 3);
  EXPECT_EQ(options.passes.explicit_passes, (std::vector<std::string>{"cse", "dce"}));
  EXPECT_EQ(options.passes.disabled_passes, (std::set<std::string>{"fusion"}));
  EXPECT_TRUE(options.passes.verify_each);
  EXPECT_TRUE(options.passes.check_passes);
  EXPECT_DOUBLE_EQ(options.passes.check_rtol, 1e-3);
  EXPECT_EQ(options.threads, 4);
  EXPECT_EQ(options.memory_limit, size_t{2} << 30);
  EXPECT_EQ(options.memory_assigners, (std::vector<std::string>{"naive"}));
  EXPECT_EQ(options.max_streams, 2);
  EXPECT_DOUBLE_EQ(options.stream_memory_ratio, 0.0);
  EXPECT_EQ(options.precision, Precision::kBf16);
  EXPECT_EQ(flags->plugin_files.size(), 1u);
  ASSERT_EQ(flags->plugin_settings.size(), 2u);
  EXPECT_EQ(flags->plugin_settings[0].key, "winograd");
  EXPECT_EQ(flags->plugin_settings[1].value, PluginOptions::Value(std::string("off")));
  EXPECT_EQ(flags->verbosity, 2);
  EXPECT_TRUE(flags->was_given("-O"));
  EXPECT_FALSE(flags->was_given("--dump-graph"));
}

TEST(SessionFlags, AToolTakesOnlyTheGroupsItAccepts) {
  std::vector<std::string> rest;
  Result<SessionFlags> flags = parse({"-O1", "--threads", "2", "--output", "x"}, kPluginFlags | kPassFlags, &rest);
  ASSERT_TRUE(flags.is_ok()) << flags.status().to_string();
  EXPECT_EQ(flags->passes.opt_level, 1);
  EXPECT_EQ(flags->threads, 0);
  // --threads is not among the groups: it and its value are the tool's (here, unknown).
  EXPECT_EQ(rest, (std::vector<std::string>{"--threads", "2", "--output", "x"}));
}

TEST(SessionFlags, BadValuesNameTheOption) {
  EXPECT_EQ(parse({"--streams", "65"}, kAll).status().message(), "--streams expects an integer in [1, 64], got '65'");
  EXPECT_EQ(parse({"--backend"}, kAll).status().message(), "option --backend expects a value");
  EXPECT_EQ(parse({"--backend", "--threads"}, kAll).status().message(),
            "option --backend expects a value, got option '--threads'");
  EXPECT_EQ(parse({"--verify-each=1"}, kAll).status().message(), "option --verify-each takes no value, got '--verify-each=1'");
  EXPECT_FALSE(parse({"-O9"}, kAll).is_ok());
  EXPECT_FALSE(parse({"--precision", "fp8"}, kAll).is_ok());
  EXPECT_FALSE(parse({"--memory-limit", "lots"}, kAll).is_ok());
}

TEST(SessionFlags, EveryOptionHasOneEntryAndAHelpLine) {
  std::set<std::string_view> names;
  for (const SharedOption& option : shared_options()) {
    EXPECT_TRUE(names.insert(option.name).second) << option.name << " twice";
    EXPECT_FALSE(option.help.empty()) << option.name;
    EXPECT_NE(shared_options_help(option.group).find(std::string(option.name)), std::string::npos) << option.name;
  }
}

}  // namespace
}  // namespace ge::tools
