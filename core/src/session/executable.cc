// What the ways of running share (executable.h): plain tensors as values, the inputs as
// a shape signature, the cancellation check before a task-sink execute, and a task-sink
// execute of values.
#include "executable.h"

#include "../executor/runtime_input_binding.h"

namespace ge::detail {

NamedValues as_values(const NamedTensors& inputs) {
  NamedValues values;
  values.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) values.emplace_back(name, RuntimeValue::of(tensor));
  return values;
}

Result<std::optional<std::vector<const Tensor*>>> signature_tensors(const Graph& graph, const NamedValues& inputs) {
  GE_ASSIGN_OR_RETURN(std::vector<const RuntimeValue*> bound, bind_runtime_inputs(graph.runtime_inputs(), inputs));
  std::vector<const Tensor*> tensors;
  tensors.reserve(bound.size());
  for (const RuntimeValue* value : bound) {
    if (!value->is_tensor()) return std::optional<std::vector<const Tensor*>>();
    tensors.push_back(&value->tensor);
  }
  return std::optional<std::vector<const Tensor*>>(std::move(tensors));
}

Status check_cancelled(const RunOptions& options, const Graph& graph) {
  if (options.cancellation == nullptr || !options.cancellation->cancelled()) return Status::ok();
  return cancelled("the run was cancelled (its CancellationToken was tripped) before graph '" + graph.name() + "' ran");
}

Status execute_values(ModelRunner& runner, const NamedValues& inputs, std::vector<RuntimeValue>& outputs,
                      const RunOptions& options) {
  GE_RETURN_IF_ERROR(check_cancelled(options, runner.graph()));
  NamedTensors tensors;
  tensors.reserve(inputs.size());
  for (const auto& [name, value] : inputs) tensors.emplace_back(name, value.tensor);  // all plain tensors
  std::vector<Tensor> results;
  GE_RETURN_IF_ERROR(runner.execute(tensors, results, options));
  outputs.clear();
  for (Tensor& tensor : results) outputs.push_back(RuntimeValue::of(std::move(tensor)));
  return Status::ok();
}

}  // namespace ge::detail
