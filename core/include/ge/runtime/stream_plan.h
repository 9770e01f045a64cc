#pragma once
/// Stream planning: places the nodes of a DAG on up to `max_streams` ordered streams so
/// that independent branches run side by side, and computes the cross-stream events the
/// placement needs. An event (producer, consumer) means "record after `producer` on its
/// stream, wait before `consumer` on its stream". Only dependencies not already implied
/// by stream order or by earlier events are given an event, so the event set is minimal
/// for the chosen placement: dropping any one of them leaves some dependency unordered.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ge/status.h"

namespace ge {

struct StreamPlanOptions {
  /// The most streams the plan may use (>= 1). 1 gives one stream and no events.
  int max_streams = 1;
};

/// One cross-stream synchronisation: the consumer's stream waits for the producer.
struct StreamEvent {
  size_t producer = 0;
  size_t consumer = 0;
  bool operator==(const StreamEvent&) const = default;
};

struct StreamPlan {
  int stream_count = 0;
  std::vector<int> stream_of;                ///< per node: its stream
  std::vector<std::vector<size_t>> streams;  ///< per stream: its nodes, in run order
  std::vector<StreamEvent> events;           ///< sorted by consumer, then producer
};

/// Plans `predecessors.size()` nodes numbered in a topological order: every entry of
/// `predecessors[v]` must be < v (duplicates are allowed). A node continues the stream of
/// a predecessor that is that stream's last node; otherwise it opens a new stream while
/// fewer than `max_streams` exist, else joins the stream with the fewest nodes.
/// Fails with kInvalidArgument naming the node for a bad predecessor or option.
Result<StreamPlan> plan_streams(const std::vector<std::vector<size_t>>& predecessors, const StreamPlanOptions& options);

/// Checks that `plan` is a valid stream plan over a DAG whose node v has the
/// predecessors `predecessors[v]` (all < v; untrusted plans welcome): streams and lists consistent, every event
/// between distinct streams and forward in the order, and every dependency ordered by
/// stream order or a chain of events. Errors name the unordered dependency.
Status validate_stream_plan(const std::vector<std::vector<size_t>>& predecessors, const StreamPlan& plan);

/// Vector clocks of a plan that validate_stream_plan accepts (structurally): for node v,
/// per stream t, how many of t's nodes have completed when v completes, through stream
/// order and events (v itself included: clocks[v][stream_of[v]] is v's 1-based position on
/// its stream). Node u happens before v, or is v, iff clocks[v][stream_of[u]] >=
/// clocks[u][stream_of[u]].
std::vector<std::vector<int64_t>> stream_clocks(const StreamPlan& plan);

}  // namespace ge
