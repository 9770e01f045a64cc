#pragma once
/// The cpu backend's stream. Asynchronous by default: submit() copies the tasks into the
/// stream's queue and returns; a worker of the device's CpuWorkerPool runs them in order,
/// draining the whole queue in one loop over the function pointers. Many streams share
/// the workers; a stream whose next task waits for an unreached event gives its worker
/// back and is rescheduled when the event is recorded, so streams never deadlock for
/// want of workers.
///
/// Lifetime contract: the Task values are copied at submit(), but what they point to
/// (KernelArgs' address arrays, workspace and params, memcpy buffers, events) must stay
/// alive and unchanged until synchronize() returns (or the stream is destroyed).
///
/// Errors: a failing kernel (or memcpy) makes the stream skip its later kernels and
/// copies until synchronize() returns that first error. Event records still fire after
/// a failure, so other streams waiting on them do not hang.
///
/// Synchronous mode (the registry option `synchronous = true`, for debugging) runs the
/// tasks on the calling thread inside submit(), which returns the first error itself.
///
/// Tracing: with a tracer that is enabled, every task run (not one skipped after a
/// failure) is recorded in the stream's trace buffer (see CpuTaskTracer).

#include <memory>
#include <span>

#include "cpu_task_tracer.h"
#include "cpu_worker_pool.h"
#include "ge/plugin_api/backend.h"

namespace ge {

class CpuStream final : public Stream {
 public:
  /// Runs its tasks on `pool`'s workers; a null pool makes it synchronous. Records its
  /// tasks in `trace` while `tracer` is enabled (both null: never).
  explicit CpuStream(std::shared_ptr<CpuWorkerPool> pool, std::shared_ptr<CpuTaskTracer> tracer = nullptr,
                     std::shared_ptr<CpuTaskTracer::StreamTrace> trace = nullptr);
  /// Waits for every submitted task (their error, if any, is dropped).
  ~CpuStream() override;
  CpuStream(const CpuStream&) = delete;
  CpuStream& operator=(const CpuStream&) = delete;

  /// Checks `tasks` (a kernel without function, a copy with a null address or an event
  /// task without a cpu event is an error, and then none of them is queued), copies them
  /// into the queue and returns. Thread-safe.
  Status submit(std::span<const Task> tasks) override;
  /// Waits until every task submitted before it has run (or been skipped after a
  /// failure); returns the first error since the last synchronize(). Thread-safe. May
  /// run queued work on the calling thread when no worker has started it yet.
  Status synchronize() override;
  /// submit() + synchronize() without waking a worker: when no worker is running the
  /// stream, the calling thread runs the tasks (and any queued before them) itself.
  Status run(std::span<const Task> tasks) override;

  class Queue;  // shared with workers and events; defined in cpu_stream.cc

 private:
  Status run_synchronously(std::span<const Task> tasks);

  std::shared_ptr<CpuWorkerPool> pool_;
  std::shared_ptr<CpuTaskTracer> tracer_;
  std::shared_ptr<CpuTaskTracer::StreamTrace> trace_;
  std::shared_ptr<Queue> queue_;
};

}  // namespace ge
