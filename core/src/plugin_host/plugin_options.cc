// The per-plugin options table (ge/plugin_options.h).
#include "ge/plugin_options.h"

#include <algorithm>
#include <sstream>
#include <string_view>
#include <type_traits>
#include <variant>

namespace ge {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

Status PluginOptions::check_known_keys(const std::string& owner, const std::vector<std::string>& known) const {
  for (const auto& [key, value] : values_) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string closest;
    size_t best = 3;  // suggest only a near miss: two edits at most
    std::string list;
    for (const std::string& name : known) {
      list += (list.empty() ? "" : ", ") + name;
      if (const size_t distance = edit_distance(key, name); distance < best) {
        best = distance;
        closest = name;
      }
    }
    return invalid_argument(owner + ": unknown option '" + key + "' in [plugin.options]" +
                            (closest.empty() ? std::string() : "; did you mean '" + closest + "'?") +
                            " (known options: " + (list.empty() ? std::string("none") : list) + ")");
  }
  return Status::ok();
}

Status PluginOptions::check_known_options(const std::string& owner, const std::vector<Known>& known) const {
  std::vector<std::string> keys;
  for (const Known& option : known) keys.push_back(option.key);
  GE_RETURN_IF_ERROR(check_known_keys(owner, keys));
  static const char* const kTypeNames[] = {"a bool", "an integer", "a number", "a string", "a list of strings"};
  for (const Known& option : known) {
    const auto found = values_.find(option.key);
    if (found == values_.end()) continue;
    const size_t given = found->second.index();
    const size_t expected = static_cast<size_t>(option.type);
    if (given == expected || (option.type == Type::kNumber && std::holds_alternative<int64_t>(found->second))) continue;
    const std::string text = std::visit(
        [](const auto& value) -> std::string {
          using V = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<V, bool>) {
            return value ? "true" : "false";
          } else if constexpr (std::is_same_v<V, std::string>) {
            return "\"" + value + "\"";
          } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
            return "a list";
          } else {
            std::ostringstream text;  // 2.5, not std::to_string's 2.500000
            text << value;
            return text.str();
          }
        },
        found->second);
    return invalid_argument(owner + ": option " + option.key + " must be " + kTypeNames[expected] + ", got " + text);
  }
  return Status::ok();
}

bool PluginOptions::get_bool(const std::string& key, bool fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (const bool* v = std::get_if<bool>(&it->second)) return *v;
  return fallback;
}

int64_t PluginOptions::get_int(const std::string& key, int64_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (const int64_t* v = std::get_if<int64_t>(&it->second)) return *v;
  return fallback;
}

double PluginOptions::get_double(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (const double* v = std::get_if<double>(&it->second)) return *v;
  if (const int64_t* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  return fallback;
}

std::string PluginOptions::get_string(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (const std::string* v = std::get_if<std::string>(&it->second)) return *v;
  return fallback;
}

std::vector<std::string> PluginOptions::get_strings(const std::string& key,
                                                   const std::vector<std::string>& fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (const auto* v = std::get_if<std::vector<std::string>>(&it->second)) return *v;
  return fallback;
}

}  // namespace ge
