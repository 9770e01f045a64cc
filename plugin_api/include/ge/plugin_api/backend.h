#pragma once
/// The backend a backend plugin implements: which nodes it runs, how it prepares their
/// kernels (and in which storage formats), and its device (ge/plugin_api/device.h: memory, streams
/// and events; ge/plugin_api/stream.h, ge/plugin_api/event.h, ge/plugin_api/task.h).

#include <span>
#include <string>
#include <vector>

#include "ge/plugin_api/device.h"
#include "ge/plugin_api/event.h"
#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"
#include "ge/precision.h"
#include "ge/status.h"
#include "ge/plugin_api/stream.h"
#include "ge/plugin_api/task.h"

namespace ge {

/// How a backend's kernel for one node handles tensor storage formats (GE's "format":
/// TensorDesc::format). The layout-assignment pass asks this to keep data in a
/// backend's blocked format between the ops that prefer it.
struct FormatCapability {
  /// Non-plain formats input i / output i may take, most preferred first; a missing or
  /// empty entry means plain only. Plain is always accepted.
  std::vector<std::vector<std::string>> inputs, outputs;
  /// The kernel is elementwise over its operands: it runs in any format provided every
  /// operand with the output's shape shares the output's format and every other operand
  /// holds a single element.
  bool format_agnostic = false;
};

/// A hint the per-op executor puts on the nodes of a plan made for an input-shape
/// signature seen once so far (an int attribute, 1): the kernel may never run for these
/// shapes again, so a backend should prefer one that is cheap to prepare over one that
/// pays a shape-specific weight transform to run faster (the cpu backend: no Winograd).
/// A signature that comes back is compiled without it.
inline constexpr const char* kTransientPlanAttribute = "_ge_transient_plan";

/// A backend: what it runs, how to prepare kernels, and its device.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Whether this backend can run `node` with its current input/output descs. On false,
  /// `reason` says why (op, dtype).
  virtual bool supports(const Node& node, std::string* reason) const = 0;
  /// Prepares a kernel for `node`, whose input/output descs are static. Initializer
  /// inputs expose their data through Value::constant().
  virtual Result<PreparedKernel> prepare(const Node& node) const = 0;
  virtual Device& device() = 0;
  /// The formats this backend's kernel for `node` (static descs) accepts and prefers.
  /// Default: plain only.
  virtual FormatCapability format_capability(const Node& node) const {
    (void)node;
    return {};
  }
  /// Sets how many threads one kernel may use (intra-op parallelism); 0 picks the
  /// machine's cores. Kernels prepared afterwards use it. Default: ignored.
  virtual Status set_intra_op_threads(int threads) {
    (void)threads;
    return Status::ok();
  }
  /// Sets the precision the heavy ops of float32 graphs compute in (ge/precision.h).
  /// Kernels prepared afterwards use it. Default: kFp32 only; any other is kUnsupported,
  /// which the session reports once and runs float32.
  virtual Status set_precision(Precision precision) {
    if (precision == Precision::kFp32) return Status::ok();
    return unsupported("backend '" + name() + "' has no " + std::string(precision_name(precision)) + " arithmetic");
  }
  /// Whether this backend's kernels compute values of `type` (float16, bfloat16) in that
  /// type. A backend that computes them in float32, rounding each kernel's output back,
  /// answers false: the widen_half_precision pass then runs whole regions of such values
  /// in float32 and rounds once where a region ends. Default: true.
  virtual bool has_native_arithmetic(DataType type) const {
    (void)type;
    return true;
  }
  /// SuperKernel (seed 001): one kernel that runs `tasks` — consecutive launches of one
  /// stream, each of a kernel this backend prepared — in order, at the cost of one launch.
  /// The result's own KernelArgs are unused: each inner task keeps its args, whose address
  /// arrays the caller keeps alive and may rewrite between launches (I/O refresh). A
  /// failing inner kernel makes the whole launch fail with its code. Default: kUnsupported.
  virtual Result<PreparedKernel> prepare_super_kernel(std::span<const KernelTask> tasks) const {
    (void)tasks;
    return unsupported("backend '" + name() + "' has no super kernels");
  }
};

}  // namespace ge
