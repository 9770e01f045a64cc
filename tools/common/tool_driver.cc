#include "tool_driver.h"

#include <iostream>
#include <system_error>

#include "ge/logging.h"

namespace ge::tools {

namespace fs = std::filesystem;

fs::path executable_dir(const char* argv0) {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) self = fs::absolute(argv0, error);
  return self.parent_path();
}

fs::path default_registry(const char* argv0) { return executable_dir(argv0) / "ge_plugins.toml"; }

Status load_plugins(PluginHost& host, const SessionFlags& flags, const fs::path& default_registry) {
  const std::vector<fs::path> registries = PluginHost::discover(flags.plugin_files, default_registry);
  if (registries.empty()) {
    return not_found("no plugin registry found: none given with --plugins, GE_PLUGINS is unset or empty, and '" +
                     default_registry.string() + "' does not exist");
  }
  for (const PluginSetting& setting : flags.plugin_settings) host.set_plugin_option(setting.plugin, setting.key, setting.value);
  for (const fs::path& registry : registries) {
    // Every failure is kept in host.failures(); go on to report each one.
    const Status status = host.load_registry(registry);
    if (!status.is_ok()) GE_LOG_DEBUG("registry '{}': {}", registry.string(), status.to_string());
  }
  return host.check_plugin_options_applied();
}

int fail(std::string_view tool, const Status& status) {
  std::cerr << tool << ": error (" << status_code_name(status.code()) << "): " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? kExitInternalError : kExitUserError;
}

}  // namespace ge::tools
