#include "ge/session.h"

#include "ge/logging.h"
#include "ge/verifier.h"

namespace ge {

Result<std::unique_ptr<Session>> Session::create(const PluginHost& host, const std::filesystem::path& model,
                                                 const SessionOptions& options) {
  GE_ASSIGN_OR_RETURN(Parser* parser, host.parser_for(model));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parser->parse_file(model));
  GE_LOG_INFO("parsed '{}' with parser '{}': {} nodes", model.string(), parser->name(), graph->node_count());
  Result<std::unique_ptr<Session>> session = create(host, std::move(graph), options);
  if (!session) return session.status().with_context(model.string());
  return session;
}

Result<std::unique_ptr<Session>> Session::create(const PluginHost& host, std::unique_ptr<Graph> graph,
                                                 const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  session->ops_ = host.make_op_registry();
  GE_RETURN_IF_ERROR(verify_graph(*graph).with_context("imported graph"));
  GE_RETURN_IF_ERROR(session->ops_.infer_graph(*graph));
  GE_ASSIGN_OR_RETURN(Backend * backend, host.backend(options.backend));
  PassManager passes(host.passes(), session->ops_, options.passes);
  Result<Backend*> reference = host.backend("cpu");
  GE_RETURN_IF_ERROR(passes.run(*graph, backend, reference.is_ok() ? *reference : nullptr));
  session->pass_timings_ = passes.timings();
  GE_ASSIGN_OR_RETURN(session->executor_, Executor::create(std::move(graph), *backend, session->ops_));
  return session;
}

}  // namespace ge
