// Session construction from a .gem file: the compiled graph and its stored plans go
// straight to the task sink; no parser, no pass pipeline and no planner run.
#include <string>
#include <vector>

#include "ge/logging.h"
#include "ge/model_file.h"
#include "ge/verifier.h"
#include "../executor/runtime_input_binding.h"
#include "executable.h"
#include "stage_clock.h"

namespace ge {
namespace {

/// A model file runs in the precision it was compiled with (its stored kernel names are
/// of it): `options.precision` becomes the file's. kFp32, the default, takes the file's;
/// another must be the file's. Stored plans of bf16/mixed kernels need a backend with that
/// arithmetic; a file run per op falls back to float32 as any session does.
Status settle_model_file_precision(const PluginHost& host, const std::filesystem::path& path,
                                   const LoadedModelFile& loaded, SessionOptions& options) {
  const Precision stored = loaded.info.precision;
  const std::string stored_name(precision_name(stored));
  if (options.precision != Precision::kFp32 && options.precision != stored) {
    return invalid_argument("model file '" + path.string() + "' was compiled with precision " + stored_name + ", not " +
                            std::string(precision_name(options.precision)) + ": its kernels are prepared in " +
                            stored_name + "; run it without --precision (or with " + "--precision " + stored_name +
                            "), or recompile it with ge-compile --precision " +
                            std::string(precision_name(options.precision)));
  }
  for (size_t i = 0; i < loaded.gears.size(); ++i) {
    if (loaded.gears[i].info.precision != stored) {
      return invalid_argument("model file '" + path.string() + "': gear " + std::to_string(i) +
                              " was compiled with precision " +
                              std::string(precision_name(loaded.gears[i].info.precision)) + ", the model with " +
                              stored_name + "; recompile it");
    }
  }
  options.precision = stored;
  if (stored == Precision::kFp32 || (!loaded.plans && loaded.gears.empty())) return Status::ok();
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  Status status = backend->set_precision(stored);
  if (status.code() == StatusCode::kUnsupported) {
    return unsupported("model file '" + path.string() + "' was compiled with precision " + stored_name +
                       " and stores its " + stored_name + " kernels' plans, but " + status.message() +
                       "; recompile it here with ge-compile --precision fp32");
  }
  return status;
}

}  // namespace

Result<std::pair<std::string, std::unique_ptr<ModelRunner>>> Session::load_gear(const PluginHost& host,
                                                                                LoadedModelFile& gear,
                                                                                const SessionOptions& options) {
  if (uses_task_sink()) return invalid_argument("the model has static input shapes: a dynamic gear cannot apply");
  const std::vector<Value*> expected = graph().runtime_inputs();
  const std::vector<Value*> given = gear.graph->runtime_inputs();
  if (given.size() != expected.size()) {
    return invalid_argument("it has " + std::to_string(given.size()) + " runtime inputs, the model " +
                            std::to_string(expected.size()));
  }
  std::vector<Tensor> shapes;  // empty tensors of the gear's input shapes, for the key
  for (size_t i = 0; i < given.size(); ++i) {
    const TensorDesc& desc = given[i]->desc();
    if (given[i]->name() != expected[i]->name() || desc.kind != ValueKind::kTensor || !desc.is_static()) {
      return invalid_argument("runtime input " + std::to_string(i) + " is '" + given[i]->name() + "' " +
                              desc.to_string() + ", not a static tensor named '" + expected[i]->name() + "'");
    }
    shapes.push_back(Tensor::borrow(desc.dtype, desc.static_dims(), nullptr));
  }
  // Whatever run binds to the gear must also bind to the model: the checks are the model's.
  NamedValues probe;
  for (size_t i = 0; i < given.size(); ++i) probe.emplace_back(given[i]->name(), RuntimeValue::of(shapes[i]));
  GE_RETURN_IF_ERROR(bind_runtime_inputs(expected, probe).status());
  GE_RETURN_IF_ERROR(verify_graph(*gear.graph).with_context("gear graph"));
  GE_RETURN_IF_ERROR(ops_->infer_graph(*gear.graph));
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  ModelRunnerOptions runner_options;
  runner_options.precompiled = &*gear.plans;
  runner_options.memory_plan_options.ops = ops_.get();
  runner_options.output_pool = pool_;
  runner_options.shrink = options.shrink;
  GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> runner, ModelRunner::load(*gear.graph, *backend, runner_options));
  std::vector<const Tensor*> keys;
  for (const Tensor& t : shapes) keys.push_back(&t);
  return std::make_pair(SpecialisationCache::key_of(keys), std::move(runner));
}

