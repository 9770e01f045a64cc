#include "option_values.h"

#include <gtest/gtest.h>

namespace ge::tools {
namespace {

TEST(OptionValues, IntegersWithinTheirRange) {
  EXPECT_EQ(*parse_int_value("--streams", "64", 1, 64), 64);
  EXPECT_EQ(parse_int_value("--streams", "65", 1, 64).status().message(),
            "--streams expects an integer in [1, 64], got '65'");
  EXPECT_FALSE(parse_int_value("-O", "", 0, 3).is_ok());
  EXPECT_FALSE(parse_int_value("-O", "2x", 0, 3).is_ok());
  EXPECT_FALSE(parse_int_value("--threads", "99999999999", 1, 1024).is_ok());
}

TEST(OptionValues, NonNegativeFiniteNumbers) {
  EXPECT_DOUBLE_EQ(*parse_non_negative("--rtol", "1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(*parse_non_negative("--rtol", "0"), 0.0);
  for (const char* bad : {"-1", "inf", "nan", "", "1e-3x"}) {
    EXPECT_EQ(parse_non_negative("--rtol", bad).status().message(),
              std::string("--rtol expects a finite number >= 0, got '") + bad + "'");
  }
}

TEST(OptionValues, PassListsAndPrecisions) {
  EXPECT_EQ(*parse_pass_list("--passes", "cse,dce"), (std::vector<std::string>{"cse", "dce"}));
  EXPECT_TRUE(parse_pass_list("--passes", "")->empty());
  EXPECT_EQ(parse_pass_list("--passes", "cse,,dce").status().message(),
            "--passes 'cse,,dce': empty pass name in the list");
  EXPECT_EQ(*parse_precision_value("--precision", "bf16"), Precision::kBf16);
  EXPECT_EQ(parse_precision_value("--precision", "fp16").status().message(),
            "--precision expects fp32, bf16 or mixed, got 'fp16'");
}

TEST(OptionValues, PluginSettingsReadAsARegistryLineWould) {
  auto value_of = [](const std::string& text) { return parse_plugin_setting("--plugin-option", text)->value; };
  Result<PluginSetting> setting = parse_plugin_setting("--plugin-option", "cpu.winograd=false");
  ASSERT_TRUE(setting.is_ok()) << setting.status().to_string();
  EXPECT_EQ(setting->plugin, "cpu");
  EXPECT_EQ(setting->key, "winograd");
  EXPECT_EQ(setting->value, PluginOptions::Value(false));
  EXPECT_EQ(value_of("cpu.threads=4"), PluginOptions::Value(int64_t{4}));
  EXPECT_EQ(value_of("cpu.threads=-2"), PluginOptions::Value(int64_t{-2}));
  EXPECT_EQ(value_of("p.ratio=0.5"), PluginOptions::Value(0.5));
  EXPECT_EQ(value_of("cpu.int8=f32"), PluginOptions::Value(std::string("f32")));
  EXPECT_EQ(value_of("cpu.int8=\"f32\""), PluginOptions::Value(std::string("f32")));
  EXPECT_EQ(value_of("cpu.int8=\"true\""), PluginOptions::Value(std::string("true")));
  EXPECT_EQ(value_of("cpu.mode="), PluginOptions::Value(std::string()));
  EXPECT_EQ(value_of("cpu.kernel_providers=[dnnl, \"reference\"]"),
            PluginOptions::Value(std::vector<std::string>{"dnnl", "reference"}));
  EXPECT_EQ(value_of("cpu.kernel_providers=[]"), PluginOptions::Value(std::vector<std::string>{}));
  // The key may hold dots after the plugin's name; the value may hold '='.
  setting = parse_plugin_setting("--plugin-option", "my.pass.key=a=b");
  ASSERT_TRUE(setting.is_ok());
  EXPECT_EQ(setting->plugin, "my");
  EXPECT_EQ(setting->key, "pass.key");
  EXPECT_EQ(setting->value, PluginOptions::Value(std::string("a=b")));
  for (const char* bad : {"cpu", "cpu.winograd", "winograd=false", ".winograd=false", "cpu.=false", "cpu=x.y"}) {
    EXPECT_EQ(parse_plugin_setting("--plugin-option", bad).status().message(),
              std::string("--plugin-option expects PLUGIN.KEY=VALUE (e.g. cpu.winograd=false), got '") + bad + "'");
  }
  EXPECT_EQ(parse_plugin_setting("--plugin-option", "cpu.kernel_providers=[dnnl,,reference]").status().message(),
            "--plugin-option 'cpu.kernel_providers=[dnnl,,reference]': an empty item in the list");
}

}  // namespace
}  // namespace ge::tools
