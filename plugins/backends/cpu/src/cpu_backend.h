#pragma once
/// The "cpu" backend: the reference kernels of ge_cpu_kernels on a CpuDevice.

#include <string>

#include "cpu_device.h"
#include "ge/backend.h"

namespace ge {

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  /// Whether a kernel exists for the node's op and input dtype; `reason` names the
  /// node, op, dtype and backend otherwise.
  bool supports(const Node& node, std::string* reason) const override;
  /// The node's reference kernel (see cpu_kernels::prepare). Never throws.
  Result<PreparedKernel> prepare(const Node& node) const override;
  Device& device() override { return device_; }

 private:
  CpuDevice device_;
};

}  // namespace ge
