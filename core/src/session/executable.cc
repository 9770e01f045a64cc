// What every way of running shares (executable.h): plain-tensor runs through run(), the
// cancellation check before a task-sink execute, and a task-sink execute of values.
#include "executable.h"

namespace ge::detail {

Status Executable::run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  NamedValues values;
  values.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) values.emplace_back(name, RuntimeValue::of(tensor));
  std::vector<RuntimeValue> results;
  GE_RETURN_IF_ERROR(run(values, results, options));
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
