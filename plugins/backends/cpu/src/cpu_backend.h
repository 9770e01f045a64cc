#pragma once
/// The "cpu" backend: oneDNN fast paths (plugins/backends/cpu/dnnl) where they take a
/// node, the reference kernels of ge_cpu_kernels for everything else, on a CpuDevice.

#include <atomic>
#include <string>

#include "cpu_device.h"
#include "dnnl_kernels.h"
#include "ge/plugin_api/backend.h"
#include "ge/precision.h"

namespace ge {

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  /// Whether a kernel exists for the node's op and input dtype; `reason` names the
  /// node, op, dtype and backend otherwise.
  bool supports(const Node& node, std::string* reason) const override;
  /// The node's fast kernel when one takes it, else its reference kernel (see
  /// cpu_kernels::prepare). Never throws.
  Result<PreparedKernel> prepare(const Node& node) const override;
  Device& device() override { return device_; }
  /// Blocked activations for convolutions and pooling; elementwise kernels run any
  /// format (see cpu_kernels::is_format_agnostic).
  FormatCapability format_capability(const Node& node) const override;
  /// Threads of each fast kernel prepared afterwards; 0: the machine's cores.
  Status set_intra_op_threads(int threads) override;
  /// What the fast kernels prepared afterwards compute float32 heavy ops in. kBf16 and
  /// kMixed need bfloat16 arithmetic (oneDNN's avx512_core_bf16, which ONEDNN_MAX_CPU_ISA
  /// may cap): without it kUnsupported, the precision unchanged.
  Status set_precision(Precision precision) override;
  Precision precision() const { return precision_.load(); }
  /// Whether this CPU, as oneDNN dispatches on it, has bfloat16 arithmetic.
  static bool has_bfloat16_arithmetic();
  /// A trampoline that calls the span's kernels in order: one dispatch for the span.
  Result<PreparedKernel> prepare_super_kernel(std::span<const KernelTask> tasks) const override;
  int intra_op_threads() const { return intra_op_threads_.load(); }
  /// Whether prepare() tries the oneDNN fast paths (tests turn them off to compare).
  void set_fast_paths(bool enabled) { fast_paths_ = enabled; }

 private:
  CpuDevice device_;
  std::atomic<int> intra_op_threads_{default_threads()};
  std::atomic<Precision> precision_{Precision::kFp32};
  bool fast_paths_ = true;
  static int default_threads();
  /// What cpu_dnnl::prepare is given: the threads and precision set now.
  cpu_dnnl::Options fast_options() const { return {intra_op_threads(), precision()}; }
};

}  // namespace ge
