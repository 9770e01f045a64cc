// The per-plugin options table (ge/plugin_options.h).
#include "ge/plugin_options.h"

#include <algorithm>
#include <string_view>

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
