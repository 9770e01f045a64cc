// A Session's memory limit (ge/memory_limit.h): stating, parsing and checking it.
#include "ge/memory_limit.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ge {

size_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

std::string format_bytes(size_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
  return buffer;
}

Result<size_t> parse_byte_size(std::string_view text) {
  auto bad = [&text]() {
    return invalid_argument("'" + std::string(text) +
                            "' is not a byte count: give a positive number with an optional suffix K, M, G or T "
                            "(powers of 1024), such as 4G or 512M");
  };
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  const std::string number(text.substr(0, end));
  std::string suffix(text.substr(end));
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (number.empty() || number.find('.') != number.rfind('.') || number == ".") return bad();
  double scale = 1;
  if (!suffix.empty()) {
    static const std::string_view kSuffixes = "KMGT";
    const size_t power = kSuffixes.find(suffix[0]);
    if (suffix[0] == 'B' && suffix.size() == 1) {
      scale = 1;
    } else if (power == std::string_view::npos || !(suffix.size() == 1 || suffix.substr(1) == "B" || suffix.substr(1) == "IB")) {
      return bad();
    } else {
      scale = std::ldexp(1.0, 10 * static_cast<int>(power + 1));
    }
  }
  if (scale == 1 && number.find('.') != std::string::npos) return bad();  // no fractional bytes
  const double value = std::stod(number) * scale;
  if (!(value >= 1) || value >= static_cast<double>(std::numeric_limits<int64_t>::max())) return bad();
  return static_cast<size_t>(value);
}

Status check_memory_limit(const std::string& what, size_t bytes, size_t limit, size_t in_use) {
  if (limit == 0) return Status::ok();
  const size_t left = in_use < limit ? limit - in_use : 0;
  if (bytes <= left) return Status::ok();
  std::string message = what + " needs " + format_bytes(bytes) + "; limit " + format_bytes(limit);
  if (in_use > 0) message += ", " + format_bytes(in_use) + " already in use";
  return invalid_argument(message + " (raise it with --memory-limit or SessionOptions::memory_limit)");
}

}  // namespace ge
