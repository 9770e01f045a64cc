// A model file's dynamic gears as a way of running (executable.h): static plans picked by
// the exact input shapes, in front of the way the model itself runs.
#include <atomic>
#include <mutex>

#include "executable.h"
#include "../executor/runtime_input_binding.h"

namespace ge::detail {
namespace {

class GearedExecutable final : public Executable {
 public:
  GearedExecutable(std::unique_ptr<Executable> inner,
                   std::unordered_map<std::string, std::unique_ptr<ModelRunner>> gears)
      : inner_(std::move(inner)), gears_(std::move(gears)) {}

  Status run(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) override {
    GE_ASSIGN_OR_RETURN(ModelRunner * gear, find(inputs));
    if (gear == nullptr) return inner_->run(inputs, outputs, options);
    std::lock_guard<std::mutex> serial(mutex_);
    GE_RETURN_IF_ERROR(bind_runtime_inputs(gear->graph().runtime_inputs(), inputs).status());
    return execute_values(*gear, inputs, outputs, options);
  }

  Status run_tensors(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) override {
    const NamedValues values = as_values(inputs);
    GE_ASSIGN_OR_RETURN(ModelRunner * gear, find(values));
    if (gear == nullptr) return inner_->run_tensors(inputs, outputs, options);
    std::lock_guard<std::mutex> serial(mutex_);
    GE_RETURN_IF_ERROR(check_cancelled(options, gear->graph()));
    return gear->execute(inputs, outputs, options);
  }

  const Graph& graph() const override { return inner_->graph(); }
  std::string describe() const override {
    return std::to_string(gears_.size()) + " dynamic gear(s) in front of " + inner_->describe();
  }
  const ModelRunner* runner() const override { return inner_->runner(); }
  size_t runner_count() const override { return inner_->runner_count(); }
  const Executor* executor() const override { return inner_->executor(); }
  const SpecialisationCache* specialisations() const override { return inner_->specialisations(); }
  size_t gear_count() const override { return gears_.size(); }
  uint64_t gear_hits() const override { return hits_.load(); }

 private:
  /// The gear for these inputs' exact shapes, or null (the inner executable runs them).
  Result<ModelRunner*> find(const NamedValues& inputs) {
    // The model's checks and messages (dtypes, static and named dims) come first.
    GE_ASSIGN_OR_RETURN(std::optional<std::vector<const Tensor*>> tensors, signature_tensors(graph(), inputs));
    if (!tensors) return static_cast<ModelRunner*>(nullptr);
    auto gear = gears_.find(SpecialisationCache::key_of(*tensors));
    if (gear == gears_.end()) return static_cast<ModelRunner*>(nullptr);
    ++hits_;
    return gear->second.get();
  }

  std::unique_ptr<Executable> inner_;
  std::unordered_map<std::string, std::unique_ptr<ModelRunner>> gears_;
  std::mutex mutex_;  // a gear's runner runs one run at a time
  std::atomic<uint64_t> hits_{0};
};

}  // namespace

std::unique_ptr<Executable> geared_executable(std::unique_ptr<Executable> inner,
                                              std::unordered_map<std::string, std::unique_ptr<ModelRunner>> gears) {
  return std::make_unique<GearedExecutable>(std::move(inner), std::move(gears));
}

}  // namespace ge::detail
