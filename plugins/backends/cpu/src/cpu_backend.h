#pragma once
/// The "cpu" backend: oneDNN fast paths (plugins/backends/cpu/dnnl) where they take a
/// node, the reference kernels of ge_reference_kernels for everything else, on a CpuDevice.

#include <atomic>
#include <string>
#include <vector>

#include "cpu_device.h"
#include "dnnl_kernels.h"
#include "ge/plugin_api/backend.h"
#include "ge/plugin_options.h"
#include "ge/precision.h"

namespace ge {

/// How the cpu backend picks and configures its kernels: the registry's [plugin.options]
/// (cpu_plugin.cc), and a tool's settings for the plugin (PluginHost::set_plugin_option,
/// ge-run --autofusion). The environment overrides three of them, for debugging:
/// GE_AUTOFUSE_MODE (autofuse_mode), GE_CPU_WINOGRAD=off (winograd) and GE_CPU_INT8
/// (int8), read when a kernel is prepared.
struct CpuKernelSettings {
  /// The kernel providers prepare() asks, in order; the first that takes a node gives its
  /// kernel. "autofuse": autofusion's generated kernels; "dnnl": oneDNN and GE's
  /// Winograd fast paths; "reference": the reference kernels, which take every node the
  /// backend supports and must come last (registry option `kernel_providers`).
  std::vector<std::string> providers = {"autofuse", "dnnl", "reference"};
  /// Winograd convolutions (`winograd`, default true).
  bool winograd = true;
  /// The int8 routes (`int8`: "auto", "f32" or "off").
  cpu_dnnl::Options::Int8 int8 = cpu_dnnl::Options::Int8::kAuto;
  /// How autofusion's fused groups run (`autofuse_mode`: "codegen" or "interpret"; empty:
  /// each node's own mode).
  std::string autofuse_mode;

  /// The settings `options` give, checked: an unknown provider, a provider twice, one
  /// after "reference" or a value out of its set is an error naming the option.
  static Result<CpuKernelSettings> from_options(const PluginOptions& options);
  /// These settings with the environment's overrides applied.
  CpuKernelSettings with_environment() const;
};

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  /// Whether a kernel exists for the node's op and input dtype; `reason` names the
  /// node, op, dtype and backend otherwise.
  bool supports(const Node& node, std::string* reason) const override;
  /// The node's fast kernel when one takes it, else its reference kernel (see
  /// reference_kernels::prepare). Never throws.
  Result<PreparedKernel> prepare(const Node& node) const override;
  Device& device() override { return device_; }
  /// Blocked activations for convolutions and pooling; elementwise kernels run any
  /// format (see reference_kernels::is_format_agnostic).
  FormatCapability format_capability(const Node& node) const override;
  /// Threads of each fast kernel prepared afterwards; 0: the machine's cores.
  Status set_intra_op_threads(int threads) override;
  /// What the fast kernels prepared afterwards compute float32 heavy ops in. kBf16 and
  /// kMixed need bfloat16 arithmetic (oneDNN's avx512_core_bf16, which ONEDNN_MAX_CPU_ISA
  /// may cap): without it kUnsupported, the precision unchanged.
  Status set_precision(Precision precision) override;
  Precision precision() const { return precision_.load(); }
  /// float16: false (its fast paths and reference kernels compute it in float32 and round
  /// each output). bfloat16: whether the fast paths compute it natively (this CPU's
  /// bfloat16 arithmetic, with the oneDNN provider on).
  bool has_native_arithmetic(DataType type) const override;
  /// Whether this CPU, as oneDNN dispatches on it, has bfloat16 arithmetic.
  static bool has_bfloat16_arithmetic();
  /// A trampoline that calls the span's kernels in order: one dispatch for the span.
  Result<PreparedKernel> prepare_super_kernel(std::span<const KernelTask> tasks) const override;
  int intra_op_threads() const { return intra_op_threads_.load(); }
  /// Whether prepare() tries the oneDNN fast paths (tests turn them off to compare).
  void set_fast_paths(bool enabled) { fast_paths_ = enabled; }
  /// The kernel settings (set once, at registration, before any kernel is prepared).
  void set_kernel_settings(CpuKernelSettings settings) { settings_ = std::move(settings); }
  const CpuKernelSettings& kernel_settings() const { return settings_; }

 private:
  CpuDevice device_;
  std::atomic<int> intra_op_threads_{default_threads()};
  std::atomic<Precision> precision_{Precision::kFp32};
  bool fast_paths_ = true;
  CpuKernelSettings settings_;
  static int default_threads();
  /// What cpu_dnnl::prepare is given: the threads and precision set now, and `settings`.
  cpu_dnnl::Options fast_options(const CpuKernelSettings& settings) const {
    cpu_dnnl::Options options{intra_op_threads(), precision()};
    options.winograd = settings.winograd;
    options.int8 = settings.int8;
    return options;
  }
};

}  // namespace ge
