// Reading a plugin registry's text into entries (plugin_registry.h).
#include "plugin_registry.h"

#include <toml++/toml.h>

namespace ge::detail {
namespace {

Result<PluginOptions> read_options(const toml::table& table, const std::filesystem::path& file) {
  PluginOptions options;
  for (const auto& [key, node] : table) {
    const std::string k(key.str());
    if (auto v = node.value_exact<bool>()) {
      options.set(k, *v);
    } else if (auto i = node.value_exact<int64_t>()) {
      options.set(k, *i);
    } else if (auto d = node.value_exact<double>()) {
      options.set(k, *d);
    } else if (auto s = node.value_exact<std::string>()) {
      options.set(k, *s);
    } else if (const toml::array* array = node.as_array();
               array != nullptr && (array->empty() || array->is_homogeneous<std::string>())) {
      std::vector<std::string> strings;
      for (const toml::node& item : *array) strings.push_back(*item.value_exact<std::string>());
      options.set(k, std::move(strings));
    } else {
      return parse_error(registry_where(file, static_cast<int>(node.source().begin.line)) + ": option '" + k +
                         "' must be a bool, integer, float, string or array of strings");
    }
  }
  return options;
}

/// One [[plugin]] table; `entry.failure` says what is wrong with it, if anything.
RegistryEntry read_entry(const toml::node& entry_node, const std::filesystem::path& registry_file) {
  RegistryEntry out;
  PluginRecord& record = out.record;
  const int line = static_cast<int>(entry_node.source().begin.line);
  record.registry_file = registry_file;
  record.registry_line = line;
  auto failed = [&](Status s) {
    record.status = s;
    out.failure = std::move(s);
    return out;
  };
  const toml::table* entry = entry_node.as_table();
  if (entry == nullptr) return failed(parse_error(registry_where(registry_file, line) + ": each 'plugin' entry must be a table"));
  for (const auto& [key, value] : *entry) {
    const std::string k(key.str());
    if (k != "name" && k != "kind" && k != "library" && k != "enabled" && k != "options") {
      return failed(parse_error(registry_where(registry_file, static_cast<int>(value.source().begin.line)) +
                                ": unknown key '" + k + "' in [[plugin]] (expected name, kind, library, enabled, options)"));
    }
  }
  auto name = (*entry)["name"].value_exact<std::string>();
  auto kind_name = (*entry)["kind"].value_exact<std::string>();
  auto library = (*entry)["library"].value_exact<std::string>();
  if (!name || name->empty()) {
    return failed(parse_error(registry_where(registry_file, line) + ": [[plugin]] needs a non-empty string 'name'"));
  }
  record.name = *name;
  const std::string who = registry_where(registry_file, line) + ": plugin '" + *name + "'";
  if (!kind_name) return failed(parse_error(who + " needs a string 'kind'"));
  std::optional<PluginKind> kind = parse_plugin_kind(*kind_name);
  if (!kind) {
    return failed(parse_error(who + " has unknown kind '" + *kind_name +
                              "' (expected parser, pass, memory_assigner, backend or op_library)"));
  }
  record.kind = *kind;
  if (!library || library->empty()) return failed(parse_error(who + " needs a string 'library'"));
  if ((*entry).contains("enabled") && !(*entry)["enabled"].is_boolean()) {
    return failed(parse_error(who + ": 'enabled' must be true or false"));
  }
  record.enabled = (*entry)["enabled"].value_or(true);
  if ((*entry).contains("options")) {
    const toml::table* table = (*entry)["options"].as_table();
    if (table == nullptr) return failed(parse_error(who + ": 'options' must be a table"));
    Result<PluginOptions> parsed = read_options(*table, registry_file);
    if (!parsed) return failed(parsed.status());
    out.options = std::move(parsed).value();
  }
  std::filesystem::path path(*library);
  if (path.is_relative()) path = registry_file.parent_path() / path;
  record.library = path.lexically_normal();
  return out;
}

}  // namespace

std::string registry_where(const std::filesystem::path& file, int line) {
  return "registry '" + file.string() + "' line " + std::to_string(line);
}

std::optional<PluginKind> parse_plugin_kind(std::string_view name) {
  for (PluginKind kind : {PluginKind::kParser, PluginKind::kPass, PluginKind::kMemoryAssigner, PluginKind::kBackend,
                          PluginKind::kOpLibrary}) {
    if (name == plugin_kind_name(kind)) return kind;
  }
  return std::nullopt;
}

RegistryText parse_registry(std::string_view text, const std::filesystem::path& registry_file) {
  RegistryText out;
  toml::table root;
  try {
    root = toml::parse(text, registry_file.string());
  } catch (const toml::parse_error& error) {
    out.failures.push_back(parse_error(registry_where(registry_file, static_cast<int>(error.source().begin.line)) +
                                       ", column " + std::to_string(error.source().begin.column) +
                                       ": malformed TOML: " + std::string(error.description())));
    return out;
  } catch (const std::exception& error) {  // toml++ reports its limits (nesting depth, ...) so too
    out.failures.push_back(parse_error(registry_where(registry_file, 1) + ": malformed TOML: " + error.what()));
    return out;
  }
  for (const auto& [key, node] : root) {
    if (key.str() != "plugin") {
      out.failures.push_back(parse_error(registry_where(registry_file, static_cast<int>(node.source().begin.line)) +
                                         ": unknown top-level key '" + std::string(key.str()) +
                                         "' (expected [[plugin]] tables)"));
    }
  }
  const toml::array* entries = root["plugin"].as_array();
  if (root.contains("plugin") && entries == nullptr) {
    out.failures.push_back(parse_error(registry_where(registry_file,
                                                      static_cast<int>(root["plugin"].node()->source().begin.line)) +
                                       ": 'plugin' must be an array of tables ([[plugin]])"));
    return out;
  }
  if (entries == nullptr) return out;
  for (const toml::node& entry : *entries) out.entries.push_back(read_entry(entry, registry_file));
  return out;
}

}  // namespace ge::detail
