// A profile in the Chrome Trace Event Format (ge/trace.h).
#include "ge/trace.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "ge/atomic_file.h"

namespace ge {

int ChromeTrace::add_process(std::string name) {
  // pid 0 reads as "no process" in some viewers: start at 1.
  const int pid = static_cast<int>(processes_.size()) + 1;
  processes_.push_back(Named{TraceTrack{pid, 0}, std::move(name)});
  return pid;
}

TraceTrack ChromeTrace::add_track(int process, std::string name) {
  // Thread ids unique across the trace keep the tracks apart in every viewer.
  const TraceTrack track{process, static_cast<int>(tracks_.size()) + 1};
  tracks_.push_back(Named{track, std::move(name)});
  return track;
}

void ChromeTrace::add_event(TraceTrack track, std::string name, double start_us, double duration_us,
                            std::string category, std::string node) {
  events_.push_back(Event{track, std::move(name), std::move(category), start_us, duration_us, std::move(node)});
}

void ChromeTrace::add_metadata(std::string key, std::variant<std::string, int64_t> value) {
  metadata_.emplace_back(std::move(key), std::move(value));
}

std::string ChromeTrace::to_json() const {
  nlohmann::json events = nlohmann::json::array();
  auto metadata = [&](const char* what, TraceTrack track, nlohmann::json args) {
    events.push_back({{"ph", "M"}, {"name", what}, {"pid", track.process}, {"tid", track.thread}, {"args", args}});
  };
  for (size_t i = 0; i < processes_.size(); ++i) {
    metadata("process_name", processes_[i].track, {{"name", processes_[i].name}});
    metadata("process_sort_index", processes_[i].track, {{"sort_index", i}});
  }
  for (size_t i = 0; i < tracks_.size(); ++i) {
    metadata("thread_name", tracks_[i].track, {{"name", tracks_[i].name}});
    metadata("thread_sort_index", tracks_[i].track, {{"sort_index", i}});
  }
  for (const Event& event : events_) {
    nlohmann::json json = {{"ph", "X"},
                           {"name", event.name},
                           {"pid", event.track.process},
                           {"tid", event.track.thread},
                           {"ts", event.start_us},
                           {"dur", event.duration_us}};
    if (!event.category.empty()) json["cat"] = event.category;
    if (!event.node.empty()) json["args"] = {{"node", event.node}};
    events.push_back(std::move(json));
  }
  nlohmann::json other = nlohmann::json::object();
  for (const auto& entry : metadata_) {
    std::visit([&](const auto& value) { other[entry.first] = value; }, entry.second);
  }
  const nlohmann::json trace = {
      {"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other)}};
  // Kernel names come from models: replace invalid UTF-8 rather than throw.
  return trace.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status ChromeTrace::write(const std::filesystem::path& file) const {
  return write_file_atomically(file, to_json() + '\n');
}

}  // namespace ge
