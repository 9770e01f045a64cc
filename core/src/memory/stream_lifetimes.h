#pragma once
/// Stream lifetimes for memory planning: which steps of a top-level order a stream plan
/// lets run at the same time, as vector clocks (ge/runtime/stream_plan.h).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/runtime/stream_plan.h"
#include "ge/status.h"

namespace ge {

/// The steps of a top-level order whose nodes run on the streams of a plan: step 0 is the
/// entry (before every node), step i + 1 runs node i of the order, step count + 1 is the
/// exit (after every node). A clock holds, per stream, how many of its nodes are complete.
class StreamSteps {
 public:
  /// `plan` must be valid for the order (validate_stream_plan) and outlive this.
  explicit StreamSteps(const StreamPlan& plan);

  /// What is complete when `step` starts.
  std::vector<int64_t> made_at(int64_t step) const;
  /// What is complete once `step` has completed.
  std::vector<int64_t> done_at(int64_t step) const;
  /// The last step that may still be running while something needing `freed` is live:
  /// the latest node step not known to start after `freed` is complete (0 when none).
  int64_t last_concurrent_step(const std::vector<int64_t>& freed) const;

 private:
  const StreamPlan& plan_;
  std::vector<std::vector<int64_t>> clocks_;  // per node, including it
  std::vector<int64_t> totals_;               // per stream, its node count
};

/// `into` becomes the later (componentwise max) of the two clocks.
void clock_max(std::vector<int64_t>& into, const std::vector<int64_t>& other);
/// `into` becomes the earlier (componentwise min) of the two clocks.
void clock_min(std::vector<int64_t>& into, const std::vector<int64_t>& other);

/// Per node of an order, the positions in it of the nodes it depends on: the producers of
/// its inputs and its control predecessors that the order holds, at any position (so that
/// a caller can name a node that runs before its producer).
std::vector<std::vector<size_t>> order_dependences(std::span<const Node* const> order);

/// order_dependences of a top-level order, checked: fails for a node with subgraphs
/// (stream-aware planning covers flat graphs) or one that runs before a producer.
Result<std::vector<std::vector<size_t>>> order_predecessors(const std::vector<const Node*>& order);

}  // namespace ge
