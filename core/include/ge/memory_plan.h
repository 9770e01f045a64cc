#pragma once
/// Static memory planning for a graph whose shapes are known: every value gets a region
/// and an offset, values whose lifetimes do not overlap share bytes, and the plan is
/// validated before anyone uses it.
///
/// Regions (GE's rules): weights and constants at fixed offsets (512-byte aligned, never
/// reused; initializers with identical bytes share one slot); the feature map, one arena
/// whose base the runtime may refresh (512-byte aligned buffers placed by the
/// memory-assigner plugins); zero-copy graph I/O, one slot per top-level runtime input
/// and output (32-byte aligned) that the runtime binds to the caller's buffers at
/// execute time.
///
/// Before the assigners run, values that may share storage are merged into one buffer:
///   - in place: an elementwise op or activation writes over an input of the same byte
///     size whose whole buffer dies at that op;
///   - views: Reshape/Flatten/Squeeze/Unsqueeze/Identity outputs alias their input, and a
///     subgraph's capture aliases the outer value;
///   - continuous memory: a concatenation (a Concat; its schema's concatenates_along)
///     whose output is contiguous per input (all dims before the axis are 1) has its
///     producers write straight into their slices (MemoryAlias::kSlice).
/// Which ops do which is what their schemas declare (MemoryPlanOptions::ops). The
/// executor runs no kernel for a view whose address is its input's and copies no
/// concatenated input planned in its slice.
///
/// Atomic clean (seed 002): outputs and workspaces a kernel needs zeroed before it runs
/// (ZeroedMemory, ge/plugin_api/kernel.h) are laid side by side in one clean group, a range of the
/// feature map that no other value uses at any step, so that the runtime zeroes them all
/// with one memset per run. They are never written in place, moved into a Concat slice or
/// bound zero-copy (a graph output among them is copied out); views of them may share
/// their bytes, as those hold the same data.
///
/// Steps: 0 is the top-level graph's entry (inputs bound), each node takes one step, a
/// node with subgraphs spans a range of steps holding each subgraph's entry, nodes and
/// exit (branches one after another), and the last step is the top-level exit (outputs
/// read). A value is live from its producer's first step to its last consumer's last
/// step, both inclusive.
///
/// Streams: given a stream plan of the top-level order (MemoryPlanOptions::streams), steps
/// of different streams may run at the same time, and two buffers share bytes only when a
/// happens-before path through stream order and events separates them (StreamLifetime in
/// ge/plugin_api/memory_assigner.h): every step reading the first has completed before the first step
/// writing the second starts. In-place writes need every other reader of the input to
/// happen before the writing op; atomic-clean blocks form one group per stream.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/op_registry.h"
#include "ge/runtime/stream_plan.h"
#include "ge/status.h"

