// The one `ge` logger (ge/logging.h).
#include "ge/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>
#include <optional>

namespace ge {
namespace {

std::optional<spdlog::level::level_enum> parse_level(std::string_view name) {
  if (name == "trace") return spdlog::level::trace;
  if (name == "debug") return spdlog::level::debug;
  if (name == "info") return spdlog::level::info;
  if (name == "warn" || name == "warning") return spdlog::level::warn;
  if (name == "error") return spdlog::level::err;
  if (name == "critical") return spdlog::level::critical;
  if (name == "off") return spdlog::level::off;
  return std::nullopt;
}

std::shared_ptr<spdlog::logger> make_logger() {
  // Logs go to stderr so that tool output on stdout stays machine-readable.
  auto logger = spdlog::stderr_color_mt("ge");
  logger->set_pattern("[%H:%M:%S.%e] [ge] [%^%l%$] %v");
  logger->set_level(spdlog::level::warn);
  if (const char* env = std::getenv("GE_LOG_LEVEL")) {
    if (auto level = parse_level(env)) {
      logger->set_level(*level);
    } else {
      logger->warn("GE_LOG_LEVEL='{}' is not one of trace, debug, info, warn, error, off; using warn", env);
    }
  }
  return logger;
}

}  // namespace

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> instance = make_logger();
  return *instance;
}

bool set_log_level(std::string_view level_name) {
  auto level = parse_level(level_name);
  if (!level) return false;
  logger().set_level(*level);
  return true;
}

void increase_verbosity(int count) {
  int level = static_cast<int>(logger().level());
  level = std::max(static_cast<int>(spdlog::level::trace), level - count);
  logger().set_level(static_cast<spdlog::level::level_enum>(level));
}

}  // namespace ge
