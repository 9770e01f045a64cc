#pragma once
/// ge-run --profile: what one invocation measured, and the Chrome trace made of it.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/session.h"
#include "ge/status.h"
#include "ge/trace.h"

namespace ge::tools {

/// One session.run(), in wall time.
struct RunTiming {
  std::chrono::steady_clock::time_point start;
  std::chrono::nanoseconds duration{0};
};

struct RunProfile {
  std::string model, backend;
  /// Time zero of the wall-time tracks: when compilation started.
  std::chrono::steady_clock::time_point origin;
  std::vector<StageTiming> stages;
  std::vector<RunTiming> runs;
  std::string device;
  bool device_traced = false;  ///< false: the device cannot trace; no stream tracks
  bool simulated_time = false;
  /// When tracing was turned on: the device's time zero unless its time is simulated.
  std::chrono::steady_clock::time_point device_epoch;
  std::vector<TaskTraceRecord> tasks;
  /// Kernel tasks one run launches (task sink only), for checking the trace.
  std::optional<size_t> kernel_launches_per_run;
};

/// Checks before compiling that `file` can be a trace file: not a directory, in a folder
/// that exists. An error names the file and what is wrong.
Status check_profile_path(const std::filesystem::path& file);

/// A "ge-run" process with a "compile" track (one event per stage) and a "runs" track,
/// and a device process ("<device> (wall time)" or "(simulated time)") with one "stream
/// N" track per stream that ran tasks. Events are categorised "compile", "pass", "run",
/// "kernel", "memcpy", "memset" (atomic clean) or "event"; "otherData" holds the counts a
/// check needs.
ChromeTrace make_profile_trace(const RunProfile& profile);

}  // namespace ge::tools
