#pragma once
/// Memory assigners place every planned buffer at an offset of one arena so that buffers
/// with overlapping lifetimes never overlap in bytes. They are plugins (kind
/// `memory_assigner`); the planner in ge/memory_plan.h runs every configured one on the
/// same requests, validates each answer and keeps the smallest valid arena.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ge/status.h"

namespace ge {

/// When a buffer lives on a model whose steps run on several streams (ge/runtime/stream_plan.h):
/// vector clocks over the streams. Step k of a stream is that stream's k-th node; a clock
/// entry counts a stream's steps from its start. Two buffers may share bytes only when a
/// happens-before path (stream order, events) separates them: every step that still
/// needs one has completed before the first step that writes the other starts.
struct StreamLifetime {
  /// Per stream: how many of its steps are known complete when the buffer's first writer
  /// starts.
  std::vector<int64_t> made_after;
  /// Per stream: how many of its steps must complete before the bytes are free again (the
  /// buffer's last reader on that stream, and everything before it).
  std::vector<int64_t> freed_after;
  /// The last step of the linear order (the one first_use/last_use count in) that may run
  /// while the buffer is live: a request whose first_use is past it never conflicts.
  int64_t window_last = 0;

  bool empty() const { return made_after.empty(); }
};

/// One buffer to place: size in bytes (already a multiple of the alignment) and the
/// execution steps [first_use, last_use] during which it is live (inclusive) in the linear
/// order of the model's steps. On one stream two requests conflict when their step ranges
/// intersect. With several streams (`streams` not empty) steps of other streams may run
/// at the same time, so requests_conflict() decides: ranges that intersect still conflict,
/// and so do ranges apart in the linear order that no happens-before path separates. A
/// request of 0 bytes conflicts with nothing.
struct MemoryRequest {
  MemoryRequest() = default;
  MemoryRequest(size_t bytes, int64_t first_use, int64_t last_use, StreamLifetime streams = {})
      : bytes(bytes), first_use(first_use), last_use(last_use), streams(std::move(streams)) {}

  size_t bytes = 0;
  int64_t first_use = 0;
  int64_t last_use = 0;
  StreamLifetime streams;
};

/// The linear-order steps outside of which `r` conflicts with nothing: [first_use,
/// last_use] on one stream, widened to the last step that may run concurrently with it on
/// several. Assigners index requests by this range and confirm with requests_conflict().
inline std::pair<int64_t, int64_t> conflict_window(const MemoryRequest& r) {
  return {r.first_use, r.streams.empty() ? r.last_use : std::max(r.last_use, r.streams.window_last)};
}

/// Whether stream lifetime `a` is over before `b` starts: on every stream, all `a` needs
/// is complete by the time `b`'s first writer starts.
inline bool freed_before(const StreamLifetime& a, const StreamLifetime& b) {
  if (a.freed_after.size() != b.made_after.size()) return false;
  for (size_t s = 0; s < a.freed_after.size(); ++s) {
    if (a.freed_after[s] > b.made_after[s]) return false;
  }
  return true;
}

/// Whether two requests may not share bytes: their linear ranges intersect or, with
/// several streams, neither is freed before the other is made.
inline bool requests_conflict(const MemoryRequest& a, const MemoryRequest& b) {
  if (a.bytes == 0 || b.bytes == 0) return false;
  if (a.first_use <= b.last_use && b.first_use <= a.last_use) return true;
  if (a.streams.empty() || b.streams.empty()) return false;
  return !freed_before(a.streams, b.streams) && !freed_before(b.streams, a.streams);
}

/// An assigner's answer.
struct MemoryPlan {
  std::vector<size_t> offsets;  ///< one per request, each a multiple of the alignment
  size_t total_bytes = 0;       ///< arena size: at least max(offset + bytes) over requests
};

class MemoryAssigner {
 public:
  virtual ~MemoryAssigner() = default;
  virtual std::string name() const = 0;
  /// Offsets for every request, each a multiple of `alignment`, such that conflicting
  /// requests do not overlap. Must be deterministic for the same input and must not
  /// throw. May be called concurrently from several threads.
  virtual Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const = 0;
};

/// The core's own assigner, for a model runner given no assigner plugin: requests in order
/// of first use, each at the lowest aligned offset clear of the conflicting requests still
/// live. Simple and fast (on one stream O(n log n) plus the too-small gaps a request
/// passes over; on several O(n * live)); the plugins (greedy_by_size, hill_climb) plan
/// tighter arenas.
std::shared_ptr<MemoryAssigner> first_fit_assigner();

/// An assigner that answers with offsets decided elsewhere (a model file's stored plan, or
/// another plan of the same buffers): one per request, in request order, in an arena of
/// `total_bytes`. Fails when the count differs from the requests' or when `total_bytes`
/// exceeds every request side by side; whether the offsets hold is for
/// validate_assignment to say, as for any assigner.
std::shared_ptr<MemoryAssigner> fixed_offsets_assigner(std::string name, std::vector<size_t> offsets,
                                                       size_t total_bytes);

/// The lower bound every assignment of `requests` must reach or exceed: the most bytes
/// live at any one step of the linear order (with several streams, buffers live at one
/// step conflict all the more). O(n log n).
inline size_t peak_live_bytes(const std::vector<MemoryRequest>& requests) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (step, +bytes at first use / -bytes after last use)
  events.reserve(requests.size() * 2);
  for (const MemoryRequest& r : requests) {
    if (r.bytes == 0) continue;
    events.emplace_back(r.first_use, static_cast<int64_t>(r.bytes));
    events.emplace_back(r.last_use + 1, -static_cast<int64_t>(r.bytes));
  }
  // At equal steps the frees sort first: a buffer dying at s-1 never meets one born at s.
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return static_cast<size_t>(peak);
}

}  // namespace ge
