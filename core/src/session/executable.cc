// What every way of running shares (executable.h): plain-tensor runs through run(), the
// cancellation check before a task-sink execute, and a task-sink execute of values.
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

Status Executable::run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  std::vector<RuntimeValue> results;
  GE_RETURN_IF_ERROR(run(as_values(inputs), results, options));
  outputs.clear();
  outputs.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].is_tensor()) {
      const Value* output = i < graph().outputs().size() ? graph().outputs()[i] : nullptr;
      return unsupported("output '" + (output != nullptr ? output->name() : std::to_string(i)) + "' is " +
                         results[i].to_string() + ", not a tensor; use run_values()");
    }
    outputs.push_back(std::move(results[i].tensor));
  }
  return Status::ok();
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
