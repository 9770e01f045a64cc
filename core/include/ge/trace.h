#pragma once
/// A profile in the Chrome Trace Event Format (JSON), as chrome://tracing and Perfetto
/// (ui.perfetto.dev) open it: named processes holding named tracks, each track a row of
/// complete events.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ge/status.h"

namespace ge {

/// A row of events: a thread of a process in the format's terms.
struct TraceTrack {
  int process = 0;
  int thread = 0;
};

/// Builds a trace in memory and writes it. Processes and tracks are listed in the order
/// they were added. Not thread-safe.
class ChromeTrace {
 public:
  /// Adds a process (a group of tracks) named `name`.
  int add_process(std::string name);
  /// Adds a track named `name` to `process` (an id from add_process()).
  TraceTrack add_track(int process, std::string name);
  /// A complete event on `track` from `start_us` for `duration_us` microseconds; a
  /// non-empty `node` shows as the event's "node" argument (the graph node it ran).
  void add_event(TraceTrack track, std::string name, double start_us, double duration_us,
                 std::string category = {}, std::string node = {});

  /// A key of the trace's "otherData" object (what was traced, counts for checks).
  void add_metadata(std::string key, std::variant<std::string, int64_t> value);

  size_t event_count() const { return events_.size(); }
  /// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}: metadata events
  /// naming and ordering the processes and tracks, then the complete ("ph": "X") events.
  std::string to_json() const;
  /// Writes to_json() to `file`; an error names the file and why it cannot be written.
  Status write(const std::filesystem::path& file) const;

 private:
  struct Named {
    TraceTrack track;
    std::string name;
  };
  struct Event {
    TraceTrack track;
    std::string name, category;
    double start_us = 0, duration_us = 0;
    std::string node;
  };
  std::vector<Named> processes_;  // track.thread unused
  std::vector<Named> tracks_;
  std::vector<Event> events_;
  std::vector<std::pair<std::string, std::variant<std::string, int64_t>>> metadata_;
};

}  // namespace ge
