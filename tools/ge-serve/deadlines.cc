#include "deadlines.h"

#include <algorithm>

namespace ge::serve {

Deadlines::Deadlines() : watcher_([this] { watch(); }) {}

Deadlines::~Deadlines() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

Deadlines::Guard::Guard(Deadlines& owner, CancellationToken& token, std::chrono::steady_clock::time_point deadline)
    : owner_(owner) {
  {
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    entry_ = owner_.entries_.emplace(owner_.entries_.end(), deadline, &token);
  }
  owner_.wake_.notify_all();
}

Deadlines::Guard::~Guard() {
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  owner_.entries_.erase(entry_);
}

void Deadlines::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const auto now = std::chrono::steady_clock::now();
    auto next = now + std::chrono::hours(1);
    for (auto& [deadline, token] : entries_) {
      if (deadline <= now) {
        token->cancel();
      } else {
        next = std::min(next, deadline);
      }
    }
    wake_.wait_until(lock, next);
  }
}

}  // namespace ge::serve
