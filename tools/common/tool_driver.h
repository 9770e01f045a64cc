#pragma once
/// What every GE command-line tool (ge-run, ge-compile, ge-opt) does the same way: find
/// its default plugin registry beside its executable, load the registries, and turn a
/// Status into a message on stderr and an exit code.

#include <filesystem>
#include <string_view>
#include <vector>

#include "ge/plugin_host.h"
#include "ge/status.h"
#include "session_flags.h"

namespace ge::tools {

/// The tools' exit codes: success, a user error (bad model, option, input), a bug.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitInternalError = 2;

/// The folder holding the running executable (through /proc/self/exe, else `argv0`).
std::filesystem::path executable_dir(const char* argv0);

/// The registry a tool reads when none is given: ge_plugins.toml beside the executable.
std::filesystem::path default_registry(const char* argv0);

/// Loads every registry PluginHost::discover finds for `flags.plugin_files` (--plugins),
/// GE_PLUGINS and `default_registry`, each plugin with `flags.plugin_settings`
/// (--plugin-option) over its registry options. A missing registry is kNotFound naming the
/// three places; a setting for a plugin no registry defines is kNotFound naming it and
/// the plugins there are (PluginHost::check_plugin_options_applied); a plugin that fails to load (an unknown or ill-typed option
/// included) stays in host.failures() (each tool decides whether that is fatal).
Status load_plugins(PluginHost& host, const SessionFlags& flags, const std::filesystem::path& default_registry);

/// Prints "TOOL: error (CODE): MESSAGE" to stderr; returns kExitInternalError for kInternal,
/// kExitUserError otherwise.
int fail(std::string_view tool, const Status& status);

}  // namespace ge::tools
