#include "option_values.h"

#include <charconv>
#include <cmath>
#include <optional>
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

}  // namespace ge::tools
