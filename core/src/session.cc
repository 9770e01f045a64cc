// Sessions: compile a model once and run it, sunk, specialised per input shape or per op (ge/session.h).
#include "ge/session.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <new>

#include "ge/logging.h"
#include "ge/memory_limit.h"
#include "ge/shape_arithmetic.h"
#include "ge/verifier.h"
#include "ge/weight_merging.h"
#include "plugin_call.h"
#include "runtime_input_binding.h"

namespace ge {
namespace {

/// The loaded memory assigners `names` selects (all when empty); an unknown name is an
/// error listing the loaded ones.
Result<std::vector<std::shared_ptr<MemoryAssigner>>> select_assigners(const PluginHost& host,
                                                                      const std::vector<std::string>& names) {
  const std::vector<std::shared_ptr<MemoryAssigner>>& loaded = host.memory_assigners();
  if (names.empty()) return loaded;
  std::vector<std::shared_ptr<MemoryAssigner>> selected;
  for (const std::string& name : names) {
    auto found = std::find_if(loaded.begin(), loaded.end(), [&](const auto& a) { return a->name() == name; });
    if (found == loaded.end()) {
      std::string known;
      for (const auto& a : loaded) known += (known.empty() ? "" : ", ") + a->name();
      return invalid_argument("unknown memory assigner '" + name + "'; loaded: " + (known.empty() ? "none" : known));
    }
    selected.push_back(*found);
  }
  return selected;
}

/// The graph loaded into the task sink with a plan from the selected memory assigners
/// (`ops` says which ops run in place or as views); kUnsupported when the graph needs the
/// per-op executor.
Result<std::unique_ptr<ModelRunner>> load_task_sink(const Graph& graph, Backend& backend, const OpRegistry& ops,
                                                    std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                                    ExecutionOrder order, int max_streams, double stream_memory_ratio,
                                                    std::shared_ptr<TensorPool> pool, bool shrink,
                                                    size_t super_kernel_max_bytes) {
  ModelRunnerOptions options;
  options.output_pool = std::move(pool);
  options.shrink = shrink;
  options.super_kernel_max_bytes = super_kernel_max_bytes;
  options.max_streams = max_streams;
  options.stream_memory_ratio = stream_memory_ratio;
  options.memory_assigners = std::move(assigners);
  options.memory_plan_options.order = order;
  options.memory_plan_options.ops = &ops;
  if (options.memory_assigners.empty()) {
    return unsupported("no memory assigner is loaded (enable one of kind 'memory_assigner' in the plugin registry)");
  }
  return ModelRunner::load(graph, backend, options);
}

/// Appends stages to a list: each stage runs from the previous mark (or the start) to
/// now.
class StageClock {
 public:
  explicit StageClock(std::vector<StageTiming>& stages) : stages_(stages), mark_(std::chrono::steady_clock::now()) {}
  std::chrono::steady_clock::time_point mark() const { return mark_; }
  void end(std::string name) {
    const auto now = std::chrono::steady_clock::now();
    stages_.push_back(StageTiming{std::move(name), mark_, now - mark_});
    mark_ = now;
  }

 private:
  std::vector<StageTiming>& stages_;
  std::chrono::steady_clock::time_point mark_;
};

/// One stage per pass inside [start, ...): the pass manager times only durations.
void add_pass_stages(std::vector<StageTiming>& stages, std::chrono::steady_clock::time_point start,
                     const std::vector<PassTiming>& passes) {
  for (const PassTiming& pass : passes) {
    const auto duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(pass.milliseconds));
    stages.push_back(StageTiming{pass.name, start, duration});
    start += duration;
  }
}

}  // namespace

Result<std::unique_ptr<Session>> Session::create(const PluginHost& host, const std::filesystem::path& model,
                                                 const SessionOptions& options) {
  std::vector<StageTiming> parse;
  StageClock clock(parse);
  GE_ASSIGN_OR_RETURN(Parser* parser, host.parser_for(model));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                      detail::guard_plugin_call("parser '" + parser->name() + "' (parse_file)",
                                                [&] { return parser->parse_file(model); }));
  GE_LOG_INFO("parsed '{}' with parser '{}': {} nodes", model.string(), parser->name(), graph->node_count());
  clock.end("parse");
  Result<std::unique_ptr<Session>> session = create(host, std::move(graph), options);
  if (!session) return session.status().with_context(model.string());
  std::vector<StageTiming>& stages = (*session)->stage_timings_;
  stages.insert(stages.begin(), parse.begin(), parse.end());
  return session;
}

