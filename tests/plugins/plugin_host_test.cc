// Every plugin-host failure has its own precise message, a failing Status, and no crash.
#include "ge/plugin_host.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ge/plugin_api/plugin.h"

namespace ge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kPluginDir = GE_TEST_PLUGIN_DIR;

class PluginHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ge_plugin_host_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_registry(const std::string& text) {
    fs::path path = dir_ / "registry.toml";
    std::ofstream(path) << text;
    return path;
  }
  static std::string entry(const std::string& name, const std::string& kind, const std::string& library,
                           const std::string& extra = "") {
    return "[[plugin]]\nname = \"" + name + "\"\nkind = \"" + kind + "\"\nlibrary = \"" + library + "\"\n" + extra + "\n";
  }
  static std::string lib(const std::string& target) { return (kPluginDir / ("lib" + target + ".so")).string(); }

  fs::path dir_;
};

TEST_F(PluginHostTest, LoadsAGoodPluginAndItsOptions) {
  PluginHost host;
  fs::path registry = write_registry(entry("test_good", "pass", lib("ge_test_good_plugin"),
                                           "[plugin.options]\npass_name = \"renamed\"\n"));
  Status status = host.load_registry(registry);
  ASSERT_TRUE(status.is_ok()) << status.to_string();
  ASSERT_EQ(host.records().size(), 1u);
  EXPECT_TRUE(host.records()[0].loaded);
  EXPECT_EQ(host.records()[0].plugin_version, "1.2.3");
  ASSERT_EQ(host.passes().size(), 1u);
  EXPECT_EQ(host.passes()[0].name, "renamed");
  std::string report = host.describe();
  EXPECT_THAT(report, HasSubstr(registry.string()));
  EXPECT_THAT(report, HasSubstr("registers pass renamed"));
  EXPECT_THAT(report, HasSubstr("libge_test_good_plugin.so"));
}

TEST_F(PluginHostTest, RelativeLibraryPathsResolveAgainstTheRegistryFolder) {
  fs::copy_file(lib("ge_test_good_plugin"), dir_ / "copy.so");
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("test_good", "pass", "copy.so")));
  ASSERT_TRUE(status.is_ok()) << status.to_string();
  EXPECT_EQ(host.records()[0].library, dir_ / "copy.so");
}

TEST_F(PluginHostTest, MissingLibraryFile) {
  PluginHost host;
  fs::path registry = write_registry("# comment\n" + entry("ghost", "pass", "no/such/libghost.so"));
  Status status = host.load_registry(registry);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("registry '" + registry.string() + "' line 2: plugin 'ghost'"));
  EXPECT_THAT(status.message(), HasSubstr("library file '" + (dir_ / "no/such/libghost.so").string() + "' does not exist"));
  EXPECT_THAT(host.describe(), HasSubstr("FAILED"));
}

