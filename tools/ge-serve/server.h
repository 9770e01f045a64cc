#pragma once
/// ge-serve's HTTP server: the Open Inference Protocol (KServe v2) REST endpoints over a
/// model repository, Prometheus metrics at /metrics, access logs through GE's logger.

#include <atomic>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "deadlines.h"
#include "model_repository.h"

namespace httplib {
class Server;
}

namespace ge::serve {

/// Request counters and latency histograms per model, in Prometheus' text format.
class Metrics {
 public:
  void observe(const std::string& model, int code, double seconds);
  void enter() { ++in_flight_; }
  void leave() { --in_flight_; }
  std::string text() const;

 private:
  struct PerModel {
    std::map<int, uint64_t> requests;  // by HTTP status
    std::vector<uint64_t> buckets;     // cumulative counts per bound
    double seconds = 0;
    uint64_t count = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::string, PerModel> models_;
  std::atomic<int64_t> in_flight_{0};
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;                            ///< 0: any free port (printed)
  int http_threads = 16;                      ///< requests served at once
  size_t max_request_bytes = size_t{64} << 20;  ///< a larger body is 413
  int request_timeout_seconds = 60;           ///< reading a request or writing a response
  double run_timeout_seconds = 60;            ///< a run still going after this is cancelled (0: no limit)
};

/// RunOptions whose cancellation trips at `timeout` seconds from now (0: never), for as
/// long as the returned guard lives.
struct TimedRun {
  TimedRun(Deadlines& deadlines, double timeout_seconds);
  CancellationToken token;
  RunOptions options;
  std::optional<std::chrono::steady_clock::time_point> deadline;  ///< none without a timeout
  std::optional<Deadlines::Guard> guard;
};

class Server {
 public:
  Server(ModelRepository& repository, ServerOptions options);
  ~Server();
  /// Binds and serves until stop(); prints "ge-serve: listening on http://HOST:PORT".
  Status run();
  /// Stops accepting; requests in flight finish. Safe from another thread.
  void stop();
  Metrics& metrics() { return metrics_; }
  Deadlines& deadlines() { return deadlines_; }

 private:
  void routes();
  ModelRepository& repository_;
  ServerOptions options_;
  Metrics metrics_;
  Deadlines deadlines_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace ge::serve
