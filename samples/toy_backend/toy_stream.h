#pragma once
/// The toy device's streams and events.
///
/// ToyStream: submit() checks and queues the tasks and returns; the stream's own host
/// thread runs them in order. A failing kernel or copy makes the stream skip its later
/// kernels and copies until synchronize() returns that first error; event records and
/// waits still happen, so other streams never hang on a failed one. What the tasks point
/// to (argument arrays, parameter blocks, events) must live until synchronize() returns.
///
/// ToyEvent: records are numbered when submitted; a wait waits for the last record
/// submitted before it (a wait before any record does not wait), as CUDA events do.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <thread>

#include <ge/plugin_api/backend.h>

namespace toy {

class ToyDevice;

class ToyEvent final : public ge::Event {
 public:
  /// Blocks until the last record submitted before this call has run.
  ge::Status synchronize() override;

  uint64_t submit_record();         ///< the number of a record submitted now
  uint64_t last_submitted() const;  ///< what a wait submitted now waits for
  void reach(uint64_t record);      ///< a stream ran `record`
  void wait_for(uint64_t record);   ///< blocks until `record` has run

 private:
  mutable std::mutex mutex_;
  std::condition_variable reached_changed_;
  uint64_t submitted_ = 0, reached_ = 0;
};

class ToyStream final : public ge::Stream {
 public:
  ToyStream(ToyDevice& device, int id);
  /// Runs what was submitted, then stops the thread.
  ~ToyStream() override;

  /// Fails, queueing none of them, when a task is malformed or not the toy device's.
  ge::Status submit(std::span<const ge::Task> tasks) override;
  ge::Status synchronize() override;

 private:
  struct Queued {
    ge::Task task;
    uint64_t record = 0;  ///< the event record it makes or waits for
    uint64_t index = 0;   ///< in submission order on this stream, for messages
  };
  void work();
  ge::Status run(const Queued& queued, bool skip_work);

  ToyDevice& device_;
  const int id_;
  std::mutex mutex_;  // guards what follows
  std::condition_variable changed_;
  std::deque<Queued> queue_;
  uint64_t submitted_ = 0;
  bool busy_ = false, stopping_ = false;
  ge::Status error_;
  std::thread worker_;  // last: starts once the rest is built
};

}  // namespace toy