namespace ge {

enum class MemoryRegion : uint8_t {
  kUnplanned,   ///< not placed statically (dynamic shape, sequence, string): see reason
  kWeights,     ///< initializers and Constant outputs, fixed offsets
  kFeatureMap,  ///< the planned, reused arena
  kGraphIo,     ///< zero-copy slots of top-level runtime inputs and graph outputs
};
const char* memory_region_name(MemoryRegion region);

/// How a placement holds the same data as its `alias_source` (either may be made first).
enum class MemoryAlias : uint8_t {
  kNone,   ///< no data shared
  kView,   ///< the source's data at the source's offset (Reshape..., captures)
  kSlice,  ///< a part of the source's data (a Concat input inside the Concat output)
  /// An initializer whose bytes equal the source initializer's: stored once, at the
  /// source's offset (weight merging, core/src/passes/weight_merging.h).
  kIdentical,
};
const char* memory_alias_name(MemoryAlias alias);

/// Where one value, or one node's kernel workspace, lives.
struct ValuePlacement {
  const Value* value = nullptr;        ///< null for a workspace
  const Node* workspace_of = nullptr;  ///< the node whose scratch memory this is
  std::string name;                    ///< the value's name, or "<node>:workspace"
  MemoryRegion region = MemoryRegion::kUnplanned;
  size_t offset = 0;                    ///< from the region's base
  size_t bytes = 0;                     ///< exact size (not rounded)
  int64_t first_use = 0, last_use = 0;  ///< live steps, inclusive
  MemoryAlias alias = MemoryAlias::kNone;
  int64_t alias_source = -1;  ///< index into GraphMemoryPlan::values
  /// In place: the index of the input whose bytes this value's producer overwrites; that
  /// input dies at this value's first step. Independent of `alias` (a Concat slice may
  /// also be written in place).
  int64_t in_place_of = -1;
  int64_t buffer = -1;           ///< index into GraphMemoryPlan::buffers (feature map)
  /// Index into GraphMemoryPlan::clean_groups when this block must be zeroed before its
  /// producer (or, for a workspace, its node) runs; -1 otherwise.
  int64_t clean_group = -1;
  std::string unplanned_reason;  ///< set when region is kUnplanned
};

/// Atomic clean (seed 002): one contiguous range of the feature map holding blocks that
/// kernels need zeroed before they run, and nothing else at any step; the runtime zeroes
/// the whole range with one memset per run, on `stream`, before the first task writing it.
struct CleanGroup {
  size_t offset = 0;  ///< from the feature map's base, aligned
  size_t bytes = 0;   ///< rounded up to the alignment
  size_t blocks = 0;  ///< values and workspaces inside
  int stream = 0;     ///< the stream whose tasks write it
  bool operator==(const CleanGroup&) const = default;
};

/// "1 group: [0, 1024) 2 blocks on stream 0" (one line, no newline; "none" when empty).
std::string format_clean_groups(const std::vector<CleanGroup>& groups);

/// One feature-map buffer as handed to the assigners: a group of values sharing storage.
struct MemoryBuffer {
  size_t offset = 0;
  size_t bytes = 0;  ///< rounded up to the alignment
  int64_t first_use = 0, last_use = 0;
};

/// What one assigner produced for the plan's requests.
struct AssignerOutcome {
  std::string name;
  size_t total_bytes = 0;  ///< 0 when it failed
  double milliseconds = 0;
  std::string error;  ///< why the answer was rejected (failed or invalid); empty if valid
};

struct MemoryStatistics {
  size_t feature_map_bytes = 0;  ///< the chosen arena
  /// Every feature-map value in its own rounded slot (views and Concat slices excepted).
  size_t no_reuse_bytes = 0;
  /// Most buffer bytes live at any step: no assignment of these buffers can be smaller.
  size_t lower_bound_bytes = 0;
  double ratio_to_lower_bound = 1.0;  ///< feature_map_bytes / lower_bound_bytes
  size_t weights_bytes = 0;
  /// Initializers stored in another's slot because their bytes are identical, and the
  /// bytes that saved (not counted in weights_bytes).
  size_t merged_weights = 0, merged_weight_bytes = 0;
  size_t io_bytes = 0;  ///< zero-copy I/O slots together
  size_t values = 0, buffers = 0, in_place = 0, views = 0, concat_slices = 0, unplanned = 0;
  int64_t steps = 0;
  double planning_ms = 0;  ///< everything plan_memory did, validation included
  std::string assigner;    ///< the one whose answer was kept
  std::vector<AssignerOutcome> assigners;
  std::vector<CleanGroup> clean_groups;  ///< the plan's atomic-clean groups
  int streams = 1;                       ///< the stream plan's streams (1: one stream)
  size_t stream_events = 0;              ///< and its events
  /// Set by a model runner that planned several streams under a memory limit
  /// (ModelRunnerOptions::stream_memory_ratio): the one-stream plan's feature map over the
  /// same order, and, when the streams side by side needed more than the limit and were
  /// ordered for memory reuse (core/src/memory/memory_reuse_order.h), what they needed (else 0).
  size_t one_stream_bytes = 0, unordered_streams_bytes = 0;
};

/// Multi-line summary for `ge-run -v` and the offline compiler.
std::string format_memory_statistics(const MemoryStatistics& statistics);

struct GraphMemoryPlan {
  /// The top-level execution order the steps refer to; the executor must run this order.
  std::vector<const Node*> order;
  std::vector<ValuePlacement> values;
  std::vector<MemoryBuffer> buffers;
  /// Atomic clean: at most one group per stream, each also a buffer live over every step.
  std::vector<CleanGroup> clean_groups;
  /// The stream plan the lifetimes respect (node indices are positions in `order`);
  /// stream_count <= 1: one stream, lifetimes are the linear steps.
  StreamPlan streams;
  size_t alignment = 512;
  size_t io_alignment = 32;
  size_t weights_bytes = 0, feature_map_bytes = 0, io_bytes = 0;  ///< region sizes
  int64_t step_count = 0;                                         ///< steps are 0 .. step_count - 1
  MemoryStatistics statistics;

