#include "option_values.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>

namespace ge::tools {

Result<int> parse_int_value(const std::string& option, const std::string& text, int min, int max) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return invalid_argument(option + " expects an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                            "], got '" + text + "'");
  }
  return value;
}

Result<double> parse_non_negative(const std::string& option, const std::string& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0) {
    return invalid_argument(option + " expects a finite number >= 0, got '" + text + "'");
  }
  return value;
}

Result<std::vector<std::string>> parse_pass_list(const std::string& option, const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) return names;  // an explicitly empty pipeline
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty()) return invalid_argument(option + " '" + text + "': empty pass name in the list");
    names.push_back(std::move(name));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

Result<Precision> parse_precision_value(const std::string& option, const std::string& text) {
  const std::optional<Precision> precision = parse_precision(text);
  if (!precision) return invalid_argument(option + " expects fp32, bf16 or mixed, got '" + text + "'");
  return *precision;
}

namespace {

std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string unquoted(std::string_view text) {
  text = trimmed(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    text = text.substr(1, text.size() - 2);
  }
  return std::string(text);
}

}  // namespace

Result<PluginSetting> parse_plugin_setting(const std::string& option, const std::string& text) {
  const size_t dot = text.find('.');
  const size_t eq = text.find('=');
  if (dot == std::string::npos || eq == std::string::npos || dot == 0 || eq < dot + 2) {
    return invalid_argument(option + " expects PLUGIN.KEY=VALUE (e.g. cpu.winograd=false), got '" + text + "'");
  }
  PluginSetting setting{text.substr(0, dot), text.substr(dot + 1, eq - dot - 1), false};
  const std::string_view value = trimmed(std::string_view(text).substr(eq + 1));
  int64_t integer = 0;
  double number = 0;
  if (value == "true" || value == "false") {
    setting.value = value == "true";
  } else if (auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), integer);
             !value.empty() && ec == std::errc() && end == value.data() + value.size()) {
    setting.value = integer;
  } else if (auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
             !value.empty() && ec == std::errc() && end == value.data() + value.size()) {
    setting.value = number;
  } else if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
    std::vector<std::string> items;
    const std::string_view inner = trimmed(value.substr(1, value.size() - 2));
    for (size_t start = 0; !inner.empty();) {
      const size_t comma = inner.find(',', start);
      std::string item = unquoted(inner.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (item.empty()) return invalid_argument(option + " '" + text + "': an empty item in the list");
      items.push_back(std::move(item));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    setting.value = std::move(items);
  } else {
    setting.value = unquoted(value);
  }
  return setting;
}

}  // namespace ge::tools
