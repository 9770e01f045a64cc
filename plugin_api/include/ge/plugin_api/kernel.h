#pragma once
/// The kernel ABI. A kernel is prepared once per node with its static facts; launching it
/// is a call through a plain function pointer with an argument block of addresses and
/// pre-computed parameters. Launch never allocates, looks anything up or touches the
/// graph: this is what lets a loaded model be a flat task list whose address slots are
/// patched per execute, and what lets capture and the simulator replay launches.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ge {

/// The argument block of one launch. Addresses are device addresses of the backend.
struct KernelArgs {
  const void* const* inputs = nullptr;  ///< one per node input; null for omitted optionals
  void* const* outputs = nullptr;       ///< one per node output; null for omitted ones
  void* workspace = nullptr;            ///< `workspace_bytes` of scratch, or null
  const void* params = nullptr;         ///< the prepared parameter block
};

/// Returns 0 on success, a non-zero kernel-specific code on failure (e.g. an index out of
/// range found in data). Must be safe to call concurrently with different args.
using KernelFunction = int (*)(const KernelArgs& args);

/// Atomic clean (seed 002): memory that must hold zero bytes when a kernel starts,
/// because the kernel accumulates into it (scatters, sums) instead of writing every byte.
/// The runtime zeroes it before every launch (the task sink with one memset per group of
/// such blocks per run, the per-op executor per launch), so the kernel itself does not.
struct ZeroedMemory {
  uint64_t outputs = 0;    ///< bit k: output k (only outputs 0..63 can be declared)
  bool workspace = false;  ///< the whole workspace

  bool output(size_t k) const { return k < 64 && ((outputs >> k) & 1) != 0; }
  bool any() const { return outputs != 0 || workspace; }
  bool operator==(const ZeroedMemory&) const = default;
};

/// A kernel prepared for one node.
struct PreparedKernel {
  KernelFunction function = nullptr;
  /// Parameter block handed to every launch as KernelArgs::params. Its deleter lives in
  /// the backend plugin: release it before the plugin is unloaded.
  std::shared_ptr<const void> params;
  size_t workspace_bytes = 0;
  /// Bytes the kernel holds for its life besides its inputs, such as weights prepacked
  /// into another layout. The runtime counts them against the session's memory limit
  /// once the kernel is prepared (the kernel is released when they do not fit).
  size_t held_bytes = 0;
  std::string name;  ///< e.g. "cpu.Conv.direct" for logs and traces
  /// What the runtime zeroes before each launch. A wrapper kernel that launches this one
  /// on the same addresses passes it on.
  ZeroedMemory zeroed;
};

}  // namespace ge
