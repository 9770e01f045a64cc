#pragma once
/// Task sink: a static-shape graph loaded once into per-stream task lists, then run with
/// one call per execute.
///
/// It happens in two steps. Compiling (ModelRunner::compile, no device: seed 001's offline
/// compiler) prepares every kernel, orders the nodes, plans streams and events
/// (ge/runtime/stream_plan.h) and memory, and defines the tasks by location
/// (TaskDef) into a CompiledModel, which a model file stores. Loading (ModelRunner::load)
/// allocates one feature-map arena, places the weights on the device (identical ones
/// stored once, the region in one copy) and resolves the task definitions into task
/// lists and argument tables in which every address is resolved. Given memory assigners, a model runs out
/// of a validated GraphMemoryPlan (ge/memory_plan.h): in-place values, views and Concat
/// slices share bytes, a view at its input's address and a Concat whose inputs already sit
/// in their slices run no task; on several streams the plan shares bytes only between
/// values that stream order and events separate. Without assigners values whose
/// lifetimes do not overlap share bytes first-fit (one stream) or every value has its own
/// bytes.
/// Memory kernels need zeroed before they run (atomic clean, ZeroedMemory) lies in clean
/// groups no other value uses, each zeroed by one memset task per run.
/// The task lists are then recorded through stream capture (ge/runtime/stream_capture.h,
/// the machinery user captures use) into one CapturedModel. Executing only refreshes the
/// address slots of the graph's inputs and outputs and replays that model. The per-op mode is ge::Executor (ge/executor.h); both give the
/// same results.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/plugin_api/memory_assigner.h"
#include "ge/memory_plan.h"
#include "ge/runtime/stream_plan.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_pool.h"

