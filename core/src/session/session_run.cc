// Session::run: the run handed to the session's way of running (executable.h), with
// allocation failures as errors; and what the session reports of it (ge/session.h).
#include "ge/session.h"

#include <new>

#include "executable.h"
#include "../executor/output_binding.h"
#include "ge/memory_limit.h"

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

}  // namespace

Session::Session() = default;
Session::~Session() = default;

Status Session::run(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  if (options.bound_outputs == nullptr || options.bound_outputs->empty()) {
    return guard_allocations(*pool_, [&] { return executable_->run_tensors(inputs, outputs, options); });
  }
  const std::vector<Value*>& graph_outputs = graph().outputs();
  GE_ASSIGN_OR_RETURN(const std::vector<const Tensor*> bindings,
                      bind_outputs(graph_outputs, *options.bound_outputs, inputs));
  GE_RETURN_IF_ERROR(guard_allocations(*pool_, [&] { return executable_->run_tensors(inputs, outputs, options); }));
  // Whatever way of running wrote them elsewhere (a constant output, a cluster's, a
  // device without host memory): copied into the caller's buffers now.
  return deliver_bound_outputs(graph_outputs, bindings, outputs);
}

Status Session::run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) {
  return guard_allocations(*pool_, [&] { return executable_->run(inputs, outputs, options); });
}

void Session::set_runner(std::unique_ptr<ModelRunner> runner, Backend& backend) {
  executable_ = detail::sunk_executable(std::move(runner), backend, ops_, pool_, [this] { restore_precision(); });
}

const Graph& Session::graph() const { return executable_->graph(); }
const ModelRunner* Session::runner() const { return executable_->runner(); }
size_t Session::runner_count() const { return executable_->runner_count(); }
std::string Session::describe_execution() const { return executable_->describe(); }
const SpecialisationCache* Session::specialisations() const { return executable_->specialisations(); }
size_t Session::gear_count() const { return executable_->gear_count(); }
uint64_t Session::gear_hits() const { return executable_->gear_hits(); }

std::optional<PartitionStatistics> Session::partition_statistics() const {
  const Executor* executor = executable_->executor();
  return executor != nullptr ? std::optional<PartitionStatistics>(executor->partition_statistics()) : std::nullopt;
}

std::optional<KernelStatistics> Session::kernel_statistics() const {
  const Executor* executor = executable_->executor();
  return executor != nullptr ? std::optional<KernelStatistics>(executor->kernel_statistics()) : std::nullopt;
}

std::string Session::describe_partition() const {
  const Executor* executor = executable_->executor();
  return executor != nullptr ? executor->describe_partition() : std::string();
}

}  // namespace ge
