// Session::create: the compile pipeline from a model or a graph to a loaded session
// (parse, verify, infer shapes, memory limit, passes), and the choice between the task
// sink and the per-op executor (ge/session.h).
#include "ge/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <unordered_set>

#include "ge/executor.h"
#include "ge/logging.h"
#include "ge/memory_limit.h"
#include "ge/pass_manager.h"
#include "ge/shape_arithmetic.h"
#include "ge/verifier.h"
#include "../passes/weight_merging.h"
#include "../plugin_host/plugin_call.h"
#include "executable.h"
#include "task_sink.h"
#include "stage_clock.h"

namespace ge {
namespace {

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

/// --check-passes, end to end: each pass was checked node by node on the reference
/// backend; this runs the loaded session itself (task sink, memory plan, streams,
/// partition, specialisations, on its own backend) on the check inputs and holds it to
/// the unoptimised model's outputs, so a fault after the passes is named too.
Status check_loaded_session(Session& session, const Graph& unoptimised, const PluginHost& host,
                            const OpRegistry& ops, const SessionOptions& options) {
  Result<Backend*> reference = host.backend("cpu");
  if (!reference.is_ok()) return invalid_argument("--check-passes needs the reference backend 'cpu', which is not loaded");
  GE_ASSIGN_OR_RETURN(NamedTensors inputs, make_check_inputs(unoptimised, options.passes.check_inputs));
  // The oracle is float32 whatever the session's precision (the reference may be its
  // backend: its runs set their precision again, ge/session.h).
  GE_RETURN_IF_ERROR((*reference)->set_precision(Precision::kFp32).with_context("--check-passes"));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::create(unoptimised.clone(), **reference, ops));
  std::vector<Tensor> want, got;
  if (Status status = executor->run(inputs, want); !status.is_ok()) {
    // The generated inputs (unknown dims as 1) need not suit the model; the passes were
    // checked on the same inputs already.
    GE_LOG_INFO("--check-passes: the loaded model is not checked end to end: the unoptimised model does not run on "
                "the check inputs: {}", status.message());
    return Status::ok();
  }
  const std::string how = session.runner() != nullptr ? "in the task sink on backend '" + session.backend_name() + "'"
                          : session.specialises()    ? "specialised per input shape on backend '" + session.backend_name() + "'"
                                                     : "partitioned by the per-op executor on backend '" + session.backend_name() + "'";
  Status ran = session.run(inputs, got);
  if (!ran.is_ok()) {
    return internal_error("--check-passes: every pass kept the outputs, but the loaded model, run " + how +
                          ", fails on the check inputs: " + ran.message());
  }
  if (got.size() != want.size()) {
    return internal_error("--check-passes: the loaded model, run " + how + ", has " + std::to_string(got.size()) +
                          " outputs; the model has " + std::to_string(want.size()));
  }
  // Other kernels (the backend's own, not the reference's) sum in another order: each
  // output is held to its own scale, |difference| <= atol + 1e-3 * max |output|, as the
  // real-model zoo is (tests/zoo).
  // A session in bfloat16 (8 significant bits) against the float32 oracle: 3e-2 of the scale.
  const double relative = session.precision() == Precision::kFp32 ? 1e-3 : 3e-2;
  Result<double> difference = 0.0;
  for (size_t o = 0; o < want.size() && difference.is_ok(); ++o) {
    double scale = 0;
    const DataType dtype = want[o].dtype();
    if (dtype == DataType::kFloat32 || dtype == DataType::kFloat64 || dtype == DataType::kFloat16 ||
        dtype == DataType::kBFloat16) {
      for (int64_t i = 0; i < want[o].element_count(); ++i) scale = std::max(scale, std::fabs(want[o].scalar_as_double(i)));
    }
    const Value* out = unoptimised.outputs()[o];
    Result<double> one = compare_check_outputs({want[o]}, {got[o]}, {out != nullptr ? out->name() : std::string()},
                                               options.passes.check_rtol, options.passes.check_atol + relative * scale);
    if (!one.is_ok()) {
      difference = one.status();  // it names the output
    } else {
      difference = std::max(*difference, *one);
    }
  }
  if (!difference.is_ok()) {
    return internal_error("--check-passes: every pass kept the outputs, but the loaded model, run " + how +
                          ", does not: " + difference.status().message() +
                          (session.describe_partition().empty() ? "" : "; its partition:\n" + session.describe_partition()));
  }
  GE_LOG_INFO("--check-passes: the loaded model, run {}, checked: max |difference| {:.3g}", how, *difference);
  return Status::ok();
}

/// Logs `message` as a warning unless this process logged it already (a tool compiling
/// several sessions, ge-run --check-precision, says it once).
void warn_once(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!said.insert(message).second) return;
  }
  GE_LOG_WARN("{}", message);
}

}  // namespace

