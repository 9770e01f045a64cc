#pragma once
/// The compile-and-run driver used by ge-run and the test harnesses: parse a model with a
/// parser plugin, infer shapes, run the pass pipeline, then run on a backend: through the
/// task sink (ge/runtime/model_runner.h) out of one planned feature-map arena when every
/// value is a static numeric tensor and no node runs on the host, else through the
/// per-op executor. Both give the same results and the same errors for bad inputs.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/executor.h"
#include "ge/input_shapes.h"
#include "ge/graph.h"
#include "ge/memory_plan.h"
#include "ge/op_registry.h"
#include "ge/pass_manager.h"
#include "ge/plugin_host.h"
#include "ge/precision.h"
#include "ge/runtime/model_runner.h"
#include "ge/specialisation_cache.h"
#include "ge/status.h"
#include "ge/tensor_pool.h"

namespace ge {

struct LoadedModelFile;
namespace detail {
class Executable;
}

struct SessionOptions {
  /// The backend to compile for and run on. Empty for a model file: the one it was
  /// compiled for (create_session_from_model_file).
  std::string backend = "cpu";
  /// What create() from a model file tells its parser (ge/input_shapes.h): input shapes
  /// that fix dynamic dims, or that a format storing none (TorchScript) needs.
  ParseOptions parse;
  PassManagerOptions passes;
  /// Off: always the per-op executor, even for static-shape graphs.
  bool task_sink = true;
  /// Memory assigners (plugin component names) the task sink's plan tries, keeping the
  /// smallest valid answer; empty: every loaded one. An unknown name fails create().
  std::vector<std::string> memory_assigners;
  /// The execution order the memory plan, and so the task sink, uses: kMemoryPriority
  /// lowers the peak of live bytes itself (see memory_priority_order()).
  ExecutionOrder memory_order = ExecutionOrder::kStable;
  /// Independent branches of a task-sink graph go on up to this many streams.
  int max_streams = 1;
  /// With several streams, the most feature-map bytes they may cost as a multiple of one
  /// stream's plan (ModelRunnerOptions::stream_memory_ratio); 0: no limit.
  double stream_memory_ratio = 1.1;
  /// Threads each heavy kernel may use (Backend::set_intra_op_threads), set on the backend
  /// before its kernels are prepared; 0 keeps the backend's own setting (cpu: its
  /// `intra_op_threads` registry option, else the machine's cores).
  int threads = 0;
  /// A graph whose inputs have symbolic or unknown dims is specialised per input-shape
  /// signature (ge/specialisation_cache.h): up to this many specialisations are kept,
  /// least recently used evicted. 0: such graphs always run per op.
  size_t specialisation_cache_size = 8;
  /// A signature is specialised (compiled for its static shapes) on its Nth run; until
  /// then it runs on the per-op executor of the graph compiled once, whose plans share
  /// every kernel prepared for the same node shapes (so a decode loop, whose shapes
  /// change on every step, pays no compile per step). 1: on its first run. A backend
  /// without a host-accessible device specialises on the first run whatever this says.
  int specialise_after = 2;
  /// Bytes the session may hold at once: the weights (read from the model, on every
  /// backend), a graph input or output, a value, a run's live tensors, the task sink's
  /// arena. What would go past it is a
  /// kInvalidArgument naming what needed how much, before anything is allocated (create()
  /// for static sizes, run() for sizes known at run time). 0: the machine's physical
  /// memory (ge/memory_limit.h).
  size_t memory_limit = 0;
  /// GE's Shrink (seed 000): once the task sink has copied the weights to a device the
  /// host cannot address, the session drops their host copies, so a loaded model's host
  /// memory does not hold the weights a second time (ModelRunnerOptions::shrink). No
  /// effect on a host-accessible device (cpu: the weights are read in place, they are
  /// the device memory) nor for a graph run per op or specialised per input shape.
  bool shrink = false;
  /// SuperKernel (seed 001, ModelRunnerOptions::super_kernel_max_bytes): runs of tiny
  /// kernel launches whose nodes write at most this many bytes each go to the backend as
  /// one launch. 0: off.
  size_t super_kernel_max_bytes = 0;
  /// The precision the heavy ops of float32 graphs compute in (ge/precision.h), set on
  /// the backend (Backend::set_precision) before its kernels are prepared. A backend
  /// without it runs float32 and the session says so once.
  Precision precision = Precision::kFp32;
};

/// One step of Session::create (parse, infer shapes, the passes and each pass, load), in
/// wall time, for profiles.
struct StageTiming {
  std::string name;
  std::chrono::steady_clock::time_point start;
  std::chrono::nanoseconds duration{0};
};

/// A model compiled for a backend the way a session compiles it, with no device touched
/// (seed 001's offline compiler): verified, inferred, optimised by the pass pipeline and,
/// when every value is a static numeric tensor and no node runs on the host, compiled
/// into the task sink's plans (a CompiledModel: kernels, order, streams, memory plan,
/// task definitions). ge::compile makes one; Session::load runs it; ge-compile writes it
/// into a model file.
class Compilation {
 public:
  Compilation(Compilation&&) noexcept;
  Compilation& operator=(Compilation&&) noexcept;
  ~Compilation();