TEST_F(PluginHostTest, UnresolvableDependencyShowsTheLoaderMessage) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("dep", "pass", lib("ge_test_missing_dependency_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("cannot load library"));
  // dlerror's text names the missing dependency.
  EXPECT_THAT(status.message(), HasSubstr("libge_test_missing_dependency.so"));
  EXPECT_THAT(status.message(), HasSubstr("cannot open shared object file"));
}

TEST_F(PluginHostTest, MissingEntrySymbol) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("noentry", "pass", lib("ge_test_no_entry_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("does not export the entry symbol 'ge_plugin_entry'"));
}

TEST_F(PluginHostTest, AbiVersionMismatchNamesGotAndExpected) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("future", "pass", lib("ge_test_abi_mismatch_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("ABI version mismatch"));
  EXPECT_THAT(status.message(), HasSubstr("got " + std::to_string(kPluginAbiVersion + 998) + ", expected " +
                                          std::to_string(kPluginAbiVersion)));
  EXPECT_TRUE(host.passes().empty());
}

TEST_F(PluginHostTest, PluginBuiltAgainstAnotherGEVersionIsRefused) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("old", "pass", lib("ge_test_foreign_version_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("was built against GE 0.99.0 but this is GE " GE_VERSION_STRING));
  EXPECT_TRUE(host.passes().empty());
}

TEST_F(PluginHostTest, PluginBuiltWithAnotherStandardLibraryIsRefused) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("libcxx", "pass", lib("ge_test_foreign_stdlib_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("was built with libc++ abi 1 (clang 17.0) but GE with " GE_STDLIB_ABI));
  EXPECT_TRUE(host.passes().empty());
}

TEST_F(PluginHostTest, DescriptorNameMustMatchTheRegistryEntry) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("good", "pass", lib("ge_test_good_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("registry '" + (dir_ / "registry.toml").string() +
                                          "' line 1: plugin 'good': library '" + lib("ge_test_good_plugin") +
                                          "' is the plugin 'test_good' (the name in its descriptor), not 'good': "
                                          "name the registry entry 'test_good'"));
  EXPECT_TRUE(host.passes().empty()) << "a misnamed plugin registers nothing";
  ASSERT_EQ(host.records().size(), 1u);
  EXPECT_FALSE(host.records()[0].loaded);
}

TEST_F(PluginHostTest, DuplicateComponentName) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("test_good", "pass", lib("ge_test_good_plugin")) +
                                                    entry("test_twin", "pass", lib("ge_test_twin_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("line 6: plugin 'test_twin'"));
  // Both sides of the clash: who registers it now, and who did first.
  EXPECT_THAT(status.message(), HasSubstr("duplicate component name: the pass test_noop is already registered by "
                                          "plugin 'test_good' (registry '" + (dir_ / "registry.toml").string() +
                                          "' line 1, library '" + lib("ge_test_good_plugin") + "')"));
  EXPECT_EQ(host.passes().size(), 1u) << "the first registration stays";
}

TEST_F(PluginHostTest, DuplicatePluginName) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("test_good", "pass", lib("ge_test_good_plugin")) +
                                                    entry("test_good", "pass", lib("ge_test_good_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("duplicate plugin name (the [[plugin]] entry at registry '" +
                                          (dir_ / "registry.toml").string() + "' line 1 is already called 'test_good')"));
}

TEST_F(PluginHostTest, UnknownKind) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("odd", "frobnicator", lib("ge_test_good_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kParseError);
  EXPECT_THAT(status.message(), HasSubstr("line 1: plugin 'odd' has unknown kind 'frobnicator'"));
}

TEST_F(PluginHostTest, ComponentOfAnUndeclaredKind) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("test_good", "backend", lib("ge_test_good_plugin"))));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("declared as kind 'backend' but registered a pass 'test_noop'"));
}

TEST_F(PluginHostTest, MalformedTomlGivesTheLine) {
  PluginHost host;
  fs::path registry = write_registry("[[plugin]]\nname = \"a\"\nkind = pass\n");
  Status status = host.load_registry(registry);
  EXPECT_EQ(status.code(), StatusCode::kParseError);
  EXPECT_THAT(status.message(), HasSubstr("registry '" + registry.string() + "' line 3"));
  EXPECT_THAT(status.message(), HasSubstr("malformed TOML"));
}

TEST_F(PluginHostTest, UnknownKeyAndWrongTypes) {
  {
    PluginHost host;
    Status status = host.load_registry(write_registry(entry("a", "pass", lib("ge_test_good_plugin"), "colour = \"red\"")));
    EXPECT_THAT(status.message(), HasSubstr("line 5: unknown key 'colour'"));
  }
  {
    PluginHost host;
    Status status = host.load_registry(write_registry(entry("a", "pass", lib("ge_test_good_plugin"), "enabled = \"yes\"")));
    EXPECT_THAT(status.message(), HasSubstr("'enabled' must be true or false"));
  }
  {
    PluginHost host;
    Status status = host.load_registry(write_registry("[[plugin]]\nkind = \"pass\"\nlibrary = \"x.so\"\n"));
    EXPECT_THAT(status.message(), HasSubstr("needs a non-empty string 'name'"));
  }
}

TEST_F(PluginHostTest, RegistrationThatReturnsAnError) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("test_good", "pass", lib("ge_test_good_plugin"),
                                                          "[plugin.options]\nfail_registration = true\n")));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("plugin 'test_good': registration failed: test plugin refuses to register"));
  EXPECT_TRUE(host.passes().empty());
}

