// The per-op executor as a way of running (executable.h): runs take turns, each with the
// session's precision set on the backend (kernels may be prepared in the run).
#include <mutex>

#include "executable.h"

namespace ge::detail {
namespace {

class PerOpExecutable final : public Executable {
 public:
  PerOpExecutable(std::unique_ptr<Executor> executor, RestorePrecision restore)
      : executor_(std::move(executor)), restore_(std::move(restore)) {}

  Status run(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) override {
    std::lock_guard<std::mutex> serial(mutex_);
    restore_();
    return executor_->run_values(inputs, outputs, options);
  }
  Status run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) override {
    std::lock_guard<std::mutex> serial(mutex_);
    restore_();
    return executor_->run(inputs, outputs, options);
  }
  const Graph& graph() const override { return executor_->graph(); }
  std::string describe() const override {
    const PartitionStatistics stats = executor_->partition_statistics();
    return "per op: " + std::to_string(stats.clusters) + " cluster(s) in the task sink, " +
           std::to_string(stats.per_op_nodes) + " node(s) run per op";
  }
  const Executor* executor() const override { return executor_.get(); }

 private:
  std::unique_ptr<Executor> executor_;
  RestorePrecision restore_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<Executable> per_op_executable(std::unique_ptr<Executor> executor, RestorePrecision restore) {
  return std::make_unique<PerOpExecutable>(std::move(executor), std::move(restore));
}

}  // namespace ge::detail
