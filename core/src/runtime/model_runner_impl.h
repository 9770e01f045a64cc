#pragma once
// The model runner's private state, ModelRunner::Impl, shared by the files that define
// its parts (ge/runtime/model_runner.h): preparation, placement, weights, tasks, capture,
// execution and model-file plans.

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/memory_plan.h"
#include "ge/runtime/model_runner.h"
#include "ge/runtime/stream_capture.h"

namespace ge {
namespace runner {

inline constexpr size_t kArenaAlignment = 512;  // GE's feature-map and weight alignment

/// Where a value lives: at a fixed offset in the arena or the weights block, or inside a
/// caller's input or output buffer (bound per execute). The address a task definition
/// stores.
using Location = TaskAddress;

/// An address slot rewritten per execute: a kernel argument or a memcpy task address.
struct IoPatch {
  const void** read = nullptr;  // set for sources
  void** write = nullptr;       // set for destinations
  Location location;            // kInput or kOutput
};

/// A copy between graph I/O and the model's own memory that no kernel does: graph
/// outputs that are inputs, weights or repeats of earlier outputs (after the tasks),
/// and, without zero-copy I/O, inputs into the arena (before) and outputs out (after).
struct IoCopy {
  Location destination, source;
  size_t bytes = 0;
};

/// Where every value and workspace of the loaded graph lives.
struct Placement {
  std::unordered_map<const Value*, Location> location;
  std::vector<Location> workspace;  // per step of the order
};

using PreparedKernels = std::unordered_map<const Node*, PreparedKernel>;
using InputIndex = std::unordered_map<const Value*, size_t>;  // runtime input -> its index

/// What compiling a graph for a backend decides, with no device: the loaded graph, its
/// kernels, order, streams, memory plan, placement and task definitions
/// (ModelRunner::compile; ge::CompiledModel holds one). Load adds the device's part.
struct Compiled {
  using Assigners = std::vector<std::shared_ptr<MemoryAssigner>>;

  /// Whether `at` lies in a caller's buffer.
  static bool is_io(const Location& at) {
    return at.region == Location::Region::kInput || at.region == Location::Region::kOutput;
  }
  /// `at` moved on by `bytes`.
  static Location plus(const Location& at, size_t bytes) { return {at.region, at.index, at.offset + bytes}; }

  Compiled() = default;
  Compiled(Compiled&&) = default;
  Compiled& operator=(Compiled&&) = default;
  ~Compiled() = default;

  const Backend* backend = nullptr;  // prepares kernels; its device is never touched here
  std::shared_ptr<TensorPool> output_pool;  // counts the kernels' held bytes; the runner's output tensors
  std::unique_ptr<Graph> graph;
  std::vector<PreparedKernel> kernels;   // per node in `order`
  std::vector<Node*> order;
  StreamPlan plan;
  const OpRegistry* ops = nullptr;               // the op schemas the memory plan follows (MemoryPlanOptions::ops)
  std::unique_ptr<GraphMemoryPlan> memory_plan;  // set by compile
  Placement placement;                           // every value's and workspace's location
  /// Atomic clean: feature-map ranges zeroed by one memset task per run each.
  std::vector<CleanGroup> clean_groups;
  std::vector<std::vector<TaskDef>> task_defs;  // per stream, in submission order
  /// Submission order: (stream, first task, end task); consecutive tasks of one stream in
  /// the global topological order. Waits make the order irrelevant on asynchronous
  /// streams; on synchronous ones it keeps every wait after its record.
  struct Chunk {
    size_t stream, begin, end;
  };
  std::vector<Chunk> chunks;
  std::vector<IoCopy> copies_in, copies_out;
  std::vector<Value*> runtime_inputs;
  std::vector<size_t> input_bytes, output_bytes;
  size_t arena_bytes = 0;
  size_t arena_alignment = kArenaAlignment;
  size_t weights_bytes = 0;
  /// The constants the weights region holds, at their region offsets.
  std::vector<std::pair<const Value*, size_t>> weight_offsets;

