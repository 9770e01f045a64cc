#pragma once
// How a session loads a graph into the task sink: the memory assigners it plans with and
// the runner options its settings give. Internal to the core (session*.cc).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/graph.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/memory_plan.h"
#include "ge/op_registry.h"
#include "ge/plugin_host.h"
#include "ge/runtime/model_runner.h"
#include "ge/session.h"
#include "ge/status.h"
#include "ge/tensor_pool.h"

namespace ge::detail {

/// The loaded memory assigners `names` selects (all when empty); an unknown name is an
/// error listing the loaded ones.
Result<std::vector<std::shared_ptr<MemoryAssigner>>> select_assigners(const PluginHost& host,
                                                                      const std::vector<std::string>& names);

/// Applies options.memory_limit to `pool`, checks every static value of `graph` against
/// it (a graph input or output of 8 TiB fails here, not in the first run) and counts the
/// graph's weights against it while the returned reservation lives, naming the weight
/// that goes past it.
Result<std::shared_ptr<void>> apply_memory_limit(const Graph& graph, const SessionOptions& options, TensorPool& pool);

/// The runner options a session's task sink compiles with: the selected assigners, the
/// memory order, streams and the pool counting the kernels' bytes.
ModelRunnerOptions task_sink_options(const OpRegistry& ops, std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                     ExecutionOrder order, int max_streams, double stream_memory_ratio,
                                     std::shared_ptr<TensorPool> pool);

/// The runner options a session's task sink loads with (the ones ModelRunner::load reads;
/// the pool came with the compiled model).
ModelRunnerOptions task_sink_load_options(bool shrink, size_t super_kernel_max_bytes);

/// The graph compiled for the task sink (ModelRunner::compile, no device) with those
/// options; kUnsupported when the graph needs the per-op executor.
Result<CompiledModel> compile_task_sink(const Graph& graph, const Backend& backend, const OpRegistry& ops,
                                        std::vector<std::shared_ptr<MemoryAssigner>> assigners, ExecutionOrder order,
                                        int max_streams, double stream_memory_ratio, std::shared_ptr<TensorPool> pool);

/// The graph loaded into the task sink with a plan from the selected memory assigners
/// (`ops` says which ops run in place or as views); kUnsupported when the graph needs the
/// per-op executor.
Result<std::unique_ptr<ModelRunner>> load_task_sink(const Graph& graph, Backend& backend, const OpRegistry& ops,
                                                    std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                                    ExecutionOrder order, int max_streams, double stream_memory_ratio,
                                                    std::shared_ptr<TensorPool> pool, bool shrink,
                                                    size_t super_kernel_max_bytes);

}  // namespace ge::detail