Result<Precision> Session::set_backend_precision(Backend& backend, Precision requested) {
  Status status = detail::guard_plugin_call("backend '" + backend.name() + "' (set_precision)",
                                            [&] { return backend.set_precision(requested); });
  if (status.is_ok()) return requested;
  if (status.code() != StatusCode::kUnsupported || requested == Precision::kFp32) {
    return status.with_context("precision " + std::string(precision_name(requested)));
  }
  warn_once(status.message() + ": running float32 instead of " + std::string(precision_name(requested)));
  GE_RETURN_IF_ERROR(backend.set_precision(Precision::kFp32).with_context("precision fp32"));
  return Precision::kFp32;
}

Status Session::apply_precision(Backend& backend, Precision requested) {
  precision_backend_ = &backend;
  requested_precision_ = requested;
  precision_ = Precision::kFp32;
  GE_ASSIGN_OR_RETURN(precision_, set_backend_precision(backend, requested));
  return Status::ok();
}

void Session::restore_precision() const {
  if (precision_backend_ != nullptr) (void)precision_backend_->set_precision(precision_);
}

Result<std::unique_ptr<Session>> Session::create(const PluginHost& host, const std::filesystem::path& model,
                                                 const SessionOptions& options) {
  std::vector<StageTiming> parse;
  detail::StageClock clock(parse);
  GE_ASSIGN_OR_RETURN(Parser* parser, host.parser_for(model));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                      detail::guard_plugin_call("parser '" + parser->name() + "' (parse_file)",
                                                [&] { return parser->parse_file_with(model, options.parse); }));
  GE_LOG_INFO("parsed '{}' with parser '{}': {} nodes", model.string(), parser->name(), graph->node_count());
  clock.end("parse");
  Result<std::unique_ptr<Session>> session = create(host, std::move(graph), options);
  if (!session) return session.status().with_context(model.string());
  std::vector<StageTiming>& stages = (*session)->stage_timings_;
  stages.insert(stages.begin(), parse.begin(), parse.end());
  return session;
}

Compilation::Compilation() = default;
Compilation::Compilation(Compilation&&) noexcept = default;
Compilation& Compilation::operator=(Compilation&&) noexcept = default;
Compilation::~Compilation() = default;

Result<Compilation> compile(const PluginHost& host, std::unique_ptr<Graph> graph, const SessionOptions& options) {
  Compilation c;
  c.backend_name_ = options.backend;
  c.pool_ = TensorPool::create();
  detail::StageClock clock(c.stage_timings_);
  GE_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                      detail::select_assigners(host, options.memory_assigners));
  c.ops_ = std::make_shared<OpRegistry>(host.make_op_registry());
  GE_RETURN_IF_ERROR(verify_graph(*graph).with_context("imported graph"));
  clock.end("verify");
  GE_RETURN_IF_ERROR(c.ops_->infer_graph(*graph));
  GE_ASSIGN_OR_RETURN(c.weights_reservation_, detail::apply_memory_limit(*graph, options, *c.pool_));
  clock.end("infer shapes");
  // Specialisations start from the graph before the passes: with static shapes they fold
  // and fuse what they could not on the dynamic graph.
  if (Session::wants_specialisation(options, *graph)) c.specialisation_source_ = graph->clone();
  if (options.passes.check_passes) c.unoptimised_ = graph->clone();
  GE_ASSIGN_OR_RETURN(c.backend_, host.backend(options.backend));
  Backend& backend = *c.backend_;
  if (options.threads > 0) GE_RETURN_IF_ERROR(backend.set_intra_op_threads(options.threads));
  // Before the passes: layout assignment asks the backend which formats its kernels prefer.
  c.requested_precision_ = options.precision;
  GE_ASSIGN_OR_RETURN(c.precision_, Session::set_backend_precision(backend, options.precision));
  PassManager passes(host.passes(), *c.ops_, options.passes);
  Result<Backend*> reference = host.backend("cpu");
  const auto passes_start = clock.mark();
  // The per-op executor gets the graph as it was before the layout phase: a blocked
  // format must not cross the boundary of a cluster, and each cluster it sinks gets its
  // own layout (plain at its inputs and outputs) when it is compiled.
  std::unique_ptr<Graph> before_layout;
  // --check-passes holds each pass to the float32 oracle: the reference (maybe the
  // session's backend) runs fp32 during the passes.
  if (options.passes.check_passes && reference.is_ok()) {
    GE_RETURN_IF_ERROR((*reference)->set_precision(Precision::kFp32).with_context("--check-passes"));
  }
  GE_RETURN_IF_ERROR(passes.run(*graph, &backend, reference.is_ok() ? *reference : nullptr,
                                [&](const Graph& g) { before_layout = g.clone(); }));
  (void)backend.set_precision(c.precision_);
  c.pass_timings_ = passes.timings();
  clock.end("passes");
  add_pass_stages(c.stage_timings_, passes_start, c.pass_timings_);
  if (options.task_sink) {
    // Identical weights the passes left (CSE runs from -O1) share one host storage.
    share_identical_constants(*graph);
    Result<CompiledModel> sink = detail::compile_task_sink(*graph, backend, *c.ops_, std::move(assigners),
                                                           options.memory_order, options.max_streams,
                                                           options.stream_memory_ratio, c.pool_);
    if (sink.is_ok()) {
      // The arena is allocated at load; whether it fits the memory limit beside the
      // weights is known now (the same check and message as load's).
      GE_RETURN_IF_ERROR(c.pool_
                             ->reserve("the task sink's feature-map arena of graph '" + graph->name() + "'",
                                       sink->feature_map_bytes())
                             .status());
      c.task_sink_.emplace(std::move(sink).value());
      clock.end("compile (task sink)");
      return c;
    }
    clock.end("try task sink");
    // Dynamic shapes, control flow and sequences are the per-op executor's job.
    if (sink.status().code() != StatusCode::kUnsupported) return sink.status().with_context("loading the task sink");
    c.task_sink_refusal_ = sink.status();
    GE_LOG_INFO("graph '{}' {}: {}", graph->name(),
                c.specialisation_source_ ? "is specialised per input shape" : "runs per op", sink.status().message());
  }
  c.graph_ = before_layout ? std::move(before_layout) : std::move(graph);
  return c;
}

