// Session construction from a .gem file: the compiled graph goes straight to the
// executor; no parser and no pass pipeline run.
#include "ge/logging.h"
#include "ge/model_file.h"

namespace ge {

Result<std::unique_ptr<Session>> create_session_from_model_file(const PluginHost& host,
                                                                 const std::filesystem::path& path,
                                                                 const SessionOptions& options) {
  GE_ASSIGN_OR_RETURN(LoadedModelFile loaded, read_model_file(path));
  if (loaded.info.backend != options.backend) {
    return invalid_argument("model file '" + path.string() + "' was compiled for backend '" + loaded.info.backend +
                            "', not '" + options.backend + "'; recompile it with ge-compile --backend " +
                            options.backend);
  }
  GE_RETURN_IF_ERROR(check_required_plugins(loaded.info, host).with_context(path.string()));
  SessionOptions load_options = options;
  // The passes already ran at compile time: an explicit empty pipeline runs none.
  load_options.passes = PassManagerOptions{};
  load_options.passes.explicit_passes = std::vector<std::string>{};
  GE_LOG_INFO("loaded '{}': {} nodes, {} weight bytes", path.string(), loaded.graph->node_count(),
              loaded.info.weights_bytes);
  Result<std::unique_ptr<Session>> session = Session::create(host, std::move(loaded.graph), load_options);
  if (!session) return session.status().with_context(path.string());
  return session;
}

}  // namespace ge
