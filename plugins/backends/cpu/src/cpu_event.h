#pragma once
/// The cpu backend's event: a counter of recorded points. Recording on a stream enqueues
/// point n+1; a wait (on a stream or the host) waits for the last point enqueued before
/// it was issued, as CUDA events do. A wait issued before any record does not wait.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ge/plugin_api/backend.h"

namespace ge {

/// Told once when the point it registered for is reached (see CpuEvent). Called on the
/// thread that reaches it, with no lock of the event held.
class CpuEventWaiter {
 public:
  virtual ~CpuEventWaiter() = default;
  virtual void on_event_reached() = 0;
};

class CpuEvent final : public Event {
 public:
  /// Blocks the host until the last point enqueued before this call has been reached.
  Status synchronize() override;

  /// For streams, at submit. The point a record task submitted now will mark.
  uint64_t enqueue_record();
  /// The last point enqueued so far (0 when none): what a wait submitted now waits for.
  uint64_t last_enqueued() const;
  /// Marks `point` (and every earlier one) reached and wakes whoever waits for them.
  void mark_reached(uint64_t point);
  /// True when `point` has been reached; otherwise registers `waiter` to be told once
  /// it is, and returns false. Never both.
  bool reached_or_register(uint64_t point, std::weak_ptr<CpuEventWaiter> waiter);

 private:
  mutable std::mutex mutex_;
  std::condition_variable reached_changed_;
  uint64_t enqueued_ = 0;
  uint64_t reached_ = 0;
  std::vector<std::pair<uint64_t, std::weak_ptr<CpuEventWaiter>>> waiters_;
};

}  // namespace ge
