#pragma once
/// The simple executor: runs a graph node by node in topological order on one backend.
/// Kernels are prepared once per set of input shapes; values whose shapes stay unknown
/// after inference are inferred and prepared per run (per-op mode). Control flow
/// (If/Loop/Scan) and sequence/optional ops run on the host inside the executor; every
/// other op runs as a backend kernel.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/backend.h"
#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/runtime_value.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_pool.h"

namespace ge {

/// A named input binding.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using NamedValues = std::vector<std::pair<std::string, RuntimeValue>>;

class Executor {
 public:
  ~Executor();

  /// Takes ownership of `graph` (already inferred and optimised). Fails with kUnsupported
  /// naming op, dtype and backend for a node the backend cannot run. Values, outputs and
  /// workspaces come from `pool` (a fresh one when null).
  static Result<std::unique_ptr<Executor>> create(std::unique_ptr<Graph> graph, Backend& backend,
                                                  const OpRegistry& ops, std::shared_ptr<TensorPool> pool = nullptr);

  const Graph& graph() const;
  /// The pool the executor's tensors come from (statistics: ge/tensor_pool.h).
  const TensorPool& pool() const;

  /// Runs once. `inputs` bind the graph's runtime inputs by name; each must match the
  /// declared dtype and every static dim (named dims bind consistently). Outputs come
  /// back in graph output order. Not thread-safe: one run at a time per executor.
  Status run(const NamedTensors& inputs, std::vector<Tensor>& outputs);
  /// Same with sequence and optional values allowed on both sides.
  Status run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs);

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
