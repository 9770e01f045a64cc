#pragma once
/// Runs jobs in forked child processes, a few at a time, so that a job that crashes or
/// hangs is reported and the others still run. Each child sends its result back through
/// a pipe; what it prints (stdout and stderr) is captured, not shown.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "ge/status.h"

namespace ge::conformance {

/// What became of one job.
struct ChildOutcome {
  enum class Kind {
    kCompleted,  ///< the job returned; `result` holds what it returned
    kCrashed,    ///< killed by signal `signal` before finishing
    kTimedOut,   ///< still running at the deadline; killed
    kExited,     ///< exited with `exit_code` without finishing the job (exit() in a job)
  };
  Kind kind = Kind::kCompleted;
  std::string result;
  int signal = 0;
  int exit_code = 0;
  std::string output;  ///< the last few KiB the child printed
  double seconds = 0;
  double limit_seconds = 0;  ///< the timeout it ran under

  /// "crashed (signal 11)", "timeout after 20 s", ...: the reason for a non-completed job,
  /// followed by the child's last printed line if it had one.
  std::string describe() const;
};

struct ProcessPoolOptions {
  int parallelism = 2;
  std::chrono::milliseconds timeout{20000};
};

/// Runs `job(i)` for i in [0, count) in forked children, at most `parallelism` at a time,
/// and calls `done(i, outcome)` in this process as each one ends (in completion order).
/// The children share this process's loaded state (copy-on-write) and leave with _exit,
/// running no destructors. Call from a single-threaded process. Errors are for failures
/// to create a pipe or a process.
Status run_in_children(size_t count, const ProcessPoolOptions& options, const std::function<std::string(size_t)>& job,
                       const std::function<void(size_t, const ChildOutcome&)>& done);

}  // namespace ge::conformance
