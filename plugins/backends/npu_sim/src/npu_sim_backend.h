#pragma once
/// The "npu_sim" backend: the reference CPU kernels (ge_reference_kernels) wrapped so that the
/// simulated device can bounds-check every address of every launch and cost it.

#include <memory>
#include <mutex>
#include <string>

#include "ge/plugin_api/backend.h"
#include "npu_sim_device.h"

namespace ge {

class NpuSimBackend final : public Backend {
 public:
  explicit NpuSimBackend(NpuSimConfig config = {}) : config_(config) {}
  std::string name() const override { return "npu_sim"; }
  bool supports(const Node& node, std::string* reason) const override;
  /// The node's reference kernel behind npu_sim_kernel_entry, with the byte size of
  /// every input and output. Never throws.
  Result<PreparedKernel> prepare(const Node& node) const override;
  /// The simulated device, created on first use: compiling for npu_sim (supports,
  /// prepare, format_capability) never creates it (ge-compile needs no device).
  Device& device() override { return sim_device(); }
  /// One launch running npu_sim kernels back to back (NpuSimKernelParams::span): the
  /// device charges one launch_ns for the span instead of one per kernel.
  Result<PreparedKernel> prepare_super_kernel(std::span<const KernelTask> tasks) const override;
  NpuSimDevice& sim_device();
  /// Whether device() or sim_device() has created the simulated device yet.
  bool device_created() const;

 private:
  NpuSimConfig config_;
  mutable std::mutex mutex_;
  std::unique_ptr<NpuSimDevice> device_;
};

}  // namespace ge
