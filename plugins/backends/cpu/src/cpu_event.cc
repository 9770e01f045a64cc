#include "cpu_event.h"

namespace ge {

Status CpuEvent::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t point = enqueued_;
  reached_changed_.wait(lock, [&] { return reached_ >= point; });
  return Status::ok();
}

uint64_t CpuEvent::enqueue_record() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++enqueued_;
}

uint64_t CpuEvent::last_enqueued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return enqueued_;
}

void CpuEvent::mark_reached(uint64_t point) {
  std::vector<std::weak_ptr<CpuEventWaiter>> woken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (point <= reached_) return;
    reached_ = point;
    for (size_t i = 0; i < waiters_.size();) {
      if (waiters_[i].first <= reached_) {
        woken.push_back(std::move(waiters_[i].second));
        waiters_[i] = std::move(waiters_.back());
        waiters_.pop_back();
      } else {
        ++i;
      }
    }
    // Under the lock: a host waiting in synchronize() may destroy the event once woken.
    reached_changed_.notify_all();
  }
  for (const std::weak_ptr<CpuEventWaiter>& weak : woken) {
    if (std::shared_ptr<CpuEventWaiter> waiter = weak.lock()) waiter->on_event_reached();
  }
}

bool CpuEvent::reached_or_register(uint64_t point, std::weak_ptr<CpuEventWaiter> waiter) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (reached_ >= point) return true;
  waiters_.emplace_back(point, std::move(waiter));
  return false;
}

}  // namespace ge
