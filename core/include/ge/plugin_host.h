#pragma once
/// Finds plugin libraries through TOML registries, loads them with Boost.DLL and collects
/// what they register. Every failure is recorded with a precise message; nothing crashes.

#include <filesystem>
#include <map>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/plugin_api/kernel_library.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/op_registry.h"
#include "ge/plugin_api/parser.h"
#include "ge/plugin_api/pass.h"
#include "ge/plugin_options.h"
#include "ge/status.h"

namespace ge {

enum class PluginKind { kParser, kPass, kMemoryAssigner, kBackend, kOpLibrary };
const char* plugin_kind_name(PluginKind kind);

/// One `[[plugin]]` entry and what became of it.
struct PluginRecord {
  std::filesystem::path registry_file;
  int registry_line = 0;
  std::string name;
  PluginKind kind = PluginKind::kParser;
  std::filesystem::path library;  ///< resolved path
  bool enabled = true;
  bool loaded = false;
  std::string plugin_version;     ///< from the descriptor
  std::vector<std::string> components;  ///< "parser onnx", "pass dce", ...
  Status status;                  ///< why it failed, if it did
  /// Set when a registry read earlier already defined a plugin of this name: the earlier
  /// entry wins and this one is skipped (how --plugins overrides the default registry).
  std::filesystem::path shadowed_by;
};

class PluginHost {
 public:
  PluginHost();
  ~PluginHost();  ///< releases components, then unloads libraries
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  /// The registries to read, in discovery order: each `explicit_files` (--plugins), then
  /// every path in GE_PLUGINS (colon-separated), then `default_registry` if it exists.
  static std::vector<std::filesystem::path> discover(
      const std::vector<std::filesystem::path>& explicit_files,
      const std::filesystem::path& default_registry);

  /// Reads one registry and loads each enabled plugin. Returns the first error, having
  /// still tried every entry (all failures are in records() / failures()). A plugin name
  /// already defined by an earlier registry is skipped (earlier registries take
  /// precedence); a name repeated within one registry is an error.
  Status load_registry(const std::filesystem::path& registry_file);
  /// A tool's or a session's setting for plugin `plugin`: `key` = `value` in its options,
  /// over what its registry entry's [plugin.options] says (ge-run --autofusion sets the
  /// cpu backend's `autofuse_mode`). Applies to the registries loaded afterwards.
  void set_plugin_option(const std::string& plugin, const std::string& key, PluginOptions::Value value);
  /// Ok when every set_plugin_option names a plugin a registry loaded so far defines; else
  /// kNotFound for the first that does not: "setting gpu.threads: no registry defines a
  /// plugin named 'gpu' (the plugins: ...)". Call it after the last registry.
  Status check_plugin_options_applied() const;

  const std::vector<std::filesystem::path>& registry_files() const { return registry_files_; }
  const std::vector<PluginRecord>& records() const { return records_; }
  /// Failures not tied to one entry (unreadable file, malformed TOML) and each entry's.
  const std::vector<Status>& failures() const { return failures_; }

  const std::vector<std::shared_ptr<Parser>>& parsers() const;
  const std::vector<PassInfo>& passes() const;
  const std::vector<std::shared_ptr<MemoryAssigner>>& memory_assigners() const;
  /// Each loaded backend, with the kernel libraries for it in front (KernelLibraryBackend).
  const std::vector<std::shared_ptr<Backend>>& backends() const;
  const std::vector<std::shared_ptr<const OpLibrary>>& op_libraries() const;
  const std::vector<std::shared_ptr<const KernelLibrary>>& kernel_libraries() const;

  /// Parser claiming the extension of `path`; kNotFound naming the extension otherwise.
  Result<Parser*> parser_for(const std::filesystem::path& path) const;
  Result<Backend*> backend(const std::string& name) const;
  /// An OpRegistry holding every loaded op library.
  OpRegistry make_op_registry() const;

  /// Multi-line report for `ge-run --list-plugins`: registries, entries, and the passes
  /// in pipeline order with their phases and constraints (order_passes()).
  std::string describe() const;

 private:
  /// One registry entry: claims its name (or records that an earlier registry shadows it),
  /// opens and checks its library, calls its register function and commits what it
  /// registered. Fills in `record`; an error leaves nothing of the plugin behind.
  Status load_entry(PluginRecord& record, const PluginOptions& options, const std::filesystem::path& registry_file);
  void describe_pass_pipeline(std::ostream& out) const;
  /// Rebuilds backends() from the plugins' backends and the kernel libraries loaded so far.
  void compose_backends();

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::filesystem::path> registry_files_;
  std::vector<PluginRecord> records_;
  std::vector<Status> failures_;
};

}  // namespace ge
