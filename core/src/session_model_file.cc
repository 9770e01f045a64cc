// Session construction from a .gem file: the compiled graph and its stored plans go
// straight to the task sink; no parser, no pass pipeline and no planner run.
#include <chrono>
#include <string>
#include <vector>

#include "ge/logging.h"
#include "ge/model_file.h"
#include "ge/verifier.h"
#include "runtime_input_binding.h"

namespace ge {

namespace {

/// Appends the stage that ran from `start` to now and returns now.
std::chrono::steady_clock::time_point end_stage(std::vector<StageTiming>& stages, std::string name,
                                                std::chrono::steady_clock::time_point start) {
  const auto now = std::chrono::steady_clock::now();
  stages.push_back(StageTiming{std::move(name), start, now - start});
  return now;
}

}  // namespace

Result<std::unique_ptr<Session>> Session::create_compiled(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                          const CompiledPlans* plans, const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  auto mark = std::chrono::steady_clock::now();
  session->ops_ = host.make_op_registry();
  GE_RETURN_IF_ERROR(verify_graph(*graph).with_context("compiled graph"));
  mark = end_stage(session->stage_timings_, "verify", mark);
  GE_RETURN_IF_ERROR(session->ops_.infer_graph(*graph));
  mark = end_stage(session->stage_timings_, "infer shapes", mark);
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  if (options.threads > 0) GE_RETURN_IF_ERROR(backend->set_intra_op_threads(options.threads));
  if (plans != nullptr) {
    ModelRunnerOptions runner_options;
    runner_options.precompiled = plans;
    runner_options.output_pool = session->pool_;
    GE_ASSIGN_OR_RETURN(session->runner_, ModelRunner::load(*graph, *backend, runner_options));
    end_stage(session->stage_timings_, "load (task sink, stored plans)", mark);
    return session;
  }
  // A graph stored without plans has dynamic shapes or host ops: specialise it per input
  // shape when its inputs are what is dynamic (it is compiled already: no passes).
  std::unique_ptr<Graph> source;
  if (options.task_sink && options.specialisation_cache_size > 0 && has_dynamic_tensor_inputs(*graph)) {
    source = graph->clone();
  }
  GE_RETURN_IF_ERROR(session->load_per_op(host, std::move(graph), std::move(source), false, options, *backend));
  end_stage(session->stage_timings_, "load (per-op executor)", mark);
  return session;
}

Result<std::unique_ptr<Session>> create_session_from_model_file(const PluginHost& host,
                                                                 const std::filesystem::path& path,
                                                                 const SessionOptions& options) {
  const auto read_start = std::chrono::steady_clock::now();
  GE_ASSIGN_OR_RETURN(LoadedModelFile loaded, read_model_file(path));
  const auto read_end = std::chrono::steady_clock::now();
  if (loaded.info.backend != options.backend) {
    return invalid_argument("model file '" + path.string() + "' was compiled for backend '" + loaded.info.backend +
                            "', not '" + options.backend + "'; run it with --backend " + loaded.info.backend +
                            " or recompile it with ge-compile --backend " + options.backend);
  }
  GE_RETURN_IF_ERROR(check_required_plugins(loaded.info, host).with_context(path.string()));
  GE_LOG_INFO("loaded '{}': {} nodes, {} weight bytes, {}", path.string(), loaded.graph->node_count(),
              loaded.info.weights_bytes, loaded.plans ? "stored plans" : "per-op");
  const CompiledPlans* plans = loaded.plans ? &*loaded.plans : nullptr;
  Result<std::unique_ptr<Session>> session = Session::create_compiled(host, std::move(loaded.graph), plans, options);
  if (!session) return session.status().with_context(path.string());
  std::vector<StageTiming>& stages = (*session)->stage_timings_;
  stages.insert(stages.begin(), StageTiming{"read model file", read_start, read_end - read_start});
  return session;
}

}  // namespace ge
