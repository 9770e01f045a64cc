#pragma once
// Test helper for pass and op-library plugins: loads the plugins this build produced (the
// registry <build>/bin/ge_plugins.toml, found through GE_TEST_BIN_DIR) once per process,
// and runs passes on text IR through the real PassManager.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ge/graph_text.h"
#include "ge/pass_manager.h"
#include "ge/plugin_host.h"

namespace ge::pass_testing {

class PluginEnvironment {
 public:
  /// The process-wide environment; plugins load on first use.
  static PluginEnvironment& get() {
    static PluginEnvironment environment;
    return environment;
  }

  const PluginHost& host() const { return host_; }
  const OpRegistry& ops() const { return ops_; }
  /// The cpu backend, or null (require() explains).
  Backend* cpu() const {
    Result<Backend*> backend = host_.backend("cpu");
    return backend.is_ok() ? *backend : nullptr;
  }
  std::filesystem::path registry() const { return registry_; }

  /// Ok when every plugin named in `names` loaded; otherwise why not. Failures of other
  /// plugins in the registry do not matter to a test that does not use them.
  Status require(const std::vector<std::string>& names) const {
    for (const std::string& name : names) {
      bool found = false;
      for (const PluginRecord& record : host_.records()) {
        if (record.name != name) continue;
        found = true;
        if (!record.loaded) return plugin_error("plugin '" + name + "' did not load: " + record.status.message());
      }
      if (!found) return not_found("plugin '" + name + "' is not in " + registry_.string());
    }
    return Status::ok();
  }

 private:
  PluginEnvironment() {
    const char* bin = std::getenv("GE_TEST_BIN_DIR");
    registry_ = std::filesystem::path(bin != nullptr ? bin : ".") / "ge_plugins.toml";
    (void)host_.load_registry(registry_);  // per-plugin failures are checked by require()
    ops_ = host_.make_op_registry();
  }
  PluginHost host_;
  OpRegistry ops_;
  std::filesystem::path registry_;
};

/// Parses `ir`, infers it, runs exactly `passes` (in order) with the plugins' PassManager
/// on the cpu backend, verifies and returns the printed result.
inline Result<std::string> run_passes(std::string_view ir, const std::vector<std::string>& passes,
                                      PassManagerOptions options = {}) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(ir));
  GE_RETURN_IF_ERROR(env.ops().infer_graph(*graph).with_context("inferring the test input"));
  options.explicit_passes = passes;
  options.verify_each = true;
  PassManager manager(env.host().passes(), env.ops(), options);
  GE_RETURN_IF_ERROR(manager.run(*graph, env.cpu(), env.cpu()));
  return print_graph(*graph);
}

/// Prints `ir` after parsing and inferring it: the expected text of a test whose passes
/// must not change anything.
inline std::string inferred(std::string_view ir) {
  auto graph = parse_graph(ir);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (!graph.is_ok()) return {};
  Status status = PluginEnvironment::get().ops().infer_graph(**graph);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  return print_graph(**graph);
}

}  // namespace ge::pass_testing
