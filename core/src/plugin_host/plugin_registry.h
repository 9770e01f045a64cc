#pragma once
/// Reading a plugin registry file's text (TOML, `[[plugin]]` tables) into entries, with
/// no file access and no loading: what PluginHost::load_registry acts on, and what the
/// registry fuzz target (tests/fuzz/registry_fuzzer.cc) exercises.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/plugin_host.h"
#include "ge/plugin_options.h"
#include "ge/status.h"

namespace ge::detail {

struct RegistryEntry {
  /// name, kind, library (resolved against the registry's folder), enabled, the file and
  /// line of the entry; status is `failure`.
  PluginRecord record;
  PluginOptions options;
  Status failure;  ///< set: the entry is malformed, and says how
};

struct RegistryText {
  std::vector<RegistryEntry> entries;
  /// The file's own faults: malformed TOML (then no entries), unknown top-level keys,
  /// 'plugin' that is not an array of tables.
  std::vector<Status> failures;
};

/// Parses `text`, the contents of `registry_file`. Never throws.
RegistryText parse_registry(std::string_view text, const std::filesystem::path& registry_file);

/// "registry 'FILE' line N": how messages name a place in a registry.
std::string registry_where(const std::filesystem::path& file, int line);

std::optional<PluginKind> parse_plugin_kind(std::string_view name);

}  // namespace ge::detail
