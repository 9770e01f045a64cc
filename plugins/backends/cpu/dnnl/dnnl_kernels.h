#pragma once
/// The cpu backend's oneDNN fast paths: Conv (grouped, depthwise, blocked formats, fused
/// bias/activation/residual), MatMul, Gemm and pooling. Each is prepared once per node
/// (primitive created, constant weights reordered into oneDNN's preferred format) and
/// launched under the kernel ABI: a launch binds addresses and executes, nothing else.
/// The reference kernel library stays the oracle and the fallback for every node a fast
/// path does not take.

#include <optional>
#include <string_view>

#include "ge/graph.h"
#include "ge/plugin_api/backend.h"
#include "ge/plugin_api/kernel.h"
#include "ge/precision.h"
#include "ge/status.h"

namespace ge::cpu_dnnl {

/// Thread policy (one for the process): each fast kernel runs on the calling thread plus
/// an OpenMP team, `threads` in all; fast kernels that run at the same moment (several
/// streams, several sessions) split that budget between them, so streams times intra-op
/// threads stay within it. Reference kernels (the small ops) run on the calling thread.
struct Options {
  int threads = 1;  ///< intra-op threads of every kernel prepared (>= 1)
  /// What the heavy float32 ops compute in (Backend::set_precision); kBf16 and kMixed
  /// only where the CPU has bfloat16 arithmetic (the backend checks).
  Precision precision = Precision::kFp32;
  /// Winograd convolutions, GE's AVX2 one and oneDNN's (the backend's `winograd` setting).
  bool winograd = true;
  /// The int8 routes (the backend's `int8` setting): kAuto, VNNI where the CPU has it and
  /// the exact float32 route elsewhere; kFloat32, that route only; kOff, neither (the
  /// reference kernels run the integer ops).
  enum class Int8 : uint8_t { kAuto, kFloat32, kOff };
  Int8 int8 = Int8::kAuto;
  /// For a plan whose shapes may not come back (kTransientPlanAttribute): a small op
  /// that prepacks nothing is left to the reference kernel, which runs it in less time
  /// than creating its primitive takes. Only where the reference kernel can run the node
  /// (plain storage) about as fast (not convolutions or pools). Winograd convolutions only
  /// where another kernel already made their weight transform (shared, see prepack).
  bool transient = false;
};

/// The fast kernel for `node` (static descs, already accepted by the reference kernel's
/// prepare step), or nullopt when no fast path takes it (op, dtype, attribute or a
/// primitive oneDNN cannot create). Never throws.
std::optional<PreparedKernel> prepare(const Node& node, std::string_view backend_name, const Options& options);

/// The storage formats the fast path of `node` runs natively (blocked activations for
/// convolutions and pooling, channels-last 8-bit activations for int8 convolutions).
/// Plain only for nodes without a fast path.
FormatCapability format_capability(const Node& node, const Options& options = {});

/// The channel block of the blocked activation formats on this CPU (nChw16c with
/// AVX-512, nChw8c otherwise): what oneDNN's fastest kernels use.
int64_t native_block();

}  // namespace ge::cpu_dnnl