  /// The graph a session of this compilation runs and a model file stores: the task
  /// sink's (its plans index it), else the optimised graph as the per-op executor takes
  /// it (before the layout phase: each cluster it sinks gets a layout of its own).
  const Graph& graph() const { return task_sink_ ? task_sink_->graph() : *graph_; }
  /// The task sink's compiled model, or null when the graph runs per op
  /// (task_sink_refusal() says why).
  const CompiledModel* task_sink() const { return task_sink_ ? &*task_sink_ : nullptr; }
  /// Why the graph does not compile to the task sink (ok when it does, or when
  /// SessionOptions::task_sink is off).
  const Status& task_sink_refusal() const { return task_sink_refusal_; }
  /// The statistics of the task sink's memory plan, or null when the graph runs per op.
  const MemoryStatistics* memory_statistics() const {
    return task_sink_ ? &task_sink_->memory_plan().statistics : nullptr;
  }
  const std::string& backend_name() const { return backend_name_; }
  /// The precision the kernels were prepared in, and the one asked for (see Session).
  Precision precision() const { return precision_; }
  Precision requested_precision() const { return requested_precision_; }
  const std::vector<PassTiming>& pass_timings() const { return pass_timings_; }
  /// The steps compile took (verify, infer shapes, passes and each pass, compile).
  const std::vector<StageTiming>& stage_timings() const { return stage_timings_; }

 private:
  friend class Session;
  friend Result<Compilation> compile(const PluginHost& host, std::unique_ptr<Graph> graph,
                                     const SessionOptions& options);
  Compilation();