Result<std::unique_ptr<Session>> Session::create(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                 const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  session->backend_name_ = options.backend;
  StageClock clock(session->stage_timings_);
  GE_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                      select_assigners(host, options.memory_assigners));
  session->ops_ = host.make_op_registry();
  GE_RETURN_IF_ERROR(verify_graph(*graph).with_context("imported graph"));
  clock.end("verify");
  GE_RETURN_IF_ERROR(session->ops_.infer_graph(*graph));
  GE_RETURN_IF_ERROR(session->apply_memory_limit(*graph, options));
  clock.end("infer shapes");
  // Specialisations start from the graph before the passes: with static shapes they fold
  // and fuse what they could not on the dynamic graph.
  std::unique_ptr<Graph> specialisation_source = wants_specialisation(options, *graph) ? graph->clone() : nullptr;
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  if (options.threads > 0) GE_RETURN_IF_ERROR(backend->set_intra_op_threads(options.threads));
  PassManager passes(host.passes(), session->ops_, options.passes);
  Result<Backend*> reference = host.backend("cpu");
  const auto passes_start = clock.mark();
  GE_RETURN_IF_ERROR(passes.run(*graph, backend, reference.is_ok() ? *reference : nullptr));
  session->pass_timings_ = passes.timings();
  clock.end("passes");
  add_pass_stages(session->stage_timings_, passes_start, session->pass_timings_);
  Status sink_refusal;
  if (options.task_sink) {
    // Identical weights the passes left (CSE runs from -O1) share one host storage.
    share_identical_constants(*graph);
    Result<std::unique_ptr<ModelRunner>> runner =
        load_task_sink(*graph, *backend, session->ops_, assigners, options.memory_order, options.max_streams,
                       options.stream_memory_ratio, session->pool_, options.shrink, options.super_kernel_max_bytes);
    if (runner.is_ok()) {
      session->set_runner(std::move(runner).value(), *backend);
      clock.end("load (task sink)");
      return session;
    }
    clock.end("try task sink");
    // Dynamic shapes, control flow and sequences are the per-op executor's job.
    if (runner.status().code() != StatusCode::kUnsupported) return runner.status().with_context("loading the task sink");
    sink_refusal = runner.status();
    GE_LOG_INFO("graph '{}' {}: {}", graph->name(),
                specialisation_source ? "is specialised per input shape" : "runs per op", sink_refusal.message());
  }
  Status per_op = session->load_per_op(host, std::move(graph), std::move(specialisation_source), true, options, *backend);
  if (!per_op.is_ok() && !sink_refusal.is_ok()) {
    // The task sink's reason is the one to act on (e.g. an op the backend has no kernel for).
    return Status(per_op.code(), per_op.message() + "; the task sink could not run the graph either: " + sink_refusal.message());
  }
  GE_RETURN_IF_ERROR(per_op);
  clock.end("load (per-op executor)");
  return session;
}

