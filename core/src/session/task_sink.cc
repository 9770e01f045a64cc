// How a session loads a graph into the task sink (session_task_sink.h).
#include "task_sink.h"

#include <algorithm>

namespace ge::detail {

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

ModelRunnerOptions task_sink_options(const OpRegistry& ops, std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                     ExecutionOrder order, int max_streams, double stream_memory_ratio,
                                     std::shared_ptr<TensorPool> pool) {
  ModelRunnerOptions options;
  options.output_pool = std::move(pool);
  options.max_streams = max_streams;
  options.stream_memory_ratio = stream_memory_ratio;
  options.memory_assigners = std::move(assigners);
  options.memory_plan_options.order = order;
  options.memory_plan_options.ops = &ops;
  return options;
}

ModelRunnerOptions task_sink_load_options(bool shrink, size_t super_kernel_max_bytes) {
  ModelRunnerOptions options;
  options.shrink = shrink;
  options.super_kernel_max_bytes = super_kernel_max_bytes;
  return options;
}

Result<CompiledModel> compile_task_sink(const Graph& graph, const Backend& backend, const OpRegistry& ops,
                                        std::vector<std::shared_ptr<MemoryAssigner>> assigners, ExecutionOrder order,
                                        int max_streams, double stream_memory_ratio, std::shared_ptr<TensorPool> pool) {
  if (assigners.empty()) {
    return unsupported("no memory assigner is loaded (enable one of kind 'memory_assigner' in the plugin registry)");
  }
  return ModelRunner::compile(graph, backend,
                              task_sink_options(ops, std::move(assigners), order, max_streams, stream_memory_ratio,
                                                std::move(pool)));
}

Result<std::unique_ptr<ModelRunner>> load_task_sink(const Graph& graph, Backend& backend, const OpRegistry& ops,
                                                    std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                                    ExecutionOrder order, int max_streams, double stream_memory_ratio,
                                                    std::shared_ptr<TensorPool> pool, bool shrink,
                                                    size_t super_kernel_max_bytes) {
  GE_ASSIGN_OR_RETURN(CompiledModel compiled, compile_task_sink(graph, backend, ops, std::move(assigners), order,
                                                                max_streams, stream_memory_ratio, pool));
  return ModelRunner::load(std::move(compiled), backend, task_sink_load_options(shrink, super_kernel_max_bytes));
}

}  // namespace ge::detail
