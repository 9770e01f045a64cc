#pragma once
/// The toy accelerator's device: memory of its own, streams and events.
///
/// Device memory is one pool the host reaches only through copy_to_device/copy_to_host.
/// A device address is an offset into the pool moved into a range where no host pointer
/// lives (dereferencing one on the host faults), so GE cannot use it as a host pointer;
/// the device's own threads (kernels, copies) translate it with host_view().

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ge/plugin_api/backend.h>

namespace toy {

class ToyDevice final : public ge::Device {
 public:
  explicit ToyDevice(size_t capacity_bytes = size_t{256} << 20);

  std::string name() const override { return "toy"; }
  bool host_accessible() const override { return false; }
  /// First fit in the pool; kInvalidArgument when the request does not fit.
  ge::Result<void*> allocate(size_t bytes, size_t alignment = 64) override;
  void deallocate(void* pointer) override;
  ge::Status copy_to_device(void* device_destination, const void* host_source, size_t bytes) override;
  ge::Status copy_to_host(void* host_destination, const void* device_source, size_t bytes) override;
  /// A stream with a worker thread of its own (see toy_stream.h).
  ge::Result<std::unique_ptr<ge::Stream>> create_stream() override;
  ge::Result<std::unique_ptr<ge::Event>> create_event() override;

  /// Tracing records every task the streams run, in wall time since tracing started.
  ge::Status set_task_tracing(bool enabled) override;
  std::vector<ge::TaskTraceRecord> take_task_trace() override;

  /// Where the `bytes` at device address `address` lie in the pool; null unless all of
  /// them are inside it. For the device's threads; thread-safe (the pool never moves).
  std::byte* host_view(const void* address, size_t bytes) const;
  /// Streams report each task they ran here while tracing is on. Thread-safe.
  bool tracing() const { return tracing_.load(std::memory_order_relaxed); }
  void trace(int stream, const char* name, std::chrono::steady_clock::time_point start,
             std::chrono::steady_clock::time_point end);

 private:
  const size_t capacity_;
  std::unique_ptr<std::byte[]> pool_;
  std::mutex mutex_;                      // guards what follows
  std::map<size_t, size_t> allocations_;  // offset -> bytes
  int next_stream_id_ = 0;
  std::atomic<bool> tracing_{false};
  std::chrono::steady_clock::time_point trace_epoch_;
  std::vector<ge::TaskTraceRecord> trace_;
};

}  // namespace toy
