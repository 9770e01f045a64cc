#pragma once
/// The options ge-run, ge-compile and ge-opt share, bound once. Each is one entry of a
/// table (session_flags.cc): its name, whether it takes a value, whether it shapes
/// compilation (a compiled .gem refuses those), its help line and the SessionFlags field
/// it sets. A tool names the groups it accepts; session_options() is the one place the
/// fields become a ge::SessionOptions. A new shared option is one table entry and one
/// field.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/memory_plan.h"
#include "ge/pass_manager.h"
#include "ge/precision.h"
#include "ge/session.h"
#include "ge/status.h"
#include "option_values.h"

namespace ge::tools {

/// What the shared options set.
struct SessionFlags {
  std::vector<std::filesystem::path> plugin_files;  ///< --plugins, in order
  std::string backend = "cpu";                      ///< --backend
  bool backend_given = false;
  int verbosity = 0;                                ///< -v, -vv, --verbose
  PassManagerOptions passes;                        ///< -O, --passes, --disable-pass, --verify-each, ...
  size_t memory_limit = 0;                          ///< --memory-limit BYTES; 0: physical memory
  std::vector<std::string> memory_assigners;        ///< --memory-assigner, in order
  int threads = 0;                                  ///< --threads; 0: the backend's default
  int streams = 1;                                  ///< --streams
  double stream_memory_ratio = 1.1;                 ///< --stream-memory-ratio (0: no limit)
  /// --precision; absent: fp32 (a .gem: its own).
  std::optional<Precision> precision;
  /// --plugin-option PLUGIN.KEY=VALUE, in order: over the registry's [PLUGIN.options].
  std::vector<PluginSetting> plugin_settings;
  /// The shared options given, in order, by name ("-O", "--passes", ...).
  std::vector<std::string> given;

  bool was_given(std::string_view name) const;
  /// The SessionOptions these flags set (the fields a tool does not share keep their
  /// defaults; the tool sets them after).
  SessionOptions session_options() const;
};

/// Groups of shared options a tool accepts.
enum SessionFlagGroup : uint32_t {
  kPluginFlags = 1u << 0,   ///< --plugins, --plugin-option, --backend, -v
  kPassFlags = 1u << 1,     ///< -O, --passes, --disable-pass, --verify-each, --check-passes, tolerances
  kDumpFlags = 1u << 2,     ///< --dump-graph, --dump-graph-constants
  kCompileFlags = 1u << 3,  ///< --memory-assigner, --streams, --stream-memory-ratio, --precision, --threads,
                            ///< --memory-limit
};

/// One shared option.
struct SharedOption {
  std::string_view name;
  SessionFlagGroup group;
  bool takes_value;
  /// It shapes compilation: a compiled model (a .gem) has run its passes and stored its plan.
  bool compile_only;
  std::string_view help;  ///< "VALUE  what it does", for usage texts
  Status (*apply)(SessionFlags& flags, const std::string& value);
};

/// The table, in help order.
const std::vector<SharedOption>& shared_options();

/// The entry named `name` among `groups`, or null.
const SharedOption* find_shared_option(std::string_view name, uint32_t groups);

/// When args[i] is a shared option of `groups` (`--name VALUE`, `--name=VALUE`, `-O2`,
/// `-O 2`, `-v`, `-vv`), applies it, moves i past its value and returns true; false when it
/// is none of them (the tool's own, or unknown). A missing or malformed value is an error
/// naming the option.
Result<bool> take_shared_option(const std::vector<std::string>& args, size_t& i, uint32_t groups, SessionFlags& flags);

/// The value of option `option` at args[i]: `attached` (after '=') when given, else the
/// next argument, which moves i on; a missing value or another option ("--x") in its
/// place is an error: "option NAME expects a value[, got option '--x']".
Result<std::string> shared_option_value(const std::vector<std::string>& args, size_t& i, const std::string& option,
                                        const std::optional<std::string>& attached);

/// The help lines of the shared options of `groups`, one per option.
std::string shared_options_help(uint32_t groups);

}  // namespace ge::tools
