#pragma once
// Ops the executor runs on the host: control flow (If, Loop, Scan) and the sequence and
// optional ops. Private to the core.

#include <functional>
#include <vector>

#include "ge/graph.h"
#include "ge/runtime_value.h"
#include "ge/status.h"

namespace ge::detail {

/// Runs `body` with its runtime inputs bound to `inputs` (captures resolve through the
/// caller's scope) and returns its outputs in order.
using SubgraphRunner =
    std::function<Status(Graph& body, const std::vector<RuntimeValue>& inputs, std::vector<RuntimeValue>& outputs)>;

bool is_host_op_type(const Node& node);

/// Runs one host op. `inputs` holds one entry per node input (null for omitted ones);
/// `outputs` receives one value per node output.
Status run_host_op(const Node& node, const std::vector<const RuntimeValue*>& inputs, std::vector<RuntimeValue>& outputs,
                   const SubgraphRunner& run_subgraph);

}  // namespace ge::detail
