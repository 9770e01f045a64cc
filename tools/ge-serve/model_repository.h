#pragma once
/// A KServe-style model repository: REPO/NAME/VERSION/model.{onnx,gem,pt}, each model
/// with an optional REPO/NAME/config.toml (backend, threads, opt_level, precision,
/// input_shapes). Models load and unload while requests run: a request holds its model's
/// session (shared_ptr) for as long as it runs.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "batcher.h"
#include "ge/plugin_host.h"
#include "ge/session.h"
#include "ge/status.h"

namespace ge::serve {

/// config.toml of a model.
struct ModelConfig {
  std::string backend = "cpu";
  int threads = 0;
  int opt_level = 2;
  std::string precision = "fp32";
  std::string input_shapes;  ///< --input-shape's grammar ("x:1,3,224,224")
  int64_t max_batch_size = 0;  ///< dynamic batching of up to this many rows; 0: off
  int64_t batch_delay_ms = 2;  ///< the longest a request waits for its batch to fill
};

/// One loaded version of a model.
struct LoadedModel {
  std::string name;
  std::string version;
  std::filesystem::path file;
  std::string platform;  ///< "onnx", "gem", "torchscript"
  std::unique_ptr<Session> session;
  std::unique_ptr<Batcher> batcher;  ///< with config max_batch_size > 0 (destroyed before the session)
  /// Runs the session, through the batcher where there is one. `options` (its
  /// cancellation) apply to a run of this request alone; a batched request is answered
  /// at `deadline` (its batch is cancelled once all its requests are past theirs).
  Status run(NamedTensors inputs, std::vector<Tensor>& outputs, const RunOptions& options = {},
             std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt) const {
    return batcher ? batcher->run(std::move(inputs), outputs, options, deadline)
                   : session->run(inputs, outputs, options);
  }
};

/// The state of a model the repository knows (index).
struct ModelState {
  std::string name;
  std::string version;
  std::string state;   ///< "READY", "UNAVAILABLE"
  std::string reason;  ///< why it is unavailable (a load error), else empty
};

class ModelRepository {
 public:
  ModelRepository(std::filesystem::path root, const PluginHost& host);

  /// Loads every model of the repository; a model that fails stays UNAVAILABLE with its
  /// error (the server serves the others). Returns how many loaded.
  size_t load_all();
  /// Loads (or reloads) every version of model `name`; kNotFound for a model the
  /// repository has not.
  Status load(const std::string& name);
  /// Unloads model `name` (requests running on it finish first).
  Status unload(const std::string& name);
  /// The model, its latest version when `version` is empty; kNotFound naming what exists.
  Result<std::shared_ptr<const LoadedModel>> find(const std::string& name, const std::string& version) const;
  /// Every model of the repository folder and its state.
  std::vector<ModelState> index() const;
  /// Every loaded model version (for metrics).
  std::vector<std::shared_ptr<const LoadedModel>> loaded() const;
  bool all_ready() const;

 private:
  Result<std::vector<std::shared_ptr<const LoadedModel>>> load_versions(const std::string& name) const;

  std::filesystem::path root_;
  const PluginHost& host_;
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<std::shared_ptr<const LoadedModel>>> models_;  // versions ascending
  std::map<std::string, std::string> failures_;  // name -> load error
};

/// Reads a model's config.toml; an unknown key or a value of the wrong type is an error
/// naming the file and the key.
Result<ModelConfig> read_model_config(const std::filesystem::path& file);

}  // namespace ge::serve
