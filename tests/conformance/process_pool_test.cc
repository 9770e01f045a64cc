#include "process_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

namespace ge::conformance {
namespace {

using Kind = ChildOutcome::Kind;

std::map<size_t, ChildOutcome> run_jobs(size_t count, const std::function<std::string(size_t)>& job,
                                        std::chrono::milliseconds timeout = std::chrono::milliseconds(10000),
                                        int parallelism = 2) {
  std::map<size_t, ChildOutcome> outcomes;
  ProcessPoolOptions options;
  options.parallelism = parallelism;
  options.timeout = timeout;
  const Status status =
      run_in_children(count, options, job, [&](size_t i, const ChildOutcome& outcome) { outcomes[i] = outcome; });
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  return outcomes;
}

TEST(ProcessPoolTest, ReturnsEachJobsResult) {
  const auto outcomes = run_jobs(
      7, [](size_t i) { return "job " + std::to_string(i * i); }, std::chrono::seconds(10), 3);
  ASSERT_EQ(outcomes.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(outcomes.at(i).kind, Kind::kCompleted);
    EXPECT_EQ(outcomes.at(i).result, "job " + std::to_string(i * i));
  }
}

TEST(ProcessPoolTest, LargeResultArrivesWhole) {
  // Larger than a pipe buffer, so the parent must read while the child writes.
  const std::string big(1 << 20, 'r');
  const auto outcomes = run_jobs(1, [&](size_t) { return big; });
  EXPECT_EQ(outcomes.at(0).kind, Kind::kCompleted);
  EXPECT_EQ(outcomes.at(0).result.size(), big.size());
}

TEST(ProcessPoolTest, CrashIsReportedWithSignalAndLastOutputLine) {
  const auto outcomes = run_jobs(2, [](size_t i) -> std::string {
    if (i == 1) {
      std::fprintf(stderr, "noise\nassertion failed: x > 0\n");
      std::abort();
    }
    return "fine";
  });
  EXPECT_EQ(outcomes.at(0).kind, Kind::kCompleted);
  EXPECT_EQ(outcomes.at(1).kind, Kind::kCrashed);
  EXPECT_EQ(outcomes.at(1).signal, SIGABRT);
  EXPECT_EQ(outcomes.at(1).describe(), "crashed (signal 6): assertion failed: x > 0");
}

TEST(ProcessPoolTest, KilledChildIsACrash) {
  const auto outcomes = run_jobs(1, [](size_t) -> std::string {
    ::kill(::getpid(), SIGKILL);
    return "unreachable";
  });
  EXPECT_EQ(outcomes.at(0).kind, Kind::kCrashed);
  EXPECT_EQ(outcomes.at(0).describe(), "crashed (signal 9)");
}

TEST(ProcessPoolTest, HangingJobTimesOutAndOthersStillRun) {
  const auto start = std::chrono::steady_clock::now();
  const auto outcomes = run_jobs(
      3,
      [](size_t i) -> std::string {
        if (i == 0) std::this_thread::sleep_for(std::chrono::seconds(60));
        return "done " + std::to_string(i);
      },
      std::chrono::milliseconds(300));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(outcomes.at(0).kind, Kind::kTimedOut);
  EXPECT_EQ(outcomes.at(0).describe(), "timeout after 0.3 s");
  EXPECT_EQ(outcomes.at(1).result, "done 1");
  EXPECT_EQ(outcomes.at(2).result, "done 2");
}

TEST(ProcessPoolTest, ExitWithoutResultIsReported) {
  const auto outcomes = run_jobs(1, [](size_t) -> std::string { ::_exit(3); });
  EXPECT_EQ(outcomes.at(0).kind, Kind::kExited);
  EXPECT_EQ(outcomes.at(0).describe(), "exited with status 3 before finishing");
}

TEST(ProcessPoolTest, ExceptionBecomesTheResult) {
  const auto outcomes = run_jobs(1, [](size_t) -> std::string { throw std::runtime_error("boom"); });
  EXPECT_EQ(outcomes.at(0).kind, Kind::kCompleted);
  EXPECT_EQ(outcomes.at(0).result, "exception escaped the job: boom");
}

TEST(ProcessPoolTest, ChildOutputIsCapturedNotShown) {
  const auto outcomes = run_jobs(1, [](size_t) -> std::string {
    std::printf("to stdout\n");
    std::fprintf(stderr, "to stderr\n");
    return "ok";
  });
  // Both streams land in one pipe; stdout is block-buffered there, so order is not kept.
  const std::string& output = outcomes.at(0).output;
  EXPECT_EQ(output.size(), std::string("to stdout\nto stderr\n").size()) << output;
  EXPECT_NE(output.find("to stdout\n"), std::string::npos) << output;
  EXPECT_NE(output.find("to stderr\n"), std::string::npos) << output;
}

}  // namespace
}  // namespace ge::conformance
