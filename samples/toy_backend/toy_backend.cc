// The "toy" backend plugin: the toy accelerator's device (toy_device.h) and its naive
// float32 kernels (toy_kernels.h). Registry option: memory_mib, the device memory (256).
#include <exception>
#include <memory>
#include <new>
#include <string>

#include <ge/plugin_api/backend.h>
#include <ge/plugin_api/plugin.h>

#include "toy_device.h"
#include "toy_kernels.h"

namespace {

class ToyBackend final : public ge::Backend {
 public:
  explicit ToyBackend(size_t memory_bytes) : device_(memory_bytes) {}
  std::string name() const override { return "toy"; }
  bool supports(const ge::Node& node, std::string* reason) const override {
    try {
      return toy::toy_supports(node, reason);
    } catch (const std::exception& error) {
      if (reason != nullptr) *reason = std::string("toy backend: ") + error.what();
      return false;
    }
  }
  ge::Result<ge::PreparedKernel> prepare(const ge::Node& node) const override {
    try {
      return toy::prepare_toy_kernel(node, device_);
    } catch (const std::bad_alloc&) {
      return ge::internal_error(node.describe() + ": toy backend ran out of host memory preparing the kernel");
    } catch (const std::exception& error) {
      return ge::internal_error(node.describe() + ": toy backend failed to prepare the kernel: " + error.what());
    }
  }
  ge::Device& device() override { return device_; }

 private:
  toy::ToyDevice device_;
};

ge::Status register_toy_backend(ge::Registrar& registrar) {
  try {
    const int64_t memory_mib = registrar.options().get_int("memory_mib", 256);
    if (memory_mib <= 0 || memory_mib > (int64_t{1} << 20)) {
      return ge::invalid_argument("toy backend: option memory_mib must be in 1..1048576, got " +
                                  std::to_string(memory_mib));
    }
    return registrar.add_backend(std::make_shared<ToyBackend>(static_cast<size_t>(memory_mib) << 20));
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("toy backend: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("toy", "0.1.0", register_toy_backend)
