#pragma once
/// Run time limits: a watchdog thread that cancels a run (its CancellationToken) once its
/// deadline passes; the run stops at its next node with kCancelled.

#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>

#include "ge/cancellation.h"

namespace ge::serve {

class Deadlines {
 public:
  Deadlines();
  ~Deadlines();
  Deadlines(const Deadlines&) = delete;
  Deadlines& operator=(const Deadlines&) = delete;

  /// Cancels `token` at `deadline` unless the Guard is destroyed first (scope of a run).
  class Guard {
   public:
    Guard(Deadlines& owner, CancellationToken& token, std::chrono::steady_clock::time_point deadline);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    Deadlines& owner_;
    std::list<std::pair<std::chrono::steady_clock::time_point, CancellationToken*>>::iterator entry_;
  };

 private:
  void watch();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::list<std::pair<std::chrono::steady_clock::time_point, CancellationToken*>> entries_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace ge::serve
