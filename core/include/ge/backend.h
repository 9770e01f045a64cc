#pragma once
/// Executor-facing interfaces a backend plugin implements: Backend (capabilities and
/// kernels), Device (memory, streams, events), Stream (ordered task queue), Event.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ge/graph.h"
#include "ge/kernel.h"
#include "ge/status.h"

namespace ge {

class Event;

/// Run a prepared kernel with the given arguments.
struct KernelTask {
  KernelFunction function = nullptr;
  KernelArgs args;
  const char* name = "";  ///< static lifetime (owned by the PreparedKernel's holder)
  /// The node it runs ("Gather 'idx'"), for error messages; null when none. Lives as long
  /// as the task list.
  const char* node = nullptr;
};
/// Copy `bytes` between device addresses (host addresses on host-memory devices).
struct MemcpyTask {
  void* destination = nullptr;
  const void* source = nullptr;
  size_t bytes = 0;
};
struct EventRecordTask { Event* event = nullptr; };
struct EventWaitTask { Event* event = nullptr; };
/// Set `bytes` at a device address to `value` (atomic clean zeroes the memory kernels
/// accumulate into with these: ZeroedMemory).
struct MemsetTask {
  void* destination = nullptr;
  size_t bytes = 0;
  uint8_t value = 0;
};

/// The unit a stream runs; a compiled model is a list of these per stream.
using Task = std::variant<KernelTask, MemcpyTask, EventRecordTask, EventWaitTask, MemsetTask>;

/// A cross-stream synchronisation point.
class Event {
 public:
  virtual ~Event() = default;
  /// Blocks the host until the last recorded point has been reached.
  virtual Status synchronize() = 0;
};

/// An ordered queue of tasks.
class Stream {
 public:
  virtual ~Stream() = default;
  /// Enqueues `tasks` in order. May run them before returning (synchronous backends).
  /// A failing kernel makes this or the next synchronize() return its error.
  virtual Status submit(std::span<const Task> tasks) = 0;
  /// Waits for every submitted task; returns the first error since the last call.
  virtual Status synchronize() = 0;
  /// Runs `tasks` and waits for them and everything submitted before: submit() then
  /// synchronize(). A backend may run them on the calling thread when the stream is
  /// idle (the per-op executor dispatches one node at a time this way).
  virtual Status run(std::span<const Task> tasks) {
    GE_RETURN_IF_ERROR(submit(tasks));
    return synchronize();
  }
};

/// One task as a traced device ran it. Times are nanoseconds since the device's trace
/// epoch: wall time (steady clock) on real devices, simulated time when the device's
/// simulated_time() is true.
struct TaskTraceRecord {
  int stream = 0;    ///< the device's id of the stream (stable for the stream's life)
  std::string name;  ///< the kernel name, "memcpy", "memset", "event_record" or "event_wait"
  double start_ns = 0, end_ns = 0;
};

/// A device's memory, streams and events.
class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  /// True when device addresses are host addresses (zero-copy host I/O).
  virtual bool host_accessible() const = 0;
  virtual Result<void*> allocate(size_t bytes, size_t alignment = 64) = 0;
  virtual void deallocate(void* pointer) = 0;
  virtual Status copy_to_device(void* device_destination, const void* host_source, size_t bytes) = 0;
  virtual Status copy_to_host(void* host_destination, const void* device_source, size_t bytes) = 0;
  virtual Result<std::unique_ptr<Stream>> create_stream() = 0;
  virtual Result<std::unique_ptr<Event>> create_event() = 0;

  /// Starts (true) or stops (false) recording every task its streams run; starting drops
  /// what was recorded before. Call with no task in flight. Default: kUnsupported.
  virtual Status set_task_tracing(bool enabled) {
    if (!enabled) return Status::ok();
    return unsupported("device '" + name() + "' cannot trace its tasks");
  }
  /// Returns the tasks recorded since tracing started or the last call, and forgets them.
  /// Complete only after the host synchronized the streams. Default: none.
  virtual std::vector<TaskTraceRecord> take_task_trace() { return {}; }
  /// True when trace times are the device's simulated clock rather than wall time.
  virtual bool simulated_time() const { return false; }
  /// Tasks one stream's queue holds (the hardware submission queue depth); 0: unbounded.
  /// Stream capture splits captured work into cascade lists that fit it. Default: 0.
  virtual size_t queue_depth() const { return 0; }
};

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
