#pragma once
// One way a session runs its compiled graph (ge/session.h): an Executable. A session is
// its compile pipeline plus one of these, chosen at load:
//   - sunk:        the task sink, a pool of ModelRunners (one per concurrent run);
//   - per op:      the per-op executor, which sinks its static clusters and bodies;
//   - specialising: a graph with dynamic input dims compiled per input-shape signature,
//                  with the per-op executor for what does not compile to the task sink;
//   - geared:      a model file's dynamic gears (static plans picked by exact input
//                  shapes) in front of another executable.
// Internal to the core (session/*.cc). A new way of running (symbolic shapes, say) is one
// more implementation, not another flag in Session.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/runtime/model_runner.h"
#include "ge/runtime_value.h"
#include "ge/specialisation_cache.h"
#include "ge/status.h"
#include "ge/tensor_pool.h"

namespace ge::detail {

class Executable {
 public:
  virtual ~Executable() = default;
  /// Runs once: inputs by name, outputs in graph order (Session::run_values). Thread-safe.
  virtual Status run(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) = 0;
  /// Same for plain tensors (Session::run).
  virtual Status run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) = 0;
  /// The graph it runs.
  virtual const Graph& graph() const = 0;
  /// How it runs, in a line ("task sink: 1 runner, 2 streams", "per op: ...").
  virtual std::string describe() const = 0;

  // What a session reports of it; the defaults say "not this way of running".
  /// The task sink's first runner, or null.
  virtual const ModelRunner* runner() const { return nullptr; }
  /// Task-sink runners loaded (0 when it runs no task sink of its own).
  virtual size_t runner_count() const { return 0; }
  /// The per-op executor of the latest run (a specialisation's when it ran one), or null.
  virtual const Executor* executor() const { return nullptr; }
  virtual const SpecialisationCache* specialisations() const { return nullptr; }
  virtual size_t gear_count() const { return 0; }
  virtual uint64_t gear_hits() const { return 0; }
};

/// Sets the session's precision on its backend again before a run that may prepare
/// kernels (Session::restore_precision).
using RestorePrecision = std::function<void()>;

/// The task sink: `runner` first, siblings loaded from its plans when every runner is
/// busy (on a host-accessible device; others take turns on the one runner).
std::unique_ptr<Executable> sunk_executable(std::unique_ptr<ModelRunner> runner, Backend& backend,
                                            std::shared_ptr<const OpRegistry> ops, std::shared_ptr<TensorPool> pool,
                                            RestorePrecision restore);

/// The per-op executor; runs take turns.
std::unique_ptr<Executable> per_op_executable(std::unique_ptr<Executor> executor, RestorePrecision restore);

/// Specialisations per input-shape signature from `cache`; a signature without one (a
/// value that is not a plain tensor) runs on `fallback`, or fails with `unavailable`
/// when there is none (a device the per-op executor cannot use; `graph` is then the
/// graph to report). Runs take turns.
std::unique_ptr<Executable> specialising_executable(std::unique_ptr<SpecialisationCache> cache,
                                                    std::unique_ptr<Executor> fallback, std::unique_ptr<Graph> graph,
                                                    Status unavailable, RestorePrecision restore);

/// A model file's dynamic gears, keyed by SpecialisationCache::key_of, in front of `inner`.
std::unique_ptr<Executable> geared_executable(std::unique_ptr<Executable> inner,
                                              std::unordered_map<std::string, std::unique_ptr<ModelRunner>> gears);

/// `inputs` bound to `graph`'s runtime inputs (bind_runtime_inputs: its checks and
/// messages) as the tensors a shape signature is keyed by (SpecialisationCache::key_of);
/// nullopt when one is not a plain tensor (a sequence or an optional).
Result<std::optional<std::vector<const Tensor*>>> signature_tensors(const Graph& graph, const NamedValues& inputs);

/// Plain tensors as the values run() takes.
NamedValues as_values(const NamedTensors& inputs);

/// kCancelled when the run's token is tripped before a task-sink execute of `graph`.
Status check_cancelled(const RunOptions& options, const Graph& graph);

/// Runs plain-tensor `inputs` (already checked against its runtime inputs) on `runner`.
Status execute_values(ModelRunner& runner, const NamedValues& inputs, std::vector<RuntimeValue>& outputs,
                      const RunOptions& options);

}  // namespace ge::detail
