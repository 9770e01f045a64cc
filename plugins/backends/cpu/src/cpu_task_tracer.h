#pragma once
/// The task trace of one CpuDevice: whether tracing is on, its epoch, and one record
/// buffer per stream.
///
/// Cost when off: a stream reads enabled() once per batch it drains (one atomic load) and
/// tests that bool once per task. When on, the draining thread collects a batch's records
/// in its own vector and appends them to its stream's buffer under that buffer's lock,
/// once per batch; take() merges the buffers under the same locks.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ge/plugin_api/backend.h"

namespace ge {

class CpuTaskTracer {
 public:
  /// One stream's records and its id on the device. Thread-safe.
  class StreamTrace {
   public:
    explicit StreamTrace(int stream) : stream_(stream) {}
    int stream() const { return stream_; }
    /// Moves `records` in and leaves it empty.
    void append(std::vector<TaskTraceRecord>& records);
    /// Moves the records out into `into` (appending).
    void take(std::vector<TaskTraceRecord>& into);
    bool empty();

   private:
    const int stream_;
    std::mutex mutex_;
    std::vector<TaskTraceRecord> records_;
  };

  /// The buffer of a new stream, with the next stream id (0, 1, ... in creation order).
  std::shared_ptr<StreamTrace> add_stream();
  /// Turning it on drops every record and restarts the epoch.
  void set_enabled(bool enabled);
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  /// Steady-clock nanoseconds since the epoch.
  double now_ns() const {
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    return static_cast<double>(now - epoch_ns_.load(std::memory_order_relaxed));
  }
  /// Every stream's records (stream by stream, each in run order), forgotten here.
  std::vector<TaskTraceRecord> take();

 private:
  std::atomic<bool> enabled_{false};
  std::atomic<int64_t> epoch_ns_{0};
  std::mutex mutex_;  // guards streams_ and next_stream_
  std::vector<std::shared_ptr<StreamTrace>> streams_;
  int next_stream_ = 0;
};

/// The trace record of `task` run over [start_ns, end_ns].
TaskTraceRecord make_task_trace_record(int stream, const Task& task, double start_ns, double end_ns);

}  // namespace ge