  // Preparation (model_runner_preparation.cc).
  /// Checks every node can run in the task sink and prepares its kernel.
  Result<PreparedKernels> prepare_kernels(const std::vector<Node*>& topological, const std::string& where) const;
  /// Checks the graph's inputs, outputs and initializers; sets runtime_inputs and the I/O
  /// byte counts; returns each runtime input's index.
  Result<InputIndex> take_io(const std::string& where);

  // Placement (model_runner_placement.cc).
  /// `order`, of `source`'s nodes, as the same nodes of the loaded clone.
  Result<std::vector<const Node*>> on_clone(const Graph& source, std::vector<const Node*> order,
                                            const std::string& where) const;
  /// Plans the memory of the loaded graph (`plan_options` name its nodes, and its streams
  /// when there are several) with what the prepared kernels need (workspaces, zeroing).
  Result<GraphMemoryPlan> plan_for_kernels(MemoryPlanOptions plan_options, const Assigners& assigners,
                                           const PreparedKernels& prepared, const std::string& where) const;
  /// Streams over `order` (up to `max_streams`) and the memory plan for them, within
  /// `ratio` times the one-stream plan's feature map (ModelRunnerOptions::
  /// stream_memory_ratio); sets `plan`. `plan_options` names `order` as its explicit order.
  Result<GraphMemoryPlan> plan_streams_and_memory(const std::vector<Node*>& order, int max_streams, double ratio,
                                                  MemoryPlanOptions plan_options, Assigners assigners,
                                                  const PreparedKernels& prepared, const std::string& where);
  /// Without a model file: the order, streams and memory plan the options ask for, placed.
  Status plan_and_place(const Graph& source, const std::vector<Node*>& topological, const ModelRunnerOptions& options,
                        const PreparedKernels& prepared, const InputIndex& input_index, const std::string& where);
  /// With memory assigners: plans the loaded graph (plan_for_kernels) and places it.
  Status place_with_plan(MemoryPlanOptions plan_options, const Assigners& assigners, const PreparedKernels& prepared,
                         const InputIndex& input_index, const std::string& where);
  /// Takes a memory plan of the loaded graph: its order, regions and offsets, the
  /// placement and the copies between the graph's I/O and the model's memory.
  Status place(GraphMemoryPlan planned, const InputIndex& input_index, const std::string& where);

  // The model file's plans (model_runner_model_file.cc).
  /// Takes a model file's order, streams and memory plan, validated against this graph
  /// and the prepared kernels, never trusted, and places them.
  Status place_model_file_plans(const Graph& source, const CompiledPlans& plans, const std::vector<Node*>& topological,
                                const ModelRunnerOptions& options, const PreparedKernels& prepared,
                                const InputIndex& input_index, const std::string& where);
  /// Checks the model file's task definitions are exactly the ones built.
  Status check_model_file_tasks(const CompiledPlans& plans, const std::string& where) const;

  // Task definitions (model_runner_tasks.cc).
  /// The task definitions and chunks for `order` on `plan`'s streams, from the placement.
  Status build_task_defs(const std::string& where);

  /// The plans in a model file's form (ModelRunner::compiled_plans).
  CompiledPlans plans() const;
};

}  // namespace runner

struct ModelRunner::Impl : runner::Compiled {
  using Location = runner::Location;
  using IoPatch = runner::IoPatch;
  using IoCopy = runner::IoCopy;
  using Placement = runner::Placement;
  using PreparedKernels = runner::PreparedKernels;
  using InputIndex = runner::InputIndex;

  explicit Impl(runner::Compiled compiled) : runner::Compiled(std::move(compiled)) {}