Status Session::load_per_op(const PluginHost& host, std::unique_ptr<Graph> graph,
                            std::unique_ptr<Graph> specialisation_source, bool run_passes, const SessionOptions& options,
                            Backend& backend) {
  GE_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                      select_assigners(host, options.memory_assigners));
  // A static graph (a specialisation, a static cluster, a subgraph body for given input
  // descs) is inferred afresh (its descs are those of another shape, or of a per-op run),
  // gets the passes when the session's graph had them, and loads into the task sink.
  // --dump-graph: a specialisation's passes dump into a folder of their own; those of
  // clusters and bodies (fragments) do not dump.
  auto optimise = [this, &host, &backend, options, run_passes](Graph& graph,
                                                               std::optional<std::filesystem::path> dump) -> Status {
    for (const auto& node : graph.nodes()) {
      for (Value* out : node->outputs()) out->mutable_desc().shape.reset();
    }
    GE_RETURN_IF_ERROR(ops_.infer_graph(graph));
    if (run_passes) {
      PassManagerOptions pass_options = options.passes;
      pass_options.dump_dir = std::move(dump);
      PassManager passes(host.passes(), ops_, pass_options);
      Result<Backend*> reference = host.backend("cpu");
      GE_RETURN_IF_ERROR(passes.run(graph, &backend, reference.is_ok() ? *reference : nullptr));
    }
    return Status::ok();
  };
  auto load = [this, &backend, options, assigners = std::move(assigners)](const Graph& graph) {
    // No shrink: each specialisation is compiled from the host graph, which stays.
    return load_task_sink(graph, backend, ops_, assigners, options.memory_order, options.max_streams,
                          options.stream_memory_ratio, pool_, false, options.super_kernel_max_bytes);
  };
  SinkCompiler compile = [optimise, load](std::unique_ptr<Graph> graph) -> Result<std::unique_ptr<ModelRunner>> {
    GE_RETURN_IF_ERROR(optimise(*graph, std::nullopt));
    return load(*graph);
  };
  ExecutorOptions executor_options;
  executor_options.pool = pool_;
  executor_options.cache_size = std::max<size_t>(options.specialisation_cache_size, 1);
  if (options.task_sink) executor_options.sink = compile;
  if (!backend.device().host_accessible() && specialisation_source) {
    // Every signature that compiles to the task sink still runs; the rest cannot.
    per_op_unavailable_ = unsupported("backend '" + backend.name() + "' has no host-accessible device, which the per-op "
                                      "executor needs: only input shapes whose specialisation runs in the task sink run");
    dynamic_graph_ = std::move(graph);
  } else {
    GE_ASSIGN_OR_RETURN(executor_, Executor::create(std::move(graph), backend, ops_, executor_options));
  }
  if (specialisation_source) {
    specialisation_source_ = std::move(specialisation_source);
    // A signature whose graph still has host ops or data-dependent shapes after the
    // passes runs on an executor of its own: the passes folded what the static shapes
    // made constant, and its plan is partitioned.
    auto specialise = [this, &backend, optimise, load, executor_options, dump_dir = options.passes.dump_dir](
                          const std::vector<TensorDesc>& descs) -> Result<Specialisation> {
      std::unique_ptr<Graph> graph = specialisation_source_->clone();
      const std::vector<Value*> inputs = graph->runtime_inputs();
      for (size_t i = 0; i < inputs.size() && i < descs.size(); ++i) inputs[i]->set_desc(descs[i]);
      std::optional<std::filesystem::path> dump;
      if (dump_dir) dump = *dump_dir / ("specialisation_" + std::to_string(++specialisations_compiled_));
      GE_RETURN_IF_ERROR(optimise(*graph, std::move(dump)));
      Result<std::unique_ptr<ModelRunner>> runner = load(*graph);
      if (runner.is_ok()) return Specialisation{std::move(runner).value(), nullptr};
      if (runner.status().code() != StatusCode::kUnsupported) return runner.status();
      GE_LOG_INFO("specialised graph '{}' runs per op, partitioned: {}", graph->name(), runner.status().message());
      GE_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                          Executor::create(std::move(graph), backend, ops_, executor_options));
      return Specialisation{nullptr, std::move(executor)};
    };
    specialisations_ = std::make_unique<SpecialisationCache>(options.specialisation_cache_size, std::move(specialise));
  }
  return Status::ok();
}

Status Session::apply_memory_limit(const Graph& graph, const SessionOptions& options) {
  const size_t limit = options.memory_limit > 0 ? options.memory_limit : physical_memory_bytes();
  pool_->set_memory_limit(limit);
  auto check = [&](const Value* value, const std::string& role) -> Status {
    if (value == nullptr || value->desc().kind != ValueKind::kTensor || !value->desc().is_static()) return Status::ok();
    const std::string what = role + " '" + value->name() + "' " + value->desc().to_string();
    Result<size_t> bytes = checked_byte_size(value->desc().dtype, value->desc().static_dims());
    if (!bytes.is_ok()) return bytes.status().with_context(what);
    return check_memory_limit(what, *bytes, limit);
  };
  for (const Value* input : graph.inputs()) GE_RETURN_IF_ERROR(check(input, "graph input"));
  for (const Value* output : graph.outputs()) GE_RETURN_IF_ERROR(check(output, "graph output"));
  for (const auto& node : graph.nodes()) {
    for (const Value* output : node->outputs()) GE_RETURN_IF_ERROR(check(output, "output of " + node->describe()));
  }
  return Status::ok();
}