namespace ge {

/// Where a task address points: the model's own memory (arena, weights) or a caller's I/O
/// buffer bound per execute, at a byte offset.
struct TaskAddress {
  enum class Region : uint8_t { kNone, kArena, kWeights, kInput, kOutput };
  Region region = Region::kNone;
  uint64_t index = 0;   ///< runtime input or graph output, for kInput and kOutput
  uint64_t offset = 0;  ///< from the region's base or the caller buffer's start
  bool operator==(const TaskAddress&) const = default;
};

/// One sunk task as a compiled model file stores it: no pointers, only steps of the
/// execution order, event numbers and addresses.
struct TaskDef {
  enum class Kind : uint8_t { kKernel, kMemcpy, kEventRecord, kEventWait, kMemset };
  Kind kind = Kind::kKernel;
  uint64_t step = 0;   ///< kKernel: the node's step in the execution order
  uint64_t event = 0;  ///< kEventRecord, kEventWait: index into StreamPlan::events
  /// kKernel: the node's inputs, then its outputs, then the workspace (kNone for an
  /// absent input, an omitted output or no workspace). kMemcpy: destination, source.
  /// kMemset: the atomic-clean group it zeroes.
  std::vector<TaskAddress> addresses;
  uint64_t bytes = 0;  ///< kMemcpy, kMemset
  bool operator==(const TaskDef&) const = default;
};

/// What a compiled kernel was when the model was compiled: checked against what the
/// backend prepares at load.
struct KernelMeta {
  std::string name;
  uint64_t workspace_bytes = 0;
  ZeroedMemory zeroed;  ///< what the runtime zeroes before it runs (atomic clean)
  bool operator==(const KernelMeta&) const = default;
};

/// A loaded runner's plans in a form a model file can store (ge/model_file.h) and load
/// can take back instead of planning again.
struct CompiledPlans {
  /// The execution order: indices into the graph's node list.
  std::vector<uint64_t> order;
  StreamPlan streams;  ///< over steps of `order`
  /// Set when the model runs out of a memory plan: the offset of every feature-map
  /// buffer the planner hands to the assigners (in its request order), the arena size
  /// and the assigner that produced them. Load re-derives the buffers from the graph and
  /// `order` and validates the whole plan (validate_memory_plan) before using it.
  bool has_memory_plan = false;
  std::vector<uint64_t> buffer_offsets;
  uint64_t feature_map_bytes = 0;
  std::string assigner;
  /// The atomic-clean groups of the feature map (re-derived at load, which checks them).
  std::vector<CleanGroup> clean_groups;
  std::vector<KernelMeta> kernels;         ///< per step
  std::vector<std::vector<TaskDef>> tasks;  ///< per stream, in submission order
};

struct ModelRunnerOptions {
  /// Independent branches go on up to this many streams (see plan_streams).
  int max_streams = 1;
  /// With several streams: the most feature-map bytes they may cost, as a multiple of the
  /// one-stream plan of the same order. Streams whose plan needs more are ordered for
  /// memory reuse (core/src/memory/memory_reuse_order.h: events let buffers take the bytes the
  /// one-stream plan gives them, so only work whose memory does not collide overlaps);
  /// should even that not fit, the model runs on one stream. 0: no limit (branches run
  /// side by side with the bytes that takes).
  double stream_memory_ratio = 1.1;
  /// When not empty, load plans the memory of the graph it loads with
  /// plan_memory(assigners, memory_plan_options) and executes that plan's order out of one
  /// arena of exactly plan.feature_map_bytes; with several streams the streams are planned
  /// first, over that order, and the memory plan follows them. Empty: the first-fit arena.
  std::vector<std::shared_ptr<MemoryAssigner>> memory_assigners;
  /// Options for that plan. load fills `workspace_bytes` from the prepared kernels; an
  /// `explicit_order` names nodes of the graph passed to load. Without `ops` no op runs in
  /// place or as a view (a stored plan made with them then does not hold).
  MemoryPlanOptions memory_plan_options;
  /// When set (a model file's plans, untrusted): load takes this execution order, stream
  /// plan and memory plan instead of planning (max_streams and the assigners are
  /// ignored), validates each against the graph, checks every prepared kernel against
  /// `kernels`, and checks that the task lists it builds equal `tasks`. Any mismatch is
  /// kInvalidArgument naming what differs. Indices refer to the graph passed to load.
  const CompiledPlans* precompiled = nullptr;
  /// The feature map is the caller's (seed 000's refreshable feature-map base): load
  /// allocates none, and every execute needs one bound first (bind_feature_map, or the
  /// execute_bound overload taking it), of feature_map_bytes() at feature_map_alignment().
  /// Lets models that never run at once share one arena. The weights stay the runner's
  /// (the fixed region).
  bool caller_feature_map = false;
  /// SuperKernel (seed 001): runs of at least two consecutive kernel launches on one
  /// stream whose nodes write at most this many bytes each (many tiny ops: the launch
  /// cost dominates) become one launch of the backend's super kernel
  /// (Backend::prepare_super_kernel). 0: off; also off with caller_feature_map or on a
  /// backend without super kernels. stream_tasks() still lists every launch.
  size_t super_kernel_max_bytes = 0;
  /// When set, execute() takes its output tensors from this pool (not zeroed: every
  /// output is written) instead of allocating zeroed ones per run.
  std::shared_ptr<TensorPool> output_pool;
  /// GE's Shrink (seed 000): on a device the host cannot address, once the weights are
  /// on the device the runner's graph drops its host copies (initializers keep dtype and
  /// shape, with no data), so host memory holds no second copy of the weights. No effect
  /// on a host-accessible device, whose kernels read the constants in place.
  bool shrink = false;
};

/// Caller buffers bound zero-copy must be aligned to this (GE's zero-copy alignment; the
/// planner's own blocks use 512).
inline constexpr size_t kZeroCopyAlignment = 32;

namespace runner {
struct Compiled;
}

/// A graph compiled for a backend's kernels (seed 001's offline model): the loaded copy
/// of the graph, its prepared kernels, execution order, stream plan, memory plan and task
/// definitions, with no device touched: no memory allocated, no weight copied, no stream
/// created. ModelRunner::compile makes one; ModelRunner::load puts it on the backend's
/// device; plans() is what a model file stores.
class CompiledModel {
 public:
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;
  ~CompiledModel();

  /// The graph the plans index (a copy of the one compiled).
  const Graph& graph() const;
  const StreamPlan& stream_plan() const;
  /// The memory plan the model runs out of.
  const GraphMemoryPlan& memory_plan() const;
  size_t feature_map_bytes() const;
  size_t weight_bytes() const;
  /// The plans in a model file's form (ge/model_file.h).
  CompiledPlans plans() const;

 private:
  friend class ModelRunner;
  explicit CompiledModel(std::unique_ptr<runner::Compiled> state);
  std::unique_ptr<runner::Compiled> state_;
};

class ModelRunner {
 public:
  ~ModelRunner();
  ModelRunner(const ModelRunner&) = delete;
  ModelRunner& operator=(const ModelRunner&) = delete;

