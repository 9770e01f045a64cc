#pragma once
/// The plugins one configuration of the kit runs with: the registries read in the
/// documented order, the op registry, the backend under test and the reference backend.

#include <filesystem>
#include <memory>
#include <string>

#include "ge/plugin_api/backend.h"
#include "ge/backend_conformance/backend_conformance.h"
#include "ge/op_registry.h"
#include "ge/plugin_host.h"
#include "ge/status.h"

namespace ge::backend_conformance {

class Environment {
 public:
  /// The environment registered as `name`, loading its plugins on first use; later calls
  /// return the same environment (or the same error). Lives until the process exits.
  static Result<Environment*> get(const std::string& name, const Config& config);

  const Config& config() const { return config_; }
  const PluginHost& host() const { return host_; }
  const OpRegistry& ops() const { return ops_; }
  Backend& backend() const { return *backend_; }
  Backend& reference() const { return *reference_; }
  /// True when the backend under test is the reference itself (GE's cpu).
  bool testing_reference() const { return backend_ == reference_; }

 private:
  explicit Environment(Config config) : config_(std::move(config)) {}
  Status load();

  Config config_;
  PluginHost host_;
  OpRegistry ops_;
  Backend* backend_ = nullptr;
  Backend* reference_ = nullptr;
};

/// GE's own registry: ge_plugins.toml in the bin/ folder beside the lib/ folder that holds
/// the loaded libge_core (true of the build and the install tree); empty when not found.
std::filesystem::path default_reference_registry();

}  // namespace ge::backend_conformance