bool Session::wants_specialisation(const SessionOptions& options, const Graph& graph) {
  return options.task_sink && options.specialisation_cache_size > 0 && has_dynamic_tensor_inputs(graph);
}

Result<Specialisation*> Session::specialised(const NamedValues& inputs) {
  if (!specialisations_ && gears_.empty()) return static_cast<Specialisation*>(nullptr);
  // The executor's checks and messages (dtypes, static and named dims) come first.
  GE_ASSIGN_OR_RETURN(std::vector<const RuntimeValue*> bound,
                      bind_runtime_inputs(graph().runtime_inputs(), inputs));
  std::vector<const Tensor*> tensors;
  tensors.reserve(bound.size());
  for (const RuntimeValue* value : bound) {
    if (!value->is_tensor()) return static_cast<Specialisation*>(nullptr);
    tensors.push_back(&value->tensor);
  }
  if (!gears_.empty()) {
    if (auto gear = gears_.find(SpecialisationCache::key_of(tensors)); gear != gears_.end()) {
      ++gear_hits_;
      last_executor_ = executor_.get();
      return &gear->second;
    }
  }
  if (!specialisations_) return static_cast<Specialisation*>(nullptr);
  GE_ASSIGN_OR_RETURN(Specialisation * found, specialisations_->find(tensors));
  last_executor_ = found != nullptr && found->executor ? found->executor.get() : executor_.get();
  return found;
}

namespace {

/// Runs `body`, turning a std::bad_alloc that escaped the checks before each allocation
/// (the system had less free memory than the limit) into an error: it never reaches the
/// user as an internal one.
template <typename Body>
Status guard_allocations(const TensorPool& pool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    const size_t limit = pool.memory_limit();
    return invalid_argument("out of memory during the run (" + format_bytes(pool.statistics().in_use_bytes) +
                            " in use, limit " + format_bytes(limit) +
                            "): the system has less free memory than the limit allows; set a lower one with "
                            "--memory-limit");
  }
}

}  // namespace

Status Session::run(const NamedTensors& inputs, std::vector<Tensor>& outputs) {
  return guard_allocations(*pool_, [&] { return run_unguarded(inputs, outputs); });
}

Status Session::run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs) {
  return guard_allocations(*pool_, [&] { return run_values_unguarded(inputs, outputs); });
}

void Session::set_runner(std::unique_ptr<ModelRunner> runner, Backend& backend) {
  runner_ = std::move(runner);
  backend_ = &backend;
  idle_runners_ = {runner_.get()};
}

size_t Session::runner_count() const {
  std::lock_guard<std::mutex> lock(runners_mutex_);
  return runner_ ? 1 + sibling_runners_.size() : 0;
}

Result<ModelRunner*> Session::acquire_runner() {
  {
    std::unique_lock<std::mutex> lock(runners_mutex_);
    // A device with memory of its own (npu_sim) keeps one runner: its runs take turns.
    if (!backend_->device().host_accessible()) runner_idle_.wait(lock, [this] { return !idle_runners_.empty(); });
    if (!idle_runners_.empty()) {
      ModelRunner* runner = idle_runners_.back();
      idle_runners_.pop_back();
      return runner;
    }
  }
  // Every runner is busy: a sibling from the same graph and stored plan. Prepacked weights
  // are shared (and read in place on a host-accessible device); the arena is its own.
  const CompiledPlans plans = runner_->compiled_plans();
  ModelRunnerOptions options;
  options.precompiled = &plans;
  options.memory_plan_options.ops = &ops_;
  options.output_pool = pool_;
  GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> sibling, ModelRunner::load(runner_->graph(), *backend_, options));
  std::lock_guard<std::mutex> lock(runners_mutex_);
  sibling_runners_.push_back(std::move(sibling));
  return sibling_runners_.back().get();
}

