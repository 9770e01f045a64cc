#pragma once
/// The one `ge` logger, shared by the core and every plugin.

#include <spdlog/spdlog.h>

#include <string_view>

namespace ge {

/// The process-wide "ge" logger. Its level starts from GE_LOG_LEVEL (trace, debug, info,
/// warn, error, off; default warn). Thread-safe.
spdlog::logger& logger();

/// Sets the level by name; returns false (level unchanged) for an unknown name.
bool set_log_level(std::string_view level_name);

/// Raises verbosity by `count` steps from the current level (-v: info, -vv: debug, ...).
void increase_verbosity(int count);

}  // namespace ge

#define GE_LOG_TRACE(...) ::ge::logger().trace(__VA_ARGS__)
#define GE_LOG_DEBUG(...) ::ge::logger().debug(__VA_ARGS__)
#define GE_LOG_INFO(...) ::ge::logger().info(__VA_ARGS__)
#define GE_LOG_WARN(...) ::ge::logger().warn(__VA_ARGS__)
#define GE_LOG_ERROR(...) ::ge::logger().error(__VA_ARGS__)
