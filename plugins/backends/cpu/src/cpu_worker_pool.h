#pragma once
/// The worker threads that run every asynchronous CpuStream of one CpuDevice.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ge {

/// Something a worker can run: a stream with queued tasks. run() drains as much as it
/// can (until empty or blocked on an event) and returns.
class CpuRunnable {
 public:
  virtual ~CpuRunnable() = default;
  virtual void run() = 0;
};

/// A fixed set of threads over one FIFO of runnables. Streams are scheduled, not threads
/// per stream: any number of streams share the workers, and a stream that must wait for
/// an event gives its worker back (see CpuStream). Thread-safe.
///
/// Fork: a child process has none of the workers (the conformance runner forks without
/// exec). There schedule() runs the runnable on the calling thread, and the destructor
/// leaves the parent's threads alone; CpuDevice starts a fresh pool for new streams.
class CpuWorkerPool {
 public:
  /// Starts `threads` workers (at least one). Throws std::system_error when the system
  /// cannot start one (out of memory for its stack, or of threads), none left running.
  explicit CpuWorkerPool(size_t threads);
  /// Lets the workers finish every scheduled runnable, then joins them. Must not run on a
  /// worker thread.
  ~CpuWorkerPool();
  CpuWorkerPool(const CpuWorkerPool&) = delete;
  CpuWorkerPool& operator=(const CpuWorkerPool&) = delete;

  /// Queues `runnable` to run once on some worker.
  void schedule(std::shared_ptr<CpuRunnable> runnable);
  size_t thread_count() const { return threads_.size(); }
  /// False in a process forked after the pool started: its workers do not exist there.
  bool owned_by_this_process() const;

  /// The worker count used when none is configured: the hardware threads, at least one.
  static size_t default_thread_count();

 private:
  void work();
  /// Lets the workers finish every scheduled runnable, then joins them.
  void stop();

  const int owner_pid_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<CpuRunnable>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ge
