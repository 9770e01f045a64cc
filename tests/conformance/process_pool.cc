#include "process_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

namespace ge::conformance {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kOutputTailBytes = 4096;
// Written before the result so a child killed halfway through writing is not mistaken
// for one that finished.
constexpr char kResultMarker[] = "GE-RESULT\n";

struct Child {
  size_t job = 0;
  pid_t pid = -1;
  int result_fd = -1;
  int output_fd = -1;
  std::string result;
  std::string output;
  Clock::time_point start;
  Clock::time_point deadline;
};

void write_all(int fd, const std::string& data) {
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

[[noreturn]] void child_main(size_t job_index, int result_fd, int output_fd,
                             const std::function<std::string(size_t)>& job) {
  // Everything the job prints goes to the captured output pipe.
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  ::close(output_fd);
  std::string result;
  try {
    result = job(job_index);
  } catch (const std::exception& error) {
    result = std::string("exception escaped the job: ") + error.what();
  } catch (...) {
    result = "unknown exception escaped the job";
  }
  std::fflush(nullptr);
  write_all(result_fd, kResultMarker + result);
  ::_exit(0);
}

/// Reads what is available; returns false at end of file (or on error).
bool drain(int fd, std::string& into, size_t keep_tail) {
  char buffer[4096];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  into.append(buffer, static_cast<size_t>(n));
  if (keep_tail > 0 && into.size() > 2 * keep_tail) into.erase(0, into.size() - keep_tail);
  return true;
}

/// Waits for `child` to end (`block`) or checks whether it has; true once reaped.
bool reap(const Child& child, bool block, int& status) {
  while (true) {
    const pid_t reaped = ::waitpid(child.pid, &status, block ? 0 : WNOHANG);
    if (reaped == child.pid) return true;
    if (reaped == 0) return false;
    if (errno != EINTR) {
      status = 0;  // Not our child any more: nothing more to learn.
      return true;
    }
  }
}

ChildOutcome finish(Child& child, bool timed_out, int status) {
  ChildOutcome outcome;
  outcome.seconds = std::chrono::duration<double>(Clock::now() - child.start).count();
  outcome.output = child.output.size() > kOutputTailBytes ? child.output.substr(child.output.size() - kOutputTailBytes)
                                                          : child.output;
  const size_t marker = std::strlen(kResultMarker);
  const bool has_result = child.result.compare(0, marker, kResultMarker) == 0;
  if (timed_out) {
    outcome.kind = ChildOutcome::Kind::kTimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kCrashed;
    outcome.signal = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && has_result) {
    outcome.kind = ChildOutcome::Kind::kCompleted;
    outcome.result = child.result.substr(marker);
  } else {
    outcome.kind = ChildOutcome::Kind::kExited;
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  if (child.result_fd >= 0) ::close(child.result_fd);
  if (child.output_fd >= 0) ::close(child.output_fd);
  child.result_fd = child.output_fd = -1;
  return outcome;
}

Status start_child(size_t job_index, const ProcessPoolOptions& options, const std::function<std::string(size_t)>& job,
                   Child& child) {
  int result_pipe[2];
  int output_pipe[2];
  if (::pipe2(result_pipe, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(output_pipe, O_CLOEXEC) != 0) {
    const int saved = errno;
    ::close(result_pipe[0]);
    ::close(result_pipe[1]);
    return internal_error(std::string("pipe: ") + std::strerror(saved));
  }
  // Buffered output would otherwise be written twice, once by the child.
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int saved = errno;
    for (int fd : {result_pipe[0], result_pipe[1], output_pipe[0], output_pipe[1]}) ::close(fd);
    return internal_error(std::string("fork: ") + std::strerror(saved));
  }
  if (pid == 0) {
    ::close(result_pipe[0]);
    ::close(output_pipe[0]);
    child_main(job_index, result_pipe[1], output_pipe[1], job);
  }
  ::close(result_pipe[1]);
  ::close(output_pipe[1]);
  child.job = job_index;
  child.pid = pid;
  child.result_fd = result_pipe[0];
  child.output_fd = output_pipe[0];
  child.start = Clock::now();
  child.deadline = child.start + options.timeout;
  return Status::ok();
}

}  // namespace

std::string ChildOutcome::describe() const {
  std::string text;
  switch (kind) {
    case Kind::kCompleted:
      return result;
    case Kind::kCrashed:
      text = "crashed (signal " + std::to_string(signal) + ")";
      break;
    case Kind::kTimedOut: {
      char limit[32];
      std::snprintf(limit, sizeof(limit), "%g", limit_seconds);
      text = std::string("timeout after ") + limit + " s";
      break;
    }
    case Kind::kExited:
      text = "exited with status " + std::to_string(exit_code) + " before finishing";
      break;
  }
  // The last line printed often names the failed assertion or the sanitizer's finding.
  std::string last_line;
  size_t end = output.find_last_not_of("\r\n");
  if (end != std::string::npos) {
    const size_t begin = output.find_last_of('\n', end);
    last_line = output.substr(begin == std::string::npos ? 0 : begin + 1,
                              end - (begin == std::string::npos ? 0 : begin + 1) + 1);
  }
  if (!last_line.empty()) text += ": " + last_line;
  return text;
}

Status run_in_children(size_t count, const ProcessPoolOptions& options, const std::function<std::string(size_t)>& job,
                       const std::function<void(size_t, const ChildOutcome&)>& done) {
  const size_t parallelism = static_cast<size_t>(std::max(1, options.parallelism));
  std::vector<Child> running;
  size_t next = 0;
  Status error;
  while (next < count || !running.empty()) {
    while (error.is_ok() && next < count && running.size() < parallelism) {
      Child child;
      error = start_child(next, options, job, child);
      if (!error.is_ok()) break;
      running.push_back(std::move(child));
      ++next;
    }
    if (!error.is_ok() && running.empty()) return error;

    std::vector<pollfd> fds;
    Clock::time_point earliest = Clock::time_point::max();
    bool awaiting_exit = false;
    for (const Child& child : running) {
      if (child.result_fd >= 0) fds.push_back({child.result_fd, POLLIN, 0});
      if (child.output_fd >= 0) fds.push_back({child.output_fd, POLLIN, 0});
      if (child.result_fd < 0 && child.output_fd < 0) awaiting_exit = true;
      earliest = std::min(earliest, child.deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(earliest - Clock::now()).count();
    const int timeout_ms = static_cast<int>(std::clamp<long long>(wait + 1, 0, awaiting_exit ? 5 : 60000));
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      error = internal_error(std::string("poll: ") + std::strerror(errno));
    }
    for (const pollfd& fd : fds) {
      if (fd.revents == 0) continue;
      for (Child& child : running) {
        if (fd.fd == child.result_fd) {
          if (!drain(child.result_fd, child.result, 0)) {
            ::close(child.result_fd);
            child.result_fd = -1;
          }
        } else if (fd.fd == child.output_fd) {
          if (!drain(child.output_fd, child.output, kOutputTailBytes)) {
            ::close(child.output_fd);
            child.output_fd = -1;
          }
        }
      }
    }
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < running.size();) {
      Child& child = running[i];
      // A child normally closes its pipes by exiting; one that closed them and lingers is
      // checked again until its deadline.
      const bool closed = child.result_fd < 0 && child.output_fd < 0;
      int status = 0;
      bool reaped = closed && reap(child, false, status);
      bool killed = false;
      if (!reaped && now >= child.deadline) {
        ::kill(child.pid, SIGKILL);
        reaped = reap(child, true, status);
        killed = true;
      }
      if (!reaped) {
        ++i;
        continue;
      }
      ChildOutcome outcome = finish(child, killed, status);
      outcome.limit_seconds = std::chrono::duration<double>(options.timeout).count();
      const size_t job_index = child.job;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      done(job_index, outcome);
    }
    if (!error.is_ok() && running.empty()) return error;
  }
  return error;
}

}  // namespace ge::conformance