  std::shared_ptr<OpRegistry> ops_;
  std::shared_ptr<TensorPool> pool_;           // the session's: the memory limit, the weights counted
  std::shared_ptr<void> weights_reservation_;  // the weights' bytes, counted in pool_
  std::string backend_name_;
  Backend* backend_ = nullptr;
  Precision precision_ = Precision::kFp32;
  Precision requested_precision_ = Precision::kFp32;
  std::vector<PassTiming> pass_timings_;
  std::vector<StageTiming> stage_timings_;
  std::optional<CompiledModel> task_sink_;
  Status task_sink_refusal_;
  std::unique_ptr<Graph> graph_;                  // without a task sink: the per-op executor's graph
  std::unique_ptr<Graph> specialisation_source_;  // dynamic input dims: the graph before the passes
  std::unique_ptr<Graph> unoptimised_;            // --check-passes: the graph before the passes
};

/// Compiles `graph` for options.backend using the components `host` loaded, touching no
/// device: verify, infer shapes, check the memory limit, set the backend's threads and
/// precision, run the pass pipeline and compile the task sink's plans (ModelRunner::
/// compile). Session::create is compile, then Session::load.
Result<Compilation> compile(const PluginHost& host, std::unique_ptr<Graph> graph, const SessionOptions& options);

class Session {
 public:
  /// Loads a compilation on its backend's device: the task sink's runner when it has
  /// one (ModelRunner::load), else the per-op executor (with shape specialisations for
  /// dynamic input dims). `options` must be the ones `compilation` was compiled with.
  static Result<std::unique_ptr<Session>> load(const PluginHost& host, Compilation compilation,
                                               const SessionOptions& options);
  /// Parses and compiles `model` using the components `host` loaded. `host` must
  /// outlive the session.
  static Result<std::unique_ptr<Session>> create(const PluginHost& host,
                                                 const std::filesystem::path& model,
                                                 const SessionOptions& options);
  /// Same from an already-built graph.
  static Result<std::unique_ptr<Session>> create(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                 const SessionOptions& options);
  /// An already-compiled graph (a model file's, ge/model_file.h): verified and inferred,
  /// no passes. With `plans` the task sink loads them (validated, not re-planned) and any
  /// error is returned; without, the graph runs per op. Defined in session_model_file.cc.
  static Result<std::unique_ptr<Session>> create_compiled(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                          const CompiledPlans* plans, const SessionOptions& options);

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// The graph the session runs (the task sink's, or the per-op executor's).
  const Graph& graph() const;
  const OpRegistry& ops() const { return *ops_; }
  const std::vector<PassTiming>& pass_timings() const { return pass_timings_; }
  /// The steps create() took, in order. "passes" spans the pipeline; each pass inside it
  /// is laid out back to back from its start, as the pass manager times only durations.
  const std::vector<StageTiming>& stage_timings() const { return stage_timings_; }
  /// Runs once: inputs by name, outputs in graph order (see Executor::run). Thread-safe:
  /// a session runs from several threads at once. On the task sink of a host-accessible
  /// device each concurrent run takes a runner of its own from a pool (its own activation
  /// arena and streams; the weights, prepacked weights and the compiled plan shared), the
  /// pool growing by one runner when every runner is busy; runs on other devices (npu_sim),
  /// through the per-op executor or a shape specialisation take turns. Running out of
  /// memory is an error (kInvalidArgument), never an exception. `options.cancellation`
  /// stops the run with kCancelled at its next node, subgraph run or task-sink execute
  /// (see RunOptions).
  Status run(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options = {});
  /// Same with sequence and optional values allowed.
  Status run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options = {});

  /// The backend the session runs on.
  const std::string& backend_name() const { return backend_name_; }
  /// The precision its kernels are prepared in: SessionOptions::precision, or kFp32 where
  /// the backend has no such arithmetic (a warning said so, once per process); a model
  /// file's own (create_session_from_model_file).
  Precision precision() const { return precision_; }
  /// The precision asked for: SessionOptions::precision, or a model file's own.
  Precision requested_precision() const { return requested_precision_; }
  /// Task-sink runners in the pool (1 until runs overlap; 0 when the session runs per op).
  size_t runner_count() const;
  /// Whether runs go through the task sink rather than the per-op executor.
  bool uses_task_sink() const { return runner() != nullptr; }
  /// Whether a graph with dynamic input dims is compiled per input-shape signature.
  bool specialises() const { return specialisations() != nullptr; }
  /// The task sink the session runs, or null when it runs per op.
  const ModelRunner* runner() const;
  /// How the session runs, in a line: the task sink (runners, streams, feature map), the
  /// per-op executor (clusters), shape specialisation or a model file's dynamic gears.
  std::string describe_execution() const;
  /// The statistics of the memory plan the task sink runs, or null when the session
  /// runs per op.
  const MemoryStatistics* memory_statistics() const;
  /// The shape-keyed specialisations of a graph with dynamic input dims, or null when the
  /// session runs one static plan (or specialisation is off).
  const SpecialisationCache* specialisations() const;
  /// How the per-op executor (of the latest run's specialisation, if any) partitions its
  /// graph, or null when the session runs one static plan.
  std::optional<PartitionStatistics> partition_statistics() const;
  /// The kernels that executor's plans prepared and shared, or null as above.
  std::optional<KernelStatistics> kernel_statistics() const;
  /// Dynamic gears loaded from a model file (static plans picked by exact input shapes),
  /// and how many runs used one.
  size_t gear_count() const;
  uint64_t gear_hits() const;
  /// What runs where in the per-op executor of the latest run (clusters and the nodes run
  /// per op of its latest plan and the bodies partitioned since); empty when there is none.
  std::string describe_partition() const;
  /// The pool the per-op executor's values and the runs' outputs come from.
  const TensorPool& tensor_pool() const { return *pool_; }