TEST_F(PluginHostTest, RegistrationThatThrowsIsContained) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("test_good", "pass", lib("ge_test_good_plugin"),
                                                          "[plugin.options]\nthrow_in_registration = true\n")));
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), HasSubstr("threw an exception: test plugin throws"));
}

TEST_F(PluginHostTest, DisabledPluginsAreNotLoaded) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("off", "pass", "no/such/lib.so", "enabled = false")));
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  EXPECT_THAT(host.describe(), HasSubstr("disabled"));
}

TEST_F(PluginHostTest, MissingRegistryFile) {
  PluginHost host;
  Status status = host.load_registry(dir_ / "absent.toml");
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("absent.toml' does not exist"));
}

TEST_F(PluginHostTest, OneBadEntryDoesNotHideTheOthers) {
  PluginHost host;
  Status status = host.load_registry(write_registry(entry("ghost", "pass", "missing.so") +
                                                    entry("test_good", "pass", lib("ge_test_good_plugin"))));
  EXPECT_FALSE(status.is_ok());
  EXPECT_EQ(host.passes().size(), 1u);
  EXPECT_EQ(host.failures().size(), 1u);
}

TEST_F(PluginHostTest, DiscoveryOrderIsExplicitThenEnvThenDefault) {
  fs::path a = dir_ / "a.toml", b = dir_ / "b.toml", c = dir_ / "c.toml", d = dir_ / "default.toml";
  for (const auto& p : {a, b, c, d}) std::ofstream(p) << "";
  ::setenv("GE_PLUGINS", (b.string() + ":" + c.string()).c_str(), 1);
  std::vector<fs::path> found = PluginHost::discover({a}, d);
  ::unsetenv("GE_PLUGINS");
  EXPECT_EQ(found, (std::vector<fs::path>{a, b, c, d}));
  EXPECT_EQ(PluginHost::discover({}, dir_ / "none.toml"), std::vector<fs::path>{});
}

}  // namespace
}  // namespace ge

namespace ge {
namespace {

TEST(PluginHostPrecedence, EarlierRegistriesOverrideLaterOnesByName) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ge_plugin_precedence_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string lib = (fs::path(GE_TEST_PLUGIN_DIR) / "libge_test_good_plugin.so").string();
  std::ofstream(dir / "first.toml") << "[[plugin]]\nname = \"test_good\"\nkind = \"pass\"\nlibrary = \"" << lib
                                    << "\"\n[plugin.options]\npass_name = \"from_first\"\n";
  std::ofstream(dir / "second.toml") << "[[plugin]]\nname = \"test_good\"\nkind = \"pass\"\nlibrary = \"" << lib << "\"\n";
  PluginHost host;
  ASSERT_TRUE(host.load_registry(dir / "first.toml").is_ok());
  Status second = host.load_registry(dir / "second.toml");
  EXPECT_TRUE(second.is_ok()) << second.to_string();
  ASSERT_EQ(host.passes().size(), 1u);
  EXPECT_EQ(host.passes()[0].name, "from_first");
  EXPECT_THAT(host.describe(), ::testing::HasSubstr("overridden by the entry of the same name in " + (dir / "first.toml").string()));
  fs::remove_all(dir);
}

// A user's entry named like a built-in plugin of another kind (a pass called "cpu") must
// not silently drop the built-in backend: the later registry's entry fails, naming both.
TEST(PluginHostPrecedence, OverridingWithAnotherKindIsAnError) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ge_plugin_kind_override_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string lib = (fs::path(GE_TEST_PLUGIN_DIR) / "libge_test_good_plugin.so").string();
  std::ofstream(dir / "user.toml") << "[[plugin]]\nname = \"test_good\"\nkind = \"pass\"\nlibrary = \"" << lib << "\"\n";
  std::ofstream(dir / "builtin.toml") << "# built-in\n[[plugin]]\nname = \"test_good\"\nkind = \"backend\"\nlibrary = \""
                                      << lib << "\"\n";
  PluginHost host;
  ASSERT_TRUE(host.load_registry(dir / "user.toml").is_ok());
  Status status = host.load_registry(dir / "builtin.toml");
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("registry '" + (dir / "builtin.toml").string() +
                                                     "' line 2: plugin 'test_good' (a backend) is overridden by the pass "
                                                     "plugin of that name at registry '" +
                                                     (dir / "user.toml").string() + "' line 1"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ge
