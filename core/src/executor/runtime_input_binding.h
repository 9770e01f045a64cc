#pragma once
/// Checks a caller's named inputs against a graph's runtime inputs. The per-op executor
/// and the task-sink path of Session give the same errors for the same bad inputs.

#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/runtime_value.h"
#include "ge/status.h"

namespace ge {

/// One binding per entry of `expected`, in that order: matched by name, each of the
/// declared kind and dtype and of a shape that agrees with every static dim (named dims
/// bind consistently across inputs). Fails with kInvalidArgument for an unknown,
/// repeated, missing or mismatched input, naming it and the model's inputs.
Result<std::vector<const RuntimeValue*>> bind_runtime_inputs(const std::vector<Value*>& expected,
                                                             const NamedValues& inputs);

/// Whether every runtime input of `graph` is a tensor and some has a dim not known until
/// run time: what shape-keyed specialisation (ge/specialisation_cache.h) applies to.
bool has_dynamic_tensor_inputs(const Graph& graph);

}  // namespace ge
