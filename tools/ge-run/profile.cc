#include "profile.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <system_error>

namespace ge::tools {
namespace {

namespace fs = std::filesystem;

double microseconds(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double, std::micro>(duration).count();
}

const char* task_category(const std::string& name) {
  if (name == "memcpy") return "memcpy";
  if (name == "memset") return "memset";
  if (name == "event_record" || name == "event_wait") return "event";
  return "kernel";
}

}  // namespace

Status check_profile_path(const fs::path& file) {
  std::error_code error;
  if (fs::is_directory(file, error)) {
    return invalid_argument("--profile '" + file.string() + "' is a directory; give a file to write the trace to");
  }
  const fs::path folder = file.parent_path();
  if (!folder.empty() && !fs::is_directory(folder, error)) {
    return invalid_argument("--profile '" + file.string() + "': directory '" + folder.string() + "' does not exist");
  }
  return Status::ok();
}

ChromeTrace make_profile_trace(const RunProfile& profile) {
  ChromeTrace trace;
  trace.add_metadata("model", profile.model);
  trace.add_metadata("backend", profile.backend);
  trace.add_metadata("device", profile.device);
  trace.add_metadata("device_traced", int64_t{profile.device_traced});
  trace.add_metadata("runs", static_cast<int64_t>(profile.runs.size()));
  if (profile.kernel_launches_per_run) {
    trace.add_metadata("kernel_launches_per_run", static_cast<int64_t>(*profile.kernel_launches_per_run));
  }

  const int host = trace.add_process("ge-run (wall time)");
  const TraceTrack compile = trace.add_track(host, "compile");
  const TraceTrack runs = trace.add_track(host, "runs");
  bool in_passes = false;
  std::chrono::steady_clock::time_point passes_end;
  for (const StageTiming& stage : profile.stages) {
    // The passes lie inside the "passes" stage; the viewer nests them under it.
    const bool pass = in_passes && stage.start + stage.duration <= passes_end;
    trace.add_event(compile, stage.name, microseconds(stage.start - profile.origin), microseconds(stage.duration),
                    pass ? "pass" : "compile");
    if (stage.name == "passes") {
      in_passes = true;
      passes_end = stage.start + stage.duration;
    } else if (!pass) {
      in_passes = false;
    }
  }
  for (size_t i = 0; i < profile.runs.size(); ++i) {
    trace.add_event(runs, "run " + std::to_string(i), microseconds(profile.runs[i].start - profile.origin),
                    microseconds(profile.runs[i].duration), "run");
  }
  if (!profile.device_traced) return trace;

  const int device =
      trace.add_process(profile.device + (profile.simulated_time ? " (simulated time)" : " (wall time)"));
  // Simulated time starts at the device's zero; wall time lines up with the compile track.
  const double offset_us = profile.simulated_time ? 0.0 : microseconds(profile.device_epoch - profile.origin);
  std::map<int, TraceTrack> streams;
  for (const TaskTraceRecord& task : profile.tasks) streams.emplace(task.stream, TraceTrack{});
  for (auto& [id, track] : streams) track = trace.add_track(device, "stream " + std::to_string(id));
  for (const TaskTraceRecord& task : profile.tasks) {
    trace.add_event(streams.at(task.stream), task.name, offset_us + task.start_ns / 1000.0,
                    std::max(0.0, task.end_ns - task.start_ns) / 1000.0, task_category(task.name), task.node);
  }
  return trace;
}

}  // namespace ge::tools
