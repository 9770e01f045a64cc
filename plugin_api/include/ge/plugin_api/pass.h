#pragma once
/// A graph pass: a named transformation of a Graph.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/pass_phase.h"
#include "ge/plugin_options.h"
#include "ge/status.h"

namespace ge {

class Backend;

/// What a pass may use while it runs.
struct PassContext {
  const OpRegistry* ops = nullptr;  ///< for re-inference of what the pass builds
  int opt_level = 2;
  /// The backend the model is compiled for (null when unknown): fusions check that it
  /// supports what they build.
  Backend* target_backend = nullptr;
  /// The reference backend ("cpu" when loaded, else null) for evaluating constant
  /// subgraphs with ge::evaluate_node().
  Backend* reference_backend = nullptr;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  /// Transforms `graph`. Sets `changed` to true when it edited the graph, so the pass
  /// manager re-runs shape inference and dumps/verifies.
  virtual Status run(Graph& graph, PassContext& context, bool& changed) = 0;
};

/// How a pass plugin registers a pass: a name, the lowest -O level that enables it, where
/// it runs in a pipeline and a factory. A pipeline runs the phases in PassPhase order;
/// inside a phase a pass runs after every pass named in `run_after` and before every pass
/// named in `run_before` (names of passes that are not loaded are ignored), other ties in
/// registration order (ge/pass_order.h).
struct PassInfo {
  std::string name;
  int min_opt_level = 1;
  PassPhase phase = PassPhase::kFuse;
  std::vector<std::string> run_after;
  std::vector<std::string> run_before;
  std::function<std::unique_ptr<Pass>()> create;
};

}  // namespace ge
