#pragma once
/// Stopping a run from outside it: a caller (another thread, a signal handler, a deadline)
/// trips a CancellationToken that the run watches (RunOptions::cancellation, ge/executor.h);
/// the run stops at its next check and returns a kCancelled status.

#include <atomic>

namespace ge {

/// A flag asking the runs that watch it to stop. Tripping it is one lock-free atomic
/// store, safe from any thread and from a signal handler; a run pays one atomic load per
/// check while it is not tripped.
class CancellationToken {
 public:
  CancellationToken() = default;
  CancellationToken(const CancellationToken&) = delete;
  CancellationToken& operator=(const CancellationToken&) = delete;

  /// Asks every run watching the token to stop. Async-signal-safe.
  void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
  /// Whether cancel() was called since construction or the latest reset().
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }
  /// Makes the token usable for another run; not while a run watches it.
  void reset() noexcept { cancelled_.store(false, std::memory_order_relaxed); }

 private:
  static_assert(std::atomic<bool>::is_always_lock_free, "cancel() must be async-signal-safe");
  std::atomic<bool> cancelled_{false};
};

}  // namespace ge