  Device* device = nullptr;
  std::vector<std::string> node_labels;  // per node in `order`: KernelTask::node
  std::vector<std::unique_ptr<CaptureStream>> streams;
  std::vector<Stream*> stream_pointers;  // the backend streams, for CapturedModel::execute
  std::vector<std::unique_ptr<Event>> events;
  /// The task lists as a captured model: load submits them on capturing streams (the
  /// stream capture machinery user code uses); execute replays it. Null when the model
  /// has no task.
  std::unique_ptr<CapturedModel> captured;
  /// Copies whose addresses lie in caller buffers: the capture holds copies by value, so
  /// each is captured as its own task group and updated from `tasks` per execute.
  struct PatchedCopy {
    size_t stream, task;
    TaskGroupHandle group;
  };
  std::vector<PatchedCopy> patched_copies;
  /// Tasks holding feature-map addresses by value (a caller feature map only): updated
  /// when the base moves.
  std::vector<PatchedCopy> arena_tasks;
  /// execute_bound_async: `ready` orders the model after the caller's stream, `done` the
  /// caller's stream after the model (created on first use, reused); while a launch is in
  /// flight the argument tables are its, so the next execute waits for `done` first.
  std::unique_ptr<Event> ready, done;
  bool in_flight = false;
  // The token of the execute() in progress (RunOptions::cancellation), else null.
  const CancellationToken* cancellation = nullptr;
  std::vector<std::vector<Task>> tasks;
  /// Per stream and task: the step of a kernel launch, SIZE_MAX for other tasks.
  std::vector<std::vector<size_t>> task_step;
  /// SuperKernel (seed 001): per stream, runs of consecutive small kernel launches
  /// [begin, end) of `tasks` the capture holds as one launch of `task`.
  struct SuperRun {
    size_t end = 0;
    KernelTask task;
  };
  std::vector<std::map<size_t, SuperRun>> super_runs;
  std::vector<PreparedKernel> super_kernels;    // their kernels, kept for the launches
  std::deque<std::string> super_labels;         // their KernelTask::node strings
  // Argument tables: every kernel's input and output addresses, back to back.
  std::vector<const void*> input_table;
  std::vector<void*> output_table;
  std::vector<IoPatch> patches;  // refreshed per execute
  void* arena = nullptr;  // the feature map's base: the runner's own, or the caller's
  std::shared_ptr<void> arena_reservation;  // arena_bytes counted in the output pool's limit
  bool caller_feature_map = false;  // ModelRunnerOptions::caller_feature_map: no arena of our own
  /// With a caller feature map: every feature-map address the task lists hold, as an
  /// offset, rewritten when the base moves (argument-table slots, and fields of tasks
  /// captured by value, which are their own task groups).
  struct ArenaSlot {
    const void** read = nullptr;
    void** write = nullptr;
    size_t offset = 0;
  };
  std::vector<ArenaSlot> arena_slots;
  void* weights = nullptr;
  /// On a host-accessible device the weights are not copied: the weights region is the
  /// constants' own bytes, each planned range [offset, offset + bytes) read in place
  /// (sorted by offset). A location in the region outside every range makes the runner
  /// copy the region into a block after all (settle_weights).
  struct HostWeight {
    size_t offset = 0, bytes = 0;
    const char* data = nullptr;
    const Tensor* tensor = nullptr;  // the graph's constant holding `data`
  };
  bool weights_in_place = false;
  std::vector<HostWeight> host_weights;
  // Staging buffers for devices the host cannot address.
  std::vector<void*> staged_inputs, staged_outputs;
  // On a host-accessible device, aligned copies of caller buffers that are not zero-copy
  // aligned (allocated on first need, null until then), and which were copied last run.
  std::vector<void*> aligned_inputs, aligned_outputs;
  std::vector<size_t> copied_inputs, copied_outputs;

  ~Impl();

  // The model's own memory and addresses (model_runner_addresses.cc).
  /// The device address of `location` with the given caller buffers.
  const void* address(const Location& location, std::span<const void* const> inputs,
                      std::span<void* const> outputs) const;
  /// The address of a location in the model's own memory; null for caller buffers.
  void* own_address(const Location& location) const;
  /// Checks a region against the session's memory limit (the output pool's) before it is
  /// allocated: a plan beyond the limit is the user's error, not the device's.
  Status check_region(const std::string& what, size_t bytes) const;
  /// The feature map of arena_bytes at arena_alignment: allocated, or left to the caller.
  Status allocate_arena();
  /// Points every feature-map address of the task lists at `base`.
  Status move_feature_map(void* base);

