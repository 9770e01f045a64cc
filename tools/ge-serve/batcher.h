#pragma once
/// Dynamic batching for one model (config.toml: max_batch_size, batch_delay_ms): requests
/// queue, a worker stacks the queued ones that agree on every dim but the first along that
/// dim (up to max_batch_size rows, waiting at most batch_delay_ms after the first), pads the
/// batch to a power of two rows (the last row repeated; a dynamic model compiles a few
/// batch sizes, not one per row count), runs the session once and splits every output
/// back along its first dim. A request's deadline (the server's --run-timeout) holds
/// while it is queued and while its batch runs: it is answered kCancelled at the deadline;
/// the batch itself is cancelled once every request in it is past its deadline.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "deadlines.h"

#include "ge/executor.h"
#include "ge/session.h"
#include "ge/status.h"

namespace ge::serve {

struct BatchStatistics {
  uint64_t batches = 0;   ///< session runs
  uint64_t requests = 0;  ///< requests they served
  uint64_t rows = 0;      ///< rows (first-dim extents) they ran
  double queue_seconds = 0;  ///< time requests waited in the queue, summed
};

class Batcher {
 public:
  Batcher(Session& session, int64_t max_batch_size, std::chrono::microseconds delay);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  /// Runs `inputs` (each of first dim >= 1) as part of a batch; the outputs are this
  /// request's rows. A request of more rows than max_batch_size runs alone, with
  /// `options`. Past `deadline` (when given): kCancelled.
  Status run(NamedTensors inputs, std::vector<Tensor>& outputs, const RunOptions& options = {},
             std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  BatchStatistics statistics() const;

 private:
  struct Pending {
    NamedTensors inputs;
    int64_t rows = 0;
    std::chrono::steady_clock::time_point queued;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    std::promise<Result<std::vector<Tensor>>> done;
  };
  void work();
  void run_batch(std::vector<std::unique_ptr<Pending>>& batch);

  Session& session_;
  const int64_t max_batch_size_;
  const std::chrono::microseconds delay_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Pending>> queue_;
  bool stopping_ = false;
  BatchStatistics statistics_;
  Deadlines deadlines_;  // cancels a batch whose every request is past its deadline
  std::thread worker_;
};

}  // namespace ge::serve
