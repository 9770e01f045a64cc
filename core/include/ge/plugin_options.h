#pragma once
/// The per-plugin options table from the registry's `[plugin.options]`.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ge/status.h"

namespace ge {

class PluginOptions {
 public:
  /// A TOML bool, integer, float, string, or array of strings.
  using Value = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

  void set(const std::string& key, Value value) { values_[key] = std::move(value); }
  bool contains(const std::string& key) const { return values_.count(key) != 0; }
  const std::map<std::string, Value>& values() const { return values_; }

  /// Typed lookups: the fallback when absent or of another type (an int reads as double).
  bool get_bool(const std::string& key, bool fallback) const;
  int64_t get_int(const std::string& key, int64_t fallback) const;
  double get_double(const std::string& key, double fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  std::vector<std::string> get_strings(const std::string& key, const std::vector<std::string>& fallback) const;

  /// Ok when every key is one of `known`; else kInvalidArgument naming `owner` (e.g.
  /// "pass 'dce'"), the first unknown key, the closest known one and all of them, so a
  /// misspelt option is an error rather than silently ignored.
  Status check_known_keys(const std::string& owner, const std::vector<std::string>& known) const;

  /// The type an option's value must have: Value's alternatives, in order.
  enum class Type { kBool, kInt, kNumber, kString, kStrings };
  struct Known {
    std::string key;
    Type type;
  };
  /// check_known_keys over the keys of `known`, then each value given against its key's
  /// type (an integer is a number too): a wrong one is kInvalidArgument naming `owner`, the
  /// option, the type it must be and the value ("option winograd must be a bool, got
  /// "maybe""), where the typed lookups would take their fallback in silence.
  Status check_known_options(const std::string& owner, const std::vector<Known>& known) const;

 private:
  std::map<std::string, Value> values_;
};

/// One setting of a plugin's option from outside its registry entry (a tool's
/// --plugin-option PLUGIN.KEY=VALUE, Python's plugin_options): PluginHost::set_plugin_option's
/// arguments.
struct PluginSetting {
  std::string plugin;
  std::string key;
  PluginOptions::Value value;
};

}  // namespace ge
