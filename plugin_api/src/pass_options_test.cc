// Tests of pass options (ge/plugin_api/pass_options.h).
#include "ge/plugin_api/pass_options.h"

#include <gtest/gtest.h>

namespace ge {
namespace {

PassInfo defaults() {
  PassInfo info;
  info.name = "fuse_thing";
  info.min_opt_level = 2;
  info.phase = PassPhase::kFuse;
  info.run_after = {"fuse_softmax"};
  info.run_before = {"autofusion"};
  return info;
}

TEST(PassOptions, NoOptionsKeepTheDeclaredPlace) {
  Result<PassInfo> info = apply_pass_options(defaults(), PluginOptions());
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->min_opt_level, 2);
  EXPECT_EQ(info->phase, PassPhase::kFuse);
  EXPECT_EQ(info->run_after, std::vector<std::string>{"fuse_softmax"});
  EXPECT_EQ(info->run_before, std::vector<std::string>{"autofusion"});
}

TEST(PassOptions, OptionsMoveThePassAndReplaceItsConstraints) {
  PluginOptions options;
  options.set("min_opt_level", int64_t{3});
  options.set("phase", std::string("cleanup"));
  options.set("after", std::vector<std::string>{"dce", "other"});
  options.set("before", std::vector<std::string>{});
  Result<PassInfo> info = apply_pass_options(defaults(), options);
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->min_opt_level, 3);
  EXPECT_EQ(info->phase, PassPhase::kCleanup);
  EXPECT_EQ(info->run_after, (std::vector<std::string>{"dce", "other"}));
  EXPECT_TRUE(info->run_before.empty());
}

TEST(PassOptions, APrefixSelectsOnePassOfAPlugin) {
  PluginOptions options;
  options.set("fuse_thing.phase", std::string("fold"));
  options.set("phase", std::string("layout"));  // not this pass's key
  Result<PassInfo> info = apply_pass_options(defaults(), options, "fuse_thing.");
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->phase, PassPhase::kFold);
}

TEST(PassOptions, BadValuesAreErrorsNamingTheOption) {
  auto message = [](const std::string& key, PluginOptions::Value value, const std::string& prefix = "") {
    PluginOptions options;
    options.set(key, std::move(value));
    Result<PassInfo> info = apply_pass_options(defaults(), options, prefix);
    EXPECT_FALSE(info.is_ok()) << key;
    return info.is_ok() ? std::string() : info.status().message();
  };
  EXPECT_EQ(message("phase", std::string("fusion")),
            "pass 'fuse_thing': option 'phase' = \"fusion\" is not a phase (expected canonicalize, fold, fuse, cleanup "
            "or layout)");
  EXPECT_EQ(message("fuse_thing.phase", std::string("late"), "fuse_thing."),
            "pass 'fuse_thing': option 'fuse_thing.phase' = \"late\" is not a phase (expected canonicalize, fold, "
            "fuse, cleanup or layout)");
  EXPECT_EQ(message("phase", int64_t{3}),
            "pass 'fuse_thing': option 'phase' must be a string, one of canonicalize, fold, fuse, cleanup or layout");
  EXPECT_EQ(message("after", std::string("dce")), "pass 'fuse_thing': option 'after' must be an array of pass names");
  EXPECT_EQ(message("before", true), "pass 'fuse_thing': option 'before' must be an array of pass names");
  EXPECT_EQ(message("min_opt_level", std::string("2")),
            "pass 'fuse_thing': option 'min_opt_level' must be an integer from 0 to 4");
  EXPECT_EQ(message("min_opt_level", int64_t{9}),
            "pass 'fuse_thing': option 'min_opt_level' = 9 must be an integer from 0 to 4 (4: never in an -O "
            "pipeline)");
  EXPECT_EQ(message("order", int64_t{445}),
            "pass 'fuse_thing': option 'order' is no longer read: set 'phase' (canonicalize, fold, fuse, cleanup or "
            "layout) and, inside a phase, 'after' / 'before' (arrays of pass names)");
}

// Issue 36 item 17: a misspelt key in a built-in pass's [plugin.options] was ignored.
TEST(PassOptions, AnUnknownKeyIsAnErrorNamingItAndThePass) {
  PluginOptions options;
  options.set("min_opt_level", int64_t{2});
  EXPECT_TRUE(options.check_known_keys("pass 'dce'", pass_option_keys()).is_ok());
  options.set("mni_opt_level", int64_t{3});
  Status status = options.check_known_keys("pass 'dce'", pass_option_keys());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "pass 'dce': unknown option 'mni_opt_level' in [plugin.options]; did you mean 'min_opt_level'? (known "
            "options: min_opt_level, phase, after, before)");
  PluginOptions far;
  far.set("colour", std::string("red"));
  EXPECT_EQ(far.check_known_keys("pass 'cse'", pass_option_keys("cse.")).message(),
            "pass 'cse': unknown option 'colour' in [plugin.options] (known options: cse.min_opt_level, cse.phase, "
            "cse.after, cse.before)");
  EXPECT_EQ(far.check_known_keys("plugin 'x'", {}).message(),
            "plugin 'x': unknown option 'colour' in [plugin.options] (known options: none)");
}

TEST(PluginOptionsTypes, AValueOfTheWrongTypeIsAnErrorNamingTheOptionAndTheType) {
  using Type = PluginOptions::Type;
  const std::vector<PluginOptions::Known> known = {
      {"on", Type::kBool}, {"n", Type::kInt}, {"ratio", Type::kNumber}, {"mode", Type::kString}, {"list", Type::kStrings}};
  PluginOptions good;
  good.set("on", true);
  good.set("n", int64_t{3});
  good.set("ratio", int64_t{2});  // an integer is a number too
  good.set("mode", std::string("fast"));
  good.set("list", std::vector<std::string>{"a"});
  EXPECT_TRUE(good.check_known_options("plugin 'p'", known).is_ok());
  auto message = [&](const std::string& key, PluginOptions::Value value) {
    PluginOptions options;
    options.set(key, std::move(value));
    return options.check_known_options("plugin 'p'", known).message();
  };
  EXPECT_EQ(message("on", std::string("maybe")), "plugin 'p': option on must be a bool, got \"maybe\"");
  EXPECT_EQ(message("n", 2.5), "plugin 'p': option n must be an integer, got 2.5");
  EXPECT_EQ(message("ratio", false), "plugin 'p': option ratio must be a number, got false");
  EXPECT_EQ(message("mode", int64_t{1}), "plugin 'p': option mode must be a string, got 1");
  EXPECT_EQ(message("list", std::string("a")), "plugin 'p': option list must be a list of strings, got \"a\"");
  // Unknown keys first, as check_known_keys words them.
  EXPECT_EQ(message("onn", true),
            "plugin 'p': unknown option 'onn' in [plugin.options]; did you mean 'on'? (known options: on, n, ratio, "
            "mode, list)");
}

}  // namespace
}  // namespace ge
