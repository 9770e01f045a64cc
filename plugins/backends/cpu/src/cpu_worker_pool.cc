#include "cpu_worker_pool.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

namespace ge {

CpuWorkerPool::CpuWorkerPool(size_t threads) : owner_pid_(static_cast<int>(::getpid())) {
  threads = std::max<size_t>(threads, 1);
  threads_.reserve(threads);
  try {
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  } catch (...) {
    // Out of memory or threads part way: the workers started must be joined, or their
    // handles would terminate the process as the members are destroyed.
    stop();
    throw;
  }
}

CpuWorkerPool::~CpuWorkerPool() {
  if (!owned_by_this_process()) {
    // The threads belong to the parent: neither join nor detach them, keep the handles.
    static_cast<void>(new std::vector<std::thread>(std::move(threads_)));
    return;
  }
  stop();
}

void CpuWorkerPool::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

bool CpuWorkerPool::owned_by_this_process() const { return static_cast<int>(::getpid()) == owner_pid_; }

void CpuWorkerPool::schedule(std::shared_ptr<CpuRunnable> runnable) {
  if (!owned_by_this_process()) {
    runnable->run();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(runnable));
  }
  ready_.notify_one();
}

size_t CpuWorkerPool::default_thread_count() { return std::max<size_t>(std::thread::hardware_concurrency(), 1); }

void CpuWorkerPool::work() {
  for (;;) {
    std::shared_ptr<CpuRunnable> runnable;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      runnable = std::move(queue_.front());
      queue_.pop_front();
    }
    runnable->run();
  }
}

}  // namespace ge