  /// Compiles `graph` (already inferred and optimised; copied, not kept) for `backend`'s
  /// kernels without its device: prepares every kernel, orders the nodes, plans streams
  /// and memory and defines the tasks. Every value must be a tensor of static shape and
  /// every node a backend kernel: control flow, sequences and dynamic shapes fail with
  /// kUnsupported naming the node (use ge::Executor for those). With `precompiled` the
  /// stored plans are validated and taken instead of planned. Reads every option but
  /// caller_feature_map, super_kernel_max_bytes and shrink, which are load's.
  static Result<CompiledModel> compile(const Graph& graph, const Backend& backend,
                                       const ModelRunnerOptions& options = {});
  /// Loads a compiled model on `backend`'s device (the backend it was compiled for):
  /// allocates the arena, places the weights, creates streams and events, resolves the
  /// task definitions into task lists and captures them. Reads caller_feature_map,
  /// super_kernel_max_bytes and shrink. `backend` must outlive the runner.
  static Result<std::unique_ptr<ModelRunner>> load(CompiledModel compiled, Backend& backend,
                                                   const ModelRunnerOptions& options = {});
  /// compile, then load.
  static Result<std::unique_ptr<ModelRunner>> load(const Graph& graph, Backend& backend,
                                                   const ModelRunnerOptions& options = {});

  /// Runs once. `inputs` bind the runtime inputs by name with exactly the declared dtype
  /// and shape. On a host-accessible device the caller's input buffers and the returned
  /// output tensors are bound zero-copy; otherwise they are copied through device
  /// staging buffers. Not thread-safe: one execute at a time per runner.
  /// `options.cancellation` stops it between slices of its tasks (CapturedModel::run).
  Status execute(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options = {});

  /// Runs once on caller-owned device buffers: one address per runtime input and per
  /// graph output, in graph order, each holding the declared byte size. Only the I/O
  /// address slots of the argument tables are rewritten. A buffer is bound zero-copy
  /// when it is kZeroCopyAlignment-aligned; otherwise the runner copies it through an
  /// aligned device buffer of its own, in stream order (copied_io() names it).
  Status execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs);
  /// Same on the feature map at `feature_map` (a runner loaded with caller_feature_map):
  /// the feature-map base is refreshed like the I/O slots, when it moved.
  Status execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs, void* feature_map);
  /// Launches on `stream` (a stream of this runner's device the caller owns) and returns
  /// at once: the model starts after the work queued on `stream` so far, and work queued
  /// on `stream` afterwards starts after the model (events, created once per runner).
  /// The buffers must stay valid until then. A later execute of this runner first waits
  /// for this launch (the argument tables are its until it ends).
  Status execute_bound_async(std::span<const void* const> inputs, std::span<void* const> outputs, Stream& stream);
  /// Points every feature-map address of the task lists at `base` (device memory of
  /// feature_map_bytes() at feature_map_alignment()); only for a runner loaded with
  /// caller_feature_map. Argument-table slots are rewritten, tasks holding feature-map
  /// addresses by value are updated as task groups of the captured model.
  Status bind_feature_map(void* base);
  /// The inputs and outputs ("input 'x'", "output 'y'") the latest execute copied instead
  /// of binding them zero-copy, because their buffers were not aligned.
  std::vector<std::string> copied_io() const;

  /// The loaded graph (after a load with `shrink` that dropped the weights, its
  /// initializers have dtype and shape but no data).
  const Graph& graph() const;
  const StreamPlan& stream_plan() const;
  /// The sunk task lists, one per stream (kernel launches, copies, atomic-clean memsets
  /// and event record/wait).
  const std::vector<std::vector<Task>>& stream_tasks() const;
  /// Atomic clean (seed 002): the feature-map ranges holding memory kernels need zeroed;
  /// the task lists zero each with one MemsetTask per run, on the group's stream, before
  /// the first kernel writing it. With a memory plan, the plan's; otherwise one per stream
  /// of the first-fit arena, after its other values.
  const std::vector<CleanGroup>& clean_groups() const;
  size_t feature_map_bytes() const;
  /// The alignment a caller-supplied feature map needs (the memory plan's).
  size_t feature_map_alignment() const;
  /// Super kernels the captured task lists launch (see super_kernel_max_bytes).
  size_t super_kernel_count() const;
  size_t weight_bytes() const;
  /// Bytes of the runner's own copy of the weights: 0 on a host-accessible device, where
  /// kernels read the constants in place.
  size_t weight_copy_bytes() const;
  /// Bytes of constant data graph() still holds on the host (storage shared by several
  /// initializers counted once); 0 after a load with `shrink` on a device the host cannot
  /// address.
  size_t host_weight_bytes() const;
  /// The plan the runner executes (its nodes and values are graph()'s), or null when it
  /// uses the first-fit arena.
  const GraphMemoryPlan* memory_plan() const;
  /// The plans this runner executes, for a model file (see ModelRunnerOptions::precompiled).
  CompiledPlans compiled_plans() const;

 private:
  struct Impl;
  explicit ModelRunner(std::unique_ptr<Impl> impl);
  /// execute_bound once every buffer is zero-copy aligned.
  Status execute_aligned(std::span<const void* const> inputs, std::span<void* const> outputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ge
