#pragma once
/// The compile-and-run driver used by ge-run and the test harnesses: parse a model with a
/// parser plugin, infer shapes, run the pass pipeline, build an executor on a backend.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/pass_manager.h"
#include "ge/plugin_host.h"
#include "ge/status.h"

namespace ge {

struct SessionOptions {
  std::string backend = "cpu";
  PassManagerOptions passes;
};

class Session {
 public:
  /// Parses and compiles `model` using the components `host` loaded. `host` must
  /// outlive the session.
  static Result<std::unique_ptr<Session>> create(const PluginHost& host,
                                                 const std::filesystem::path& model,
                                                 const SessionOptions& options);
  /// Same from an already-built graph.
  static Result<std::unique_ptr<Session>> create(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                 const SessionOptions& options);

  const Graph& graph() const { return executor_->graph(); }
  const OpRegistry& ops() const { return ops_; }
  const std::vector<PassTiming>& pass_timings() const { return pass_timings_; }
  Status run(const NamedTensors& inputs, std::vector<Tensor>& outputs) { return executor_->run(inputs, outputs); }
  /// Same with sequence and optional values allowed.
  Status run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs) {
    return executor_->run_values(inputs, outputs);
  }

 private:
  Session() = default;
  OpRegistry ops_;
  std::vector<PassTiming> pass_timings_;
  std::unique_ptr<Executor> executor_;
};

}  // namespace ge
