#pragma once
/// Caller-bound outputs (RunOptions::bound_outputs, IOBinding-like): which graph output
/// each caller buffer is for, the checks that keep a run writing into it correct, and the
/// delivery of an output the run computed elsewhere into its bound buffer. The task sink
/// and the per-op executor write a bound output in place where they can; Session::run
/// delivers the rest, so every way of running honours a binding.

#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge {

/// Per entry of `graph_outputs`: the caller's tensor bound to it, or null. A name bound
/// to no graph output, a name bound twice, a string or empty-storage tensor, and buffers
/// that overlap one another or an input's bytes (a kernel could read an input after
/// writing over it) fail with kInvalidArgument naming them. The same value listed as two
/// graph outputs takes its binding at its first position.
Result<std::vector<const Tensor*>> bind_outputs(const std::vector<Value*>& graph_outputs, const NamedTensors& bound,
                                                const NamedTensors& inputs);

/// kInvalidArgument unless `bound` has `dtype` and `shape`, the run's own for the output.
Status check_bound_output(const std::string& name, const Tensor& bound, DataType dtype,
                          const std::vector<int64_t>& shape);

/// Makes each bound entry of `outputs` the caller's tensor: an output computed in another
/// buffer is checked (dtype, shape: the run's) and copied into it.
Status deliver_bound_outputs(const std::vector<Value*>& graph_outputs, const std::vector<const Tensor*>& bindings,
                             std::vector<Tensor>& outputs);

}  // namespace ge
