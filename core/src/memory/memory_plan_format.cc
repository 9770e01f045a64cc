// The text forms of memory plans: region and alias names, atomic-clean groups and the
// statistics ge-run -v and ge-compile print (ge/memory_plan.h).
#include <cinttypes>
#include <cstdio>
#include <string>

#include "ge/memory_plan.h"

namespace ge {

const char* memory_region_name(MemoryRegion region) {
  switch (region) {
    case MemoryRegion::kUnplanned: return "unplanned";
    case MemoryRegion::kWeights: return "weights";
    case MemoryRegion::kFeatureMap: return "feature_map";
    case MemoryRegion::kGraphIo: return "graph_io";
  }
  return "?";
}

const char* memory_alias_name(MemoryAlias alias) {
  switch (alias) {
    case MemoryAlias::kNone: return "none";
    case MemoryAlias::kView: return "view";
    case MemoryAlias::kSlice: return "slice";
    case MemoryAlias::kIdentical: return "identical";
  }
  return "?";
}

namespace {
std::string human_bytes(size_t bytes) {
  char text[64];
  if (bytes >= (size_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else if (bytes >= 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%zu B", bytes);
  }
  return text;
}
}  // namespace

std::string format_clean_groups(const std::vector<CleanGroup>& groups) {
  if (groups.empty()) return "none";
  std::string text = std::to_string(groups.size()) + (groups.size() == 1 ? " group" : " groups") + ", one memset each per run:";
  for (size_t g = 0; g < groups.size(); ++g) {
    const CleanGroup& group = groups[g];
    text += (g == 0 ? " [" : "; [") + std::to_string(group.offset) + ", " + std::to_string(group.offset + group.bytes) +
            ") " + std::to_string(group.blocks) + (group.blocks == 1 ? " block" : " blocks") + " on stream " +
            std::to_string(group.stream);
  }
  return text;
}

std::string format_memory_statistics(const MemoryStatistics& s) {
  char line[256];
  std::string text;
  std::snprintf(line, sizeof line, "memory plan: assigner '%s', planned in %.3f ms, %" PRId64 " steps\n",
                s.assigner.c_str(), s.planning_ms, s.steps);
  text += line;
  text += "  feature map " + human_bytes(s.feature_map_bytes) + " (" + std::to_string(s.feature_map_bytes) +
          " B), no reuse " + human_bytes(s.no_reuse_bytes) + ", lower bound " + human_bytes(s.lower_bound_bytes);
  std::snprintf(line, sizeof line, ", ratio %.4f\n", s.ratio_to_lower_bound);
  text += line;
  text += "  weights " + human_bytes(s.weights_bytes);
  if (s.merged_weights > 0) {
    text += " (" + std::to_string(s.merged_weights) + " identical stored once, " + human_bytes(s.merged_weight_bytes) +
            " saved)";
  }
  text += ", zero-copy I/O " + human_bytes(s.io_bytes) + "\n";
  text += "  values " + std::to_string(s.values) + " in " + std::to_string(s.buffers) + " buffers (in place " +
          std::to_string(s.in_place) + ", views " + std::to_string(s.views) + ", concat slices " +
          std::to_string(s.concat_slices) + "), unplanned " + std::to_string(s.unplanned) + "\n";
  if (!s.clean_groups.empty()) text += "  atomic clean: " + format_clean_groups(s.clean_groups) + "\n";
  if (s.streams > 1) {
    text += "  streams " + std::to_string(s.streams) + ", " + std::to_string(s.stream_events) +
            (s.stream_events == 1 ? " event" : " events");
    if (s.one_stream_bytes > 0) text += "; one stream would need " + human_bytes(s.one_stream_bytes);
    if (s.unordered_streams_bytes > 0) {
      text += "; side by side they needed " + human_bytes(s.unordered_streams_bytes) +
              ", so buffers reuse bytes in order (events added)";
    }
    text += "\n";
  }
  text += "  assigners:";
  for (const AssignerOutcome& a : s.assigners) {
    std::snprintf(line, sizeof line, " %s=%s (%.3f ms)", a.name.c_str(),
                  a.error.empty() ? human_bytes(a.total_bytes).c_str() : "rejected", a.milliseconds);
    text += line;
  }
  text += "\n";
  return text;
}

}  // namespace ge