  // Weights (model_runner_weights.cc).
  /// The address of weights-region byte `offset`; null in place when no constant holds it.
  const char* weight_at(size_t offset) const;
  /// Reserves the weights region (in place on a host-accessible device, else a block)
  /// and records where each constant goes in it (weight_offsets); settle_weights reads
  /// them in place or uploads them.
  Status reserve_weights();
  /// After placement: in place, every weights location must lie in a constant's bytes,
  /// else the region is copied into a block as on other devices. A block is filled with
  /// upload_weights().
  Status settle_weights(const std::string& where);
  /// Weight merging (seed 001): the region goes to the device in as few copies as its
  /// host layout allows, never staging bytes where that costs more than it saves. Weights
  /// whose bytes lie in one host block at the distances of their region offsets (a .gem
  /// file's weights partition, written in the region's layout) go in one copy straight
  /// from that block: a compiled model's whole region in one copy. Of the rest, those
  /// under kDirectCopyBytes are gathered into host staging images (padding zeroed, at most
  /// kStagingImageBytes each), one copy per image; larger ones are copied from their own
  /// bytes, as staging them would cost a host pass over as many bytes as the copy moves.
  Status upload_weights(const std::string& where);
  /// Shrink (seed 000): once the weights are in the device block, the graph's host
  /// copies are dropped; each initializer keeps its dtype and shape, with no data. A
  /// host-accessible device keeps them: they are the region its kernels read in place,
  /// and sibling runners prepare kernels from them.
  void release_host_weights();

  // Tasks (model_runner_tasks.cc).
  /// The argument tables and task lists from the task definitions, on this device.
  Status materialise_tasks();

  // Streams, super kernels and capture (model_runner_capture.cc).
  /// Creates the plan's streams and events.
  Status create_streams();
  /// Groups runs of at least two consecutive kernel launches of one chunk whose node
  /// writes at most `max_bytes` into super kernels of the backend (none when it has none).
  Status build_super_kernels(size_t max_bytes, const std::string& where);
  /// Submits tasks [begin, end) of stream `s` on `stream`, each super-kernel run as one.
  Status submit_range(CaptureStream& stream, size_t s, size_t begin, size_t end);
  /// Builds `captured` from the task lists through stream capture: stream 0 records a fork
  /// event every other stream waits on first (so each joins the capture before its own
  /// tasks), chunks go in submission order, and every other stream ends with a join event
  /// stream 0 waits on (end_capture requires joined work to precede the origin's end).
  Status capture(const std::string& where);

  // Execution (model_runner_execution.cc).
  /// Staging buffers for the graph's I/O on a device the host cannot address.
  Status allocate_staging();
  /// Waits for an execute_bound_async launch still using the argument tables.
  Status wait_in_flight();
  /// Checks a launch's buffer counts and that a caller feature map is bound.
  Status check_launch(std::span<const void* const> inputs, std::span<void* const> outputs) const;
  /// Lists the caller buffers that are not zero-copy aligned (copied_inputs/outputs);
  /// true when there is one.
  bool find_misaligned(std::span<const void* const> inputs, std::span<void* const> outputs);
  /// Swaps those buffers for aligned ones of the runner's in `in`/`out`, appending the
  /// copies that takes: inputs in to `before`, outputs out to `after`.
  Status stage_misaligned(std::span<const void* const> inputs, std::span<void* const> outputs,
                          std::vector<const void*>& in, std::vector<void*>& out, std::vector<Task>& before,
                          std::vector<Task>& after);
  /// Writes the caller buffers into the argument tables and the copies holding them.
  Status bind_io(std::span<const void* const> inputs, std::span<void* const> outputs);
  /// Appends the MemcpyTasks of `list` with these caller buffers to `copies`.
  void copy_tasks(const std::vector<IoCopy>& list, std::span<const void* const> inputs, std::span<void* const> outputs,
                  std::vector<Task>& copies) const;
  /// Runs those copies on stream 0, outside any capture.
  Status run_copies(const std::vector<IoCopy>& list, std::span<const void* const> inputs,
                    std::span<void* const> outputs, const char* what);
};

}  // namespace ge
