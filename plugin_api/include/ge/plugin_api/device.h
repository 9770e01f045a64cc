#pragma once
/// A backend's device: its memory, streams and events, and the trace of the tasks it ran.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/event.h"
#include "ge/status.h"
#include "ge/plugin_api/stream.h"

namespace ge {

/// One task as a traced device ran it. Times are nanoseconds since the device's trace
/// epoch: wall time (steady clock) on real devices, simulated time when the device's
/// simulated_time() is true.
struct TaskTraceRecord {
  int stream = 0;    ///< the device's id of the stream (stable for the stream's life)
  std::string name;  ///< the kernel name, "memcpy", "memset", "event_record" or "event_wait"
  double start_ns = 0, end_ns = 0;
  std::string node;  ///< a kernel task's node ("Conv 'conv_29'", KernelTask::node); else empty
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

}  // namespace ge
