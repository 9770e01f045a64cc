// The task sink as a way of running (executable.h): a pool of runners, one per concurrent
// run on a host-accessible device, siblings loaded from the first one's compiled plans.
#include <condition_variable>
#include <mutex>

#include "executable.h"
#include "../executor/runtime_input_binding.h"

namespace ge::detail {
namespace {

class SunkExecutable final : public Executable {
 public:
  SunkExecutable(std::unique_ptr<ModelRunner> runner, Backend& backend, std::shared_ptr<const OpRegistry> ops,
                 std::shared_ptr<TensorPool> pool, RestorePrecision restore)
      : runner_(std::move(runner)),
        backend_(backend),
        ops_(std::move(ops)),
        pool_(std::move(pool)),
        restore_(std::move(restore)),
        idle_{runner_.get()} {}

  Status run(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) override {
    GE_RETURN_IF_ERROR(bind_runtime_inputs(runner_->graph().runtime_inputs(), inputs).status());
    GE_ASSIGN_OR_RETURN(Lease lease, acquire());
    return execute_values(*lease.runner, inputs, outputs, options);
  }

  Status run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) override {
    // The executor's checks and messages; the runner then binds by name again.
    const NamedValues values = as_values(inputs);
    GE_RETURN_IF_ERROR(bind_runtime_inputs(runner_->graph().runtime_inputs(), values).status());
    GE_ASSIGN_OR_RETURN(Lease lease, acquire());
    GE_RETURN_IF_ERROR(check_cancelled(options, lease.runner->graph()));
    return lease.runner->execute(inputs, outputs, options);
  }

  const Graph& graph() const override { return runner_->graph(); }
  std::string describe() const override {
    return "task sink: " + std::to_string(runner_count()) + " runner(s), " +
           std::to_string(std::max(runner_->stream_plan().stream_count, 1)) + " stream(s), feature map " +
           std::to_string(runner_->feature_map_bytes()) + " bytes";
  }
  const ModelRunner* runner() const override { return runner_.get(); }
  size_t runner_count() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return 1 + siblings_.size();
  }

 private:
  /// A runner for one run, back in the pool however the run ends.
  struct Lease {
    Lease(SunkExecutable* owner, ModelRunner* runner) : owner(owner), runner(runner) {}
    Lease(Lease&& other) noexcept : owner(std::exchange(other.owner, nullptr)), runner(other.runner) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (owner != nullptr) owner->release(runner);
    }
    SunkExecutable* owner;
    ModelRunner* runner;
  };

  /// An idle runner, loading a sibling when all are busy.
  Result<Lease> acquire() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A device with memory of its own (npu_sim) keeps one runner: its runs take turns.
      if (!backend_.device().host_accessible()) idle_cv_.wait(lock, [this] { return !idle_.empty(); });
      if (!idle_.empty()) {
        ModelRunner* runner = idle_.back();
        idle_.pop_back();
        return Lease(this, runner);
      }
    }
    // Every runner is busy: a sibling from the same graph and stored plan. Prepacked weights
    // are shared (and read in place on a host-accessible device); the arena is its own.
    const CompiledPlans plans = runner_->compiled_plans();
    ModelRunnerOptions options;
    options.precompiled = &plans;
    options.memory_plan_options.ops = ops_.get();
    options.output_pool = pool_;
    restore_();  // the sibling's kernels must be the stored plan's
    GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> sibling, ModelRunner::load(runner_->graph(), backend_, options));
    std::lock_guard<std::mutex> lock(mutex_);
    siblings_.push_back(std::move(sibling));
    return Lease(this, siblings_.back().get());
  }

  void release(ModelRunner* runner) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(runner);
    }
    idle_cv_.notify_one();
  }

  std::unique_ptr<ModelRunner> runner_;
  Backend& backend_;
  std::shared_ptr<const OpRegistry> ops_;
  std::shared_ptr<TensorPool> pool_;
  RestorePrecision restore_;
  mutable std::mutex mutex_;
  std::condition_variable idle_cv_;                      // a device without host-accessible memory: one runner
  std::vector<std::unique_ptr<ModelRunner>> siblings_;   // loaded when runs overlapped
  std::vector<ModelRunner*> idle_;                       // runner_ and siblings not running
};

}  // namespace

std::unique_ptr<Executable> sunk_executable(std::unique_ptr<ModelRunner> runner, Backend& backend,
                                            std::shared_ptr<const OpRegistry> ops, std::shared_ptr<TensorPool> pool,
                                            RestorePrecision restore) {
  return std::make_unique<SunkExecutable>(std::move(runner), backend, std::move(ops), std::move(pool),
                                          std::move(restore));
}

}  // namespace ge::detail