Result<std::unique_ptr<Session>> Session::create_compiled(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                          const CompiledPlans* plans, const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  session->backend_name_ = options.backend;
  detail::StageClock clock(session->stage_timings_);
  session->ops_ = std::make_shared<OpRegistry>(host.make_op_registry());
  GE_RETURN_IF_ERROR(verify_graph(*graph).with_context("compiled graph"));
  clock.end("verify");
  GE_RETURN_IF_ERROR(session->ops_->infer_graph(*graph));
  GE_RETURN_IF_ERROR(session->apply_memory_limit(*graph, options));
  clock.end("infer shapes");
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  if (options.threads > 0) GE_RETURN_IF_ERROR(backend->set_intra_op_threads(options.threads));
  GE_RETURN_IF_ERROR(session->apply_precision(*backend, options.precision));
  if (plans != nullptr) {
    ModelRunnerOptions runner_options;
    runner_options.precompiled = plans;
    runner_options.memory_plan_options.ops = session->ops_.get();
    runner_options.output_pool = session->pool_;
    runner_options.shrink = options.shrink;
    GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> runner, ModelRunner::load(*graph, *backend, runner_options));
    session->set_runner(std::move(runner), *backend);
    clock.end("load (task sink, stored plans)");
    return session;
  }
  // A graph stored without plans has dynamic shapes or host ops: specialise it per input
  // shape when its inputs are what is dynamic (it is compiled already: no passes).
  std::unique_ptr<Graph> source = wants_specialisation(options, *graph) ? graph->clone() : nullptr;
  GE_ASSIGN_OR_RETURN(session->executable_,
                      session->load_per_op(host, std::move(graph), std::move(source), false, options, *backend));
  clock.end("load (per-op executor)");
  return session;
}

Result<std::unique_ptr<Session>> create_session_from_model_file(const PluginHost& host,
                                                                 const std::filesystem::path& path,
                                                                 const SessionOptions& requested) {
  std::vector<StageTiming> read;
  detail::StageClock read_clock(read);
  GE_ASSIGN_OR_RETURN(LoadedModelFile loaded, read_model_file(path));
  read_clock.end("read model file");
  SessionOptions options = requested;
  if (options.backend.empty()) options.backend = loaded.info.backend;  // the file's own
  if (loaded.info.backend != options.backend) {
    return invalid_argument("model file '" + path.string() + "' was compiled for backend '" + loaded.info.backend +
                            "', not '" + options.backend + "'; run it with --backend " + loaded.info.backend +
                            " or recompile it with ge-compile --backend " + options.backend);
  }
  GE_RETURN_IF_ERROR(check_required_plugins(loaded.info, host).with_context(path.string()));
  GE_RETURN_IF_ERROR(settle_model_file_precision(host, path, loaded, options));
  GE_LOG_INFO("loaded '{}': {} nodes, {} weight bytes, {}", path.string(), loaded.graph->node_count(),
              loaded.info.weights_bytes, loaded.plans ? "stored plans" : "per-op");
  const CompiledPlans* plans = loaded.plans ? &*loaded.plans : nullptr;
  Result<std::unique_ptr<Session>> session = Session::create_compiled(host, std::move(loaded.graph), plans, options);
  if (!session) return session.status().with_context(path.string());
  detail::StageClock gears_clock((*session)->stage_timings_);
  std::unordered_map<std::string, std::unique_ptr<ModelRunner>> gears;
  for (size_t i = 0; i < loaded.gears.size(); ++i) {
    const std::string where = path.string() + ": gear " + std::to_string(i);
    auto gear = (*session)->load_gear(host, loaded.gears[i], options);
    if (!gear.is_ok()) return gear.status().with_context(where);
    if (!gears.emplace(std::move(gear->first), std::move(gear->second)).second) {
      return invalid_argument("another gear has the same input shapes").with_context(where);
    }
  }
  if (!gears.empty()) {
    (*session)->executable_ = detail::geared_executable(std::move((*session)->executable_), std::move(gears));
    gears_clock.end("load dynamic gears");
  }
  std::vector<StageTiming>& stages = (*session)->stage_timings_;
  stages.insert(stages.begin(), read.begin(), read.end());
  return session;
}

}  // namespace ge
