// Session's pool of task-sink runners: one per concurrent run on a host-accessible
// device, siblings loaded from the first one's compiled plans (ge/session.h).
#include "ge/session.h"

#include <memory>
#include <mutex>


namespace ge {

void Session::set_runner(std::unique_ptr<ModelRunner> runner, Backend& backend) {
  runner_ = std::move(runner);
  backend_ = &backend;
  idle_runners_ = {runner_.get()};
}

size_t Session::runner_count() const {
  std::lock_guard<std::mutex> lock(runners_mutex_);
  return runner_ ? 1 + sibling_runners_.size() : 0;
}

Result<ModelRunner*> Session::acquire_runner() {
  {
    std::unique_lock<std::mutex> lock(runners_mutex_);
    // A device with memory of its own (npu_sim) keeps one runner: its runs take turns.
    if (!backend_->device().host_accessible()) runner_idle_.wait(lock, [this] { return !idle_runners_.empty(); });
    if (!idle_runners_.empty()) {
      ModelRunner* runner = idle_runners_.back();
      idle_runners_.pop_back();
      return runner;
    }
  }
  // Every runner is busy: a sibling from the same graph and stored plan. Prepacked weights
  // are shared (and read in place on a host-accessible device); the arena is its own.
  const CompiledPlans plans = runner_->compiled_plans();
  ModelRunnerOptions options;
  options.precompiled = &plans;
  options.memory_plan_options.ops = ops_.get();
  options.output_pool = pool_;
  restore_precision();  // the sibling's kernels must be the stored plan's
  GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> sibling, ModelRunner::load(runner_->graph(), *backend_, options));
  std::lock_guard<std::mutex> lock(runners_mutex_);
  sibling_runners_.push_back(std::move(sibling));
  return sibling_runners_.back().get();
}

void Session::release_runner(ModelRunner* runner) {
  {
    std::lock_guard<std::mutex> lock(runners_mutex_);
    idle_runners_.push_back(runner);
  }
  runner_idle_.notify_one();
}

}  // namespace ge
