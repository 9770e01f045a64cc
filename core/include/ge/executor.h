#pragma once
/// The simple executor: runs a graph node by node in topological order on one backend.
/// Kernels are prepared once per set of input shapes; values whose shapes stay unknown
/// after inference are inferred and prepared per run (per-op mode). Control flow
/// (If/Loop/Scan) and sequence/optional ops run on the host inside the executor; every
/// other op runs as a backend kernel.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/cancellation.h"
#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/runtime_value.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_pool.h"

namespace ge {

class ModelRunner;

/// A named input binding.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using NamedValues = std::vector<std::pair<std::string, RuntimeValue>>;

/// What a caller controls per run.
struct RunOptions {
  /// Watched by the run: checked before each node, each subgraph run (every If branch, Loop
  /// and Scan iteration) and each task-sink execute, and inside a one-stream execute of
  /// ModelRunner::execute every CapturedModel::kCancellationSlice tasks; once tripped, the
  /// run stops there with kCancelled. Must outlive the run.
  const CancellationToken* cancellation = nullptr;
  /// Caller-bound outputs (IOBinding): graph output names with the tensors the run writes
  /// them into (the caller's memory, e.g. Tensor::borrow); the output returned is that
  /// tensor. Each must have the dtype and shape this run computes for its output (else
  /// kInvalidArgument naming both) and overlap no input and no other bound output. The
  /// task sink and the per-op executor's kernels write it in place; an output computed
  /// elsewhere (a constant, a cluster's) is copied into it once. Must outlive the run.
  const NamedTensors* bound_outputs = nullptr;
};

/// Compiles a standalone graph whose runtime inputs have static descs (shapes are
/// inferred by the compiler) into the task sink; kUnsupported when it cannot be sunk.
using SinkCompiler = std::function<Result<std::unique_ptr<ModelRunner>>(std::unique_ptr<Graph>)>;

struct ExecutorOptions {
  /// Where values, outputs and workspaces come from; a fresh pool when null.
  std::shared_ptr<TensorPool> pool;
  /// When set, the executor partitions each plan: maximal runs (two or more) of static-shape
  /// backend nodes between host ops and data-dependent shapes are compiled with it and run
  /// as one task-sink execute; runs of nodes downstream of a data-dependent shape, and the
  /// bodies of If/Loop/Scan without host ops, are compiled per signature of their inputs
  /// once that signature is seen twice. Unset: every node runs per op.
  SinkCompiler sink;
  /// Plans (one per input signature) and specialisations per body kept, LRU; also the
  /// kernels kept per node for the plans to share (KernelStatistics).
  size_t cache_size = 8;
  /// Plans are for signatures that may not come back (a session compiles those that do):
  /// their nodes carry kTransientPlanAttribute (ge/plugin_api/backend.h) while the backend
  /// prepares their kernels.
  bool transient_plans = false;
};

/// What the partition of the latest plan looks like, for -v and tests.
struct PartitionStatistics {
  size_t clusters = 0;          ///< clusters run in the task sink
  size_t dynamic_clusters = 0;  ///< of them, specialised at run time per input signature
  size_t clustered_nodes = 0;   ///< nodes inside them
  size_t per_op_nodes = 0;      ///< nodes of the top-level graph run per op (host ops included)
  uint64_t cluster_runs = 0;    ///< task-sink executes of clusters, all plans, all runs
  uint64_t body_runs = 0;       ///< task-sink executes of subgraph bodies
  uint64_t per_op_body_runs = 0;  ///< subgraph bodies run node by node, or partitioned
  size_t body_clusters = 0;     ///< clusters inside bodies that hold host ops
};

/// Kernels prepared for the plans of input signatures: a plan reuses the kernel another
/// plan prepared for the same node with the same input and output descs.
struct KernelStatistics {
  uint64_t prepared = 0;  ///< kernels the backend prepared (for plans and per op)
  uint64_t reused = 0;    ///< plan steps that took a kernel prepared for an earlier plan
  uint64_t evicted = 0;   ///< shared kernels dropped (more variants of a node than the cache size)
  uint64_t folded = 0;    ///< plan steps computed when their plan was made (shape values), never run
  uint64_t plans_built = 0;  ///< plans made from a clone of the graph (inferred whole)
  /// Plans made by retargeting the least recently used one in place (the cache full):
  /// only the nodes downstream of a changed input desc were inferred again.
  uint64_t plans_retargeted = 0;
  uint64_t nodes_reinferred = 0;  ///< nodes those retargets inferred again
  uint64_t nodes_kept = 0;        ///< nodes they kept as they were (descs, kernel, shape values)
};

class Executor {
 public:
  ~Executor();

  /// Takes ownership of `graph` (already inferred and optimised). Fails with kUnsupported
  /// naming op, dtype and backend for a node the backend cannot run.
  static Result<std::unique_ptr<Executor>> create(std::unique_ptr<Graph> graph, Backend& backend,
                                                  const OpRegistry& ops, ExecutorOptions options = {});

  const Graph& graph() const;
  /// The pool the executor's tensors come from (statistics: ge/tensor_pool.h).
  const TensorPool& pool() const;
  PartitionStatistics partition_statistics() const;
  KernelStatistics kernel_statistics() const;
  /// The clusters (their nodes, static or specialised at run time) and the nodes run per
  /// op of the latest plan and of the bodies partitioned since, one block per graph.
  std::string describe_partition() const;

  /// Runs once. `inputs` bind the graph's runtime inputs by name; each must match the
  /// declared dtype and every static dim (named dims bind consistently). Outputs come
  /// back in graph output order. Not thread-safe: one run at a time per executor.
  Status run(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options = {});
  /// Same with sequence and optional values allowed on both sides.
  Status run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options = {});

 private:
  struct Impl;
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Runs one node on `backend` with the given input values (one per node input, an
/// undefined Tensor for omitted optionals) and returns its outputs. The node's graph is
/// not modified. Used by constant folding.
Result<std::vector<Tensor>> evaluate_node(const Node& node, const std::vector<Tensor>& inputs, Backend& backend,
                                          const OpRegistry& ops);

/// Whether the executor runs `node` itself (control flow, sequences, optionals) rather
/// than asking a backend for a kernel.
bool is_host_op(const Node& node);

}  // namespace ge