  std::unordered_map<const Value*, size_t> index;  ///< value -> position in `values`

  /// The placement of `value`, or null when the plan does not know it.
  const ValuePlacement* find(const Value* value) const;
  /// Whether an input of `node` is placed as a slice (MemoryAlias::kSlice) of the node's
  /// only output: the node concatenates, and that input's producer wrote it in place.
  bool has_input_in_slice(const Node& node) const;
};

enum class ExecutionOrder {
  kStable,          ///< Graph::topological_order(kStable)
  kMemoryPriority,  ///< memory_priority_order(): lowers the peak of live bytes
};

struct MemoryPlanOptions {
  size_t alignment = 512;    ///< weights and feature map
  size_t io_alignment = 32;  ///< zero-copy I/O
  /// Off: top-level inputs and outputs live in the feature map (inputs from the entry
  /// step, outputs to the exit step) and the runtime copies them.
  bool zero_copy_io = true;
  bool in_place = true;           ///< ops whose schema declares InPlacePairs, over a dying input
  bool views = true;              ///< ops whose schema says is_view alias their input
  bool continuous_concat = true;  ///< producers write into their slices of a concatenation
  /// Initializers with identical bytes share one weights slot (MemoryAlias::kIdentical).
  bool merge_identical_weights = true;
  ExecutionOrder order = ExecutionOrder::kStable;
  /// When not empty, the top-level execution order to plan for (every node exactly once,
  /// producers first); overrides `order`.
  std::vector<const Node*> explicit_order;
  /// When it has more than one stream: the streams the top-level nodes run on, over
  /// `explicit_order` (required then; node indices are positions in it). Buffers then
  /// share bytes only when stream order and events separate their lifetimes. Graphs with
  /// subgraphs are refused.
  const StreamPlan* streams = nullptr;
  /// The op schemas that say which ops may run in place (OpSchemaInfo::in_place), which
  /// are views (OpSchemaInfo::is_view) and which concatenate their inputs
  /// (OpSchemaInfo::concatenates_along). Without a registry no op does any of these.
  const OpRegistry* ops = nullptr;
  /// Optional: kernel workspace bytes per node, planned live for the node's steps.
  std::function<size_t(const Node&)> workspace_bytes;
  /// Optional: what each node's kernel needs zeroed before it runs (atomic clean): those
  /// outputs and workspaces go into the clean group.
  std::function<ZeroedMemory(const Node&)> zeroed_memory;
};

/// A topological order of `graph`'s nodes meant to lower the peak of live memory: a list
/// schedule that runs, among ready nodes, the one that grows live memory the least (bytes
/// it allocates minus bytes whose last consumer it is; ties keep the stable order) --
/// unless the depth-first or the stable order has a lower peak of live node outputs, in
/// which case that one. Subgraph bodies are not reordered.
Result<std::vector<const Node*>> memory_priority_order(const Graph& graph, size_t alignment = 512);

/// Plans `graph` (shapes inferred): lifetimes, regions, in-place/view/Concat merging,
/// then every assigner in `assigners` on the feature-map buffers; the smallest valid
/// answer is kept (ties: the earlier assigner) and the whole plan is validated. Fails
/// when no assigner is given or none gives a valid answer, naming each one's error.
/// Values that cannot be placed statically are kept with region kUnplanned and a
/// reason. The plan refers to `graph`'s nodes and values. Thread-safe for distinct
/// graphs.
Result<GraphMemoryPlan> plan_memory(const Graph& graph, const std::vector<std::shared_ptr<MemoryAssigner>>& assigners,
                                    const MemoryPlanOptions& options = {});

/// Checks one assigner answer: one offset per request, alignment, inside total_bytes, no
/// two conflicting requests overlapping. Errors name the requests.
Status validate_assignment(const std::vector<MemoryRequest>& requests, const MemoryPlan& plan, size_t alignment);

/// Checks a whole plan without trusting how it was made: every placement inside its
/// region; aliases in the source's region, views at the source's offset, slices inside
/// the source, in-place values at the source's offset made when the source dies; buffer
/// bases aligned; and no two values live at the same step overlapping in bytes unless
/// they hold the same data (views, slices) or hand over in place at that step; atomic
/// clean groups aligned, inside the feature map and apart, every block marked for one
/// inside it, and no other value (views of those blocks excepted) overlapping a group at
/// any step. Errors name both values.
Status validate_memory_plan(const GraphMemoryPlan& plan);

}  // namespace ge
