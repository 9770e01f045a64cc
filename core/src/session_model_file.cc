// Session construction from a .gem file: the compiled graph and its stored plans go
// straight to the task sink; no parser, no pass pipeline and no planner run.
#include "ge/logging.h"
#include "ge/model_file.h"
#include "ge/verifier.h"

namespace ge {

Result<std::unique_ptr<Session>> Session::create_compiled(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                          const CompiledPlans* plans, const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  session->ops_ = host.make_op_registry();
  GE_RETURN_IF_ERROR(verify_graph(*graph).with_context("compiled graph"));
  GE_RETURN_IF_ERROR(session->ops_.infer_graph(*graph));
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  if (plans != nullptr) {
    ModelRunnerOptions runner_options;
    runner_options.precompiled = plans;
    GE_ASSIGN_OR_RETURN(session->runner_, ModelRunner::load(*graph, *backend, runner_options));
    return session;
  }
  GE_ASSIGN_OR_RETURN(session->executor_, Executor::create(std::move(graph), *backend, session->ops_));
  return session;
}

Result<std::unique_ptr<Session>> create_session_from_model_file(const PluginHost& host,
                                                                 const std::filesystem::path& path,
                                                                 const SessionOptions& options) {
  GE_ASSIGN_OR_RETURN(LoadedModelFile loaded, read_model_file(path));
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
  return session;
}

}  // namespace ge
