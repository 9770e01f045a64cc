// Shape specialisation as a way of running (executable.h): a graph with dynamic input
// dims compiled per input-shape signature (ge/specialisation_cache.h), the per-op
// executor for signatures that do not compile to the task sink. Runs take turns.
#include <mutex>

#include "executable.h"
#include "../executor/runtime_input_binding.h"

namespace ge::detail {
namespace {

class SpecialisingExecutable final : public Executable {
 public:
  SpecialisingExecutable(std::unique_ptr<SpecialisationCache> cache, std::unique_ptr<Executor> fallback,
                         std::unique_ptr<Graph> graph, Status unavailable, RestorePrecision restore)
      : cache_(std::move(cache)),
        fallback_(std::move(fallback)),
        graph_(std::move(graph)),
        unavailable_(std::move(unavailable)),
        restore_(std::move(restore)) {}

  Status run(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) override {
    std::lock_guard<std::mutex> serial(mutex_);
    restore_();  // kernels prepared in the run (specialisations, per op) are of it
    GE_ASSIGN_OR_RETURN(Specialisation * found, specialised(inputs));
    if (found != nullptr && found->executor) return found->executor->run_values(inputs, outputs, options);
    if (found == nullptr || !found->runner) {
      return fallback_ ? fallback_->run_values(inputs, outputs, options) : unavailable(found);
    }
    GE_RETURN_IF_ERROR(bind_runtime_inputs(found->runner->graph().runtime_inputs(), inputs).status());
    return execute_values(*found->runner, inputs, outputs, options);
  }

  Status run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) override {
    const NamedValues values = as_values(inputs);
    std::lock_guard<std::mutex> serial(mutex_);
    restore_();
    GE_ASSIGN_OR_RETURN(Specialisation * found, specialised(values));
    if (found != nullptr && found->runner) {
      GE_RETURN_IF_ERROR(check_cancelled(options, found->runner->graph()));
      return found->runner->execute(inputs, outputs, options);
    }
    if (found != nullptr && found->executor) return found->executor->run(inputs, outputs, options);
    if (!fallback_) return unavailable(found);
    return fallback_->run(inputs, outputs, options);
  }

  const Graph& graph() const override { return fallback_ ? fallback_->graph() : *graph_; }
  std::string describe() const override {
    return "specialised per input shape: " + std::to_string(cache_->statistics().entries) + " specialisation(s) held, " +
           (fallback_ ? "the per-op executor for the rest" : "no per-op executor (" + unavailable_.message() + ")");
  }
  const Executor* executor() const override { return last_executor_ != nullptr ? last_executor_ : fallback_.get(); }
  const SpecialisationCache* specialisations() const override { return cache_.get(); }

 private:
  /// The specialisation for these inputs' shapes; null for inputs that are not plain tensors.
  Result<Specialisation*> specialised(const NamedValues& inputs) {
    // The executor's checks and messages (dtypes, static and named dims) come first.
    GE_ASSIGN_OR_RETURN(std::optional<std::vector<const Tensor*>> tensors, signature_tensors(graph(), inputs));
    if (!tensors) return static_cast<Specialisation*>(nullptr);
    GE_ASSIGN_OR_RETURN(Specialisation * found, cache_->find(*tensors));
    last_executor_ = found != nullptr && found->executor ? found->executor.get() : fallback_.get();
    return found;
  }

  /// unavailable_, with why `found`'s signature did not compile to the task sink.
  Status unavailable(const Specialisation* found) const {
    if (found == nullptr || found->refusal.is_ok()) return unavailable_;
    return Status(unavailable_.code(), unavailable_.message() + "; these input shapes do not: " + found->refusal.message());
  }

  std::unique_ptr<SpecialisationCache> cache_;
  std::unique_ptr<Executor> fallback_;
  std::unique_ptr<Graph> graph_;  // without a fallback: the graph to report
  Status unavailable_;
  RestorePrecision restore_;
  std::mutex mutex_;
  const Executor* last_executor_ = nullptr;  // the executor of the latest run
};

}  // namespace

std::unique_ptr<Executable> specialising_executable(std::unique_ptr<SpecialisationCache> cache,
                                                    std::unique_ptr<Executor> fallback, std::unique_ptr<Graph> graph,
                                                    Status unavailable, RestorePrecision restore) {
  return std::make_unique<SpecialisingExecutable>(std::move(cache), std::move(fallback), std::move(graph),
                                                  std::move(unavailable), std::move(restore));
}

}  // namespace ge::detail
