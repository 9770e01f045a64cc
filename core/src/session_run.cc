// Session::run: routing a run's inputs to a pooled task-sink runner, a shape
// specialisation or the per-op executor, with allocation failures as errors (ge/session.h).
#include "ge/session.h"

#include <functional>
#include <mutex>
#include <new>

#include "ge/memory_limit.h"
#include "runtime_input_binding.h"

namespace ge {
namespace {

/// Runs `body`, turning a std::bad_alloc that escaped the checks before each allocation
/// (the system had less free memory than the limit) into an error: it never reaches the
/// user as an internal one.
template <typename Body>
Status guard_allocations(const TensorPool& pool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    const size_t limit = pool.memory_limit();
    return invalid_argument("out of memory during the run (" + format_bytes(pool.statistics().in_use_bytes) +
                            " in use, limit " + format_bytes(limit) +
                            "): the system has less free memory than the limit allows; set a lower one with "
                            "--memory-limit");
  }
}

/// A pooled runner for one run, back in the pool however the run ends.
class RunnerLease {
 public:
  RunnerLease(ModelRunner* runner, std::function<void(ModelRunner*)> release)
      : runner_(runner), release_(std::move(release)) {}
  ~RunnerLease() { release_(runner_); }
  RunnerLease(const RunnerLease&) = delete;
  RunnerLease& operator=(const RunnerLease&) = delete;
  ModelRunner& operator*() const { return *runner_; }

 private:
  ModelRunner* runner_;
  std::function<void(ModelRunner*)> release_;
};

/// kCancelled when the run's token is tripped before a task-sink execute of `graph`.
Status check_cancelled(const RunOptions& options, const Graph& graph) {
  if (options.cancellation == nullptr || !options.cancellation->cancelled()) return Status::ok();
  return cancelled("the run was cancelled (its CancellationToken was tripped) before graph '" + graph.name() + "' ran");
}

/// Runs plain-tensor `inputs` (already checked against its runtime inputs) on `runner`.
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

}  // namespace

Status Session::run(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  return guard_allocations(*pool_, [&] { return run_unguarded(inputs, outputs, options); });
}

Status Session::run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) {
  return guard_allocations(*pool_, [&] { return run_values_unguarded(inputs, outputs, options); });
}

Status Session::per_op_unavailable(const Specialisation* found) const {
  if (found == nullptr || found->refusal.is_ok()) return per_op_unavailable_;
  return Status(per_op_unavailable_.code(),
                per_op_unavailable_.message() + "; these input shapes do not: " + found->refusal.message());
}

Status Session::run_unguarded(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  NamedValues values;
  values.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) values.emplace_back(name, RuntimeValue::of(tensor));
  if (!runner_) {
    std::lock_guard<std::mutex> serial(serial_mutex_);
    restore_precision();  // kernels prepared in the run (specialisations, per op) are of it
    GE_ASSIGN_OR_RETURN(Specialisation * found, specialised(values));
    if (found != nullptr && found->runner) {
      GE_RETURN_IF_ERROR(check_cancelled(options, found->runner->graph()));
      return found->runner->execute(inputs, outputs, options);
    }
    if (found != nullptr && found->executor) return found->executor->run(inputs, outputs, options);
    if (!executor_) return per_op_unavailable(found);
    return executor_->run(inputs, outputs, options);
  }
  // The executor's checks and messages; the runner then binds by name again.
  GE_RETURN_IF_ERROR(bind_runtime_inputs(runner_->graph().runtime_inputs(), values).status());
  GE_ASSIGN_OR_RETURN(ModelRunner * runner, acquire_runner());
  const RunnerLease lease(runner, [this](ModelRunner* r) { release_runner(r); });
  GE_RETURN_IF_ERROR(check_cancelled(options, runner->graph()));
  return (*lease).execute(inputs, outputs, options);
}

Status Session::run_values_unguarded(const NamedValues& inputs, std::vector<RuntimeValue>& outputs,
                                     const RunOptions& options) {
  if (runner_) {
    GE_RETURN_IF_ERROR(bind_runtime_inputs(runner_->graph().runtime_inputs(), inputs).status());
    GE_ASSIGN_OR_RETURN(ModelRunner * runner, acquire_runner());
    const RunnerLease lease(runner, [this](ModelRunner* r) { release_runner(r); });
    return execute_values(*lease, inputs, outputs, options);
  }
  std::lock_guard<std::mutex> serial(serial_mutex_);
  restore_precision();  // kernels prepared in the run (specialisations, per op) are of it
  GE_ASSIGN_OR_RETURN(Specialisation * found, specialised(inputs));
  if (found != nullptr && found->executor) return found->executor->run_values(inputs, outputs, options);
  if (found == nullptr || !found->runner) {
    return executor_ ? executor_->run_values(inputs, outputs, options) : per_op_unavailable(found);
  }
  GE_RETURN_IF_ERROR(bind_runtime_inputs(found->runner->graph().runtime_inputs(), inputs).status());
  return execute_values(*found->runner, inputs, outputs, options);
}

}  // namespace ge