 private:
  friend Result<Compilation> compile(const PluginHost& host, std::unique_ptr<Graph> graph,
                                     const SessionOptions& options);
  friend Result<std::unique_ptr<Session>> create_session_from_model_file(const PluginHost& host,
                                                                          const std::filesystem::path& path,
                                                                          const SessionOptions& options);
  Session();
  /// Applies options.memory_limit to the pool, checks every static value of `graph`
  /// against it (a graph input or output of 8 TiB fails here, not in the first run) and
  /// counts the graph's weights against it while the session lives, naming the weight
  /// that goes past it.
  Status apply_memory_limit(const Graph& graph, const SessionOptions& options);
  /// Sets `requested` on `backend` before any kernel is prepared; a backend without it
  /// (kUnsupported) gets kFp32, with a warning once per process. Other errors fail.
  /// Returns the precision set.
  static Result<Precision> set_backend_precision(Backend& backend, Precision requested);
  /// set_backend_precision, remembered for restore_precision.
  Status apply_precision(Backend& backend, Precision requested);
  /// Sets precision_ on the backend again before a run that may prepare kernels (per op,
  /// specialisations, a sibling runner): another session on the same backend may have
  /// set another precision since. Not a lock: sessions of different precisions on one
  /// backend (one PluginHost) running such runs from two threads at once may prepare a
  /// kernel in the other's precision (a sibling runner then fails its stored kernel names).
  void restore_precision() const;
  /// Loads a dynamic gear of a model file (ge/model_file.h) after the model itself: its
  /// runner, keyed by its input shapes (SpecialisationCache::key_of).
  Result<std::pair<std::string, std::unique_ptr<ModelRunner>>> load_gear(const PluginHost& host, LoadedModelFile& gear,
                                                                          const SessionOptions& options);
  /// The per-op executor for `graph`, which sinks its static clusters and subgraph
  /// bodies when the options allow the task sink, or with `specialisation_source` (the
  /// inferred graph, with dynamic input dims) the shape-keyed specialisations in front of
  /// it. `run_passes` when those graphs come before the pass pipeline.
  Result<std::unique_ptr<detail::Executable>> load_per_op(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                          std::unique_ptr<Graph> specialisation_source, bool run_passes,
                                                          const SessionOptions& options, Backend& backend);
  /// The task sink's runner as the session's way of running.
  void set_runner(std::unique_ptr<ModelRunner> runner, Backend& backend);
  /// Whether a graph is specialised per input shape under `options` (dynamic input dims,
  /// the task sink on, a cache of at least one entry).
  static bool wants_specialisation(const SessionOptions& options, const Graph& graph);

  std::shared_ptr<OpRegistry> ops_;  // shared with the compilation the session loaded
  std::string backend_name_;
  Precision precision_ = Precision::kFp32;
  Precision requested_precision_ = Precision::kFp32;
  Backend* precision_backend_ = nullptr;  // the backend precision_ was set on
  std::shared_ptr<TensorPool> pool_ = TensorPool::create();
  std::shared_ptr<void> weights_reservation_;  // the weights' bytes, counted in pool_
  std::vector<PassTiming> pass_timings_;
  std::vector<StageTiming> stage_timings_;
  /// How the session runs (session/executable.h): the task sink, the per-op executor,
  /// shape specialisation, a model file's gears in front of one of those.
  std::unique_ptr<detail::Executable> executable_;
};

}  // namespace ge
