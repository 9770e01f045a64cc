#pragma once
/// Memory reuse order: the dependences a memory plan's byte sharing adds when its steps
/// run on several streams. On one stream two buffers share bytes when their lifetimes are
/// apart in the linear order; on several, steps of other streams may run at the same time,
/// so the sharing holds only when every step touching the earlier buffer happens before
/// every step touching the later one. Adding these dependences to a stream plan's own
/// (the producers and control predecessors, ge/runtime/stream_plan.h) lets a multi-stream
/// model keep a one-stream plan's bytes: the streams then overlap only work whose memory
/// does not collide (GE's memory reuse across streams by events).

#include <cstddef>
#include <vector>

#include "ge/memory_plan.h"
#include "ge/status.h"

namespace ge {

/// For every node of `plan.order` (a one-stream plan of a graph without subgraphs), the
/// order positions of the nodes that must complete before it starts so that the plan's
/// feature-map sharing holds on any streams: for two buffers overlapping in bytes whose
/// lifetimes are apart, every node touching the earlier one (writing it, reading it, or
/// using it as workspace) comes before every node touching the later one; and an op that
/// writes over its input in place comes after the input's other readers. Positions are
/// sorted and unique, each earlier than its node. Fails (kUnsupported) for a plan with
/// subgraph steps, or one made on several streams.
Result<std::vector<std::vector<size_t>>> memory_reuse_order(const GraphMemoryPlan& plan);

/// For a plan made on several streams (a graph without subgraphs): the dependences that
/// would let its widest pair of concurrent buffers share bytes -- two buffers apart in the
/// linear order that the streams may still run at the same time, with the most bytes the
/// smaller holds (ties: the closest in time): every node touching the earlier before every
/// node touching the later. Per node of `plan.order`, as memory_reuse_order; all empty
/// when no two buffers are concurrent. Serialising pairs one at a time trades the least
/// parallelism for memory.
Result<std::vector<std::vector<size_t>>> widest_concurrent_pair_order(const GraphMemoryPlan& plan);

}  // namespace ge