void Session::release_runner(ModelRunner* runner) {
  {
    std::lock_guard<std::mutex> lock(runners_mutex_);
    idle_runners_.push_back(runner);
  }
  runner_idle_.notify_one();
}

namespace {

/// A pooled runner for one run, back in the pool however the run ends.
class RunnerLease {
 public:
  RunnerLease(ModelRunner* runner, std::function<void(ModelRunner*)> release)
      : runner_(runner), release_(std::move(release)) {}
  ~RunnerLease() { release_(runner_); }
  RunnerLease(const RunnerLease&) = delete;
  RunnerLease& operator=(const RunnerLease&) = delete;
  ModelRunner& operator*() const { return *runner_; }

 private:
  ModelRunner* runner_;
  std::function<void(ModelRunner*)> release_;
};

}  // namespace

Status Session::run_unguarded(const NamedTensors& inputs, std::vector<Tensor>& outputs) {
  NamedValues values;
  values.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) values.emplace_back(name, RuntimeValue::of(tensor));
  if (!runner_) {
    std::lock_guard<std::mutex> serial(serial_mutex_);
    GE_ASSIGN_OR_RETURN(Specialisation * found, specialised(values));
    if (found != nullptr && found->runner) return found->runner->execute(inputs, outputs);
    if (found != nullptr && found->executor) return found->executor->run(inputs, outputs);
    if (!executor_) return per_op_unavailable_;
    return executor_->run(inputs, outputs);
  }
  // The executor's checks and messages; the runner then binds by name again.
  GE_RETURN_IF_ERROR(bind_runtime_inputs(runner_->graph().runtime_inputs(), values).status());
  GE_ASSIGN_OR_RETURN(ModelRunner * runner, acquire_runner());
  const RunnerLease lease(runner, [this](ModelRunner* r) { release_runner(r); });
  return (*lease).execute(inputs, outputs);
}

namespace {

/// Runs plain-tensor `inputs` (already checked against its runtime inputs) on `runner`.
Status execute_values(ModelRunner& runner, const NamedValues& inputs, std::vector<RuntimeValue>& outputs) {
  NamedTensors tensors;
  tensors.reserve(inputs.size());
  for (const auto& [name, value] : inputs) tensors.emplace_back(name, value.tensor);  // all plain tensors
  std::vector<Tensor> results;
  GE_RETURN_IF_ERROR(runner.execute(tensors, results));
  outputs.clear();
  for (Tensor& tensor : results) outputs.push_back(RuntimeValue::of(std::move(tensor)));
  return Status::ok();
}

}  // namespace

Status Session::run_values_unguarded(const NamedValues& inputs, std::vector<RuntimeValue>& outputs) {
  if (runner_) {
    GE_RETURN_IF_ERROR(bind_runtime_inputs(runner_->graph().runtime_inputs(), inputs).status());
    GE_ASSIGN_OR_RETURN(ModelRunner * runner, acquire_runner());
    const RunnerLease lease(runner, [this](ModelRunner* r) { release_runner(r); });
    return execute_values(*lease, inputs, outputs);
  }
  std::lock_guard<std::mutex> serial(serial_mutex_);
  GE_ASSIGN_OR_RETURN(Specialisation * found, specialised(inputs));
  if (found != nullptr && found->executor) return found->executor->run_values(inputs, outputs);
  if (found == nullptr || !found->runner) return executor_ ? executor_->run_values(inputs, outputs) : per_op_unavailable_;
  GE_RETURN_IF_ERROR(bind_runtime_inputs(found->runner->graph().runtime_inputs(), inputs).status());
  return execute_values(*found->runner, inputs, outputs);
}

const MemoryStatistics* Session::memory_statistics() const {
  const GraphMemoryPlan* plan = runner_ ? runner_->memory_plan() : nullptr;
  return plan != nullptr ? &plan->statistics : nullptr;
}

}  // namespace ge
