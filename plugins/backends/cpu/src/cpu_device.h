#pragma once
/// The cpu backend's device: host memory (device addresses are host addresses), copies
/// are memcpy, streams run asynchronously on one worker pool per device.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "cpu_task_tracer.h"
#include "cpu_worker_pool.h"
#include "ge/plugin_api/backend.h"
#include "ge/plugin_options.h"

namespace ge {

/// How a CpuDevice runs its streams.
struct CpuDeviceOptions {
  /// Run every stream's tasks on the submitting thread inside submit() (for debugging).
  bool synchronous = false;
  /// Worker threads shared by all streams; 0: one per hardware thread.
  size_t threads = 0;

  /// Reads `synchronous` (bool) and `threads` (int >= 0) from a registry options table;
  /// other keys are ignored. A `threads` below zero is an error.
  static Result<CpuDeviceOptions> from_options(const PluginOptions& options);
};

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(CpuDeviceOptions options = {}) : options_(options) {}

  /// Replaces the options; an error once a stream exists (its pool is already running).
  Status configure(const CpuDeviceOptions& options);
  const CpuDeviceOptions& options() const { return options_; }

  std::string name() const override { return "cpu"; }
  bool host_accessible() const override { return true; }
  /// Aligned host memory; `alignment` must be a power of two. Zero bytes still give a
  /// distinct non-null address. Thread-safe.
  Result<void*> allocate(size_t bytes, size_t alignment = 64) override;
  /// Frees memory from allocate(); null is ignored.
  void deallocate(void* pointer) override;
  Status copy_to_device(void* device_destination, const void* host_source, size_t bytes) override;
  Status copy_to_host(void* host_destination, const void* device_source, size_t bytes) override;
  /// A CpuStream on this device's worker pool (started with the first stream). The
  /// stream keeps the pool alive, so it may outlive the device. Thread-safe.
  Result<std::unique_ptr<Stream>> create_stream() override;
  Result<std::unique_ptr<Event>> create_event() override;

  /// Records steady-clock times around every task its streams run; stream ids are their
  /// creation order on this device (0, 1, ...). Turning it on restarts the epoch.
  Status set_task_tracing(bool enabled) override;
  /// Every stream's records so far, stream by stream. Thread-safe; complete once the
  /// streams are synchronized.
  std::vector<TaskTraceRecord> take_task_trace() override;

 private:
  std::mutex mutex_;
  CpuDeviceOptions options_;
  std::shared_ptr<CpuWorkerPool> pool_;
  std::shared_ptr<CpuTaskTracer> tracer_ = std::make_shared<CpuTaskTracer>();  // shared with the streams
  bool streams_created_ = false;
};

}  // namespace ge
