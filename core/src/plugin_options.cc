// The per-plugin options table (ge/plugin_options.h).
#include "ge/plugin_options.h"

namespace ge {

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