Result<std::unique_ptr<Session>> Session::create(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                 const SessionOptions& options) {
  GE_ASSIGN_OR_RETURN(Compilation compilation, compile(host, std::move(graph), options));
  return load(host, std::move(compilation), options);
}

Result<std::unique_ptr<Session>> Session::load(const PluginHost& host, Compilation c, const SessionOptions& options) {
  if (c.backend_ == nullptr) return invalid_argument("loading a compilation that was moved from");
  std::unique_ptr<Session> session(new Session());
  session->backend_name_ = c.backend_name_;
  session->ops_ = c.ops_;
  session->pool_ = c.pool_;
  session->weights_reservation_ = std::move(c.weights_reservation_);
  session->precision_backend_ = c.backend_;
  session->precision_ = c.precision_;
  session->requested_precision_ = c.requested_precision_;
  session->pass_timings_ = std::move(c.pass_timings_);
  session->stage_timings_ = std::move(c.stage_timings_);
  Backend& backend = *c.backend_;
  detail::StageClock clock(session->stage_timings_);
  if (c.task_sink_) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> runner,
                        ModelRunner::load(std::move(*c.task_sink_), backend,
                                          detail::task_sink_load_options(options.shrink, options.super_kernel_max_bytes)));
    c.task_sink_.reset();
    session->set_runner(std::move(runner), backend);
    clock.end("load (task sink)");
  } else {
    session->restore_precision();  // the per-op executor prepares kernels in it
    Result<std::unique_ptr<detail::Executable>> per_op = session->load_per_op(
        host, std::move(c.graph_), std::move(c.specialisation_source_), true, options, backend);
    if (!per_op.is_ok() && !c.task_sink_refusal_.is_ok()) {
      // The task sink's reason is the one to act on (e.g. an op the backend has no kernel for).
      return Status(per_op.status().code(), per_op.status().message() +
                                                "; the task sink could not run the graph either: " +
                                                c.task_sink_refusal_.message());
    }
    GE_RETURN_IF_ERROR(per_op.status());
    session->executable_ = std::move(per_op).value();
    clock.end("load (per-op executor)");
  }
  if (c.unoptimised_) GE_RETURN_IF_ERROR(check_loaded_session(*session, *c.unoptimised_, host, *session->ops_, options));
  return session;
}

Result<std::shared_ptr<void>> detail::apply_memory_limit(const Graph& graph, const SessionOptions& options,
                                                        TensorPool& pool) {
  const size_t limit = options.memory_limit > 0 ? options.memory_limit : physical_memory_bytes();
  pool.set_memory_limit(limit);
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
  // The weights are held for the session's life (read from the model, or its external
  // data), whatever the backend does with them: count each storage once.
  std::unordered_set<const void*> counted;
  size_t weights_bytes = 0;
  for (const Value* init : graph.initializers()) {
    const Tensor* weight = init->constant();
    if (weight == nullptr || !weight->defined() || !counted.insert(weight->raw_data()).second) continue;
    GE_RETURN_IF_ERROR(check_memory_limit("weight '" + init->name() + "' " + init->desc().to_string(),
                                          weight->byte_size(), limit, weights_bytes)
                           .with_context("the model's weights"));
    weights_bytes += weight->byte_size();
  }
  return pool.reserve("the model's weights", weights_bytes);
}

Status Session::apply_memory_limit(const Graph& graph, const SessionOptions& options) {
  GE_ASSIGN_OR_RETURN(weights_reservation_, detail::apply_memory_limit(graph, options, *pool_));
  return Status::ok();
}

const MemoryStatistics* Session::memory_statistics() const {
  const ModelRunner* sunk = runner();
  const GraphMemoryPlan* plan = sunk != nullptr ? sunk->memory_plan() : nullptr;
  return plan != nullptr ? &plan->statistics : nullptr;
}

}  // namespace ge
