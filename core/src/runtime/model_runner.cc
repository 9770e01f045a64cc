// The task-sink model runner: kernel preparation, placement from the memory plan, task lists,
// capture and execution (ge/runtime/model_runner.h).
#include "ge/runtime/model_runner.h"

#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/memory_limit.h"
#include "ge/memory_reuse_order.h"
#include "ge/runtime/stream_capture.h"
#include "../plugin_call.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <cstring>
#include <deque>
#include <set>
#include <map>
#include <unordered_set>
#include <utility>
#include <variant>

namespace ge {
namespace {

constexpr size_t kArenaAlignment = 512;  // GE's feature-map and weight alignment

/// Whether `plan` made `node` a view (its schema's is_view): output 0 an alias of input 0,
/// or, when the view was already a Concat slice, input 0 an alias of the output.
bool planned_as_view(const GraphMemoryPlan& plan, const Node& node) {
  if (node.input_count() < 1 || node.input(0) == nullptr || node.output_count() != 1) return false;
  const ValuePlacement* in = plan.find(node.input(0));
  const ValuePlacement* out = plan.find(node.output(0));
  auto aliases = [&plan](const ValuePlacement* alias, const ValuePlacement* source) {
    return alias != nullptr && source != nullptr && alias->alias == MemoryAlias::kView && alias->alias_source >= 0 &&
           static_cast<size_t>(alias->alias_source) < plan.values.size() && &plan.values[alias->alias_source] == source;
  };
  return aliases(out, in) || aliases(in, out);
}

/// "outputs {0, 2} and the workspace", "nothing": what a kernel needs zeroed.
std::string describe_zeroed(const ZeroedMemory& zeroed) {
  std::string outputs;
  for (size_t k = 0; k < 64; ++k) {
    if (zeroed.output(k)) outputs += (outputs.empty() ? "" : ", ") + std::to_string(k);
  }
  std::string text = outputs.empty() ? "" : "outputs {" + outputs + "}";
  if (zeroed.workspace) text += (text.empty() ? "" : " and ") + std::string("the workspace");
  return text.empty() ? "nothing" : text;
}

/// Where a value lives: at a fixed offset in the arena or the weights block, or inside a
/// caller's input or output buffer (bound per execute).
struct Location {
  enum class Kind : uint8_t { kNone, kArena, kWeights, kInput, kOutput };
  Kind kind = Kind::kNone;
  size_t index = 0;   // runtime input or graph output, for kInput and kOutput
  size_t offset = 0;  // from the region base or the start of the caller's buffer
  bool operator==(const Location&) const = default;
  bool is_io() const { return kind == Kind::kInput || kind == Kind::kOutput; }
  Location plus(size_t bytes) const { return {kind, index, offset + bytes}; }
};

static_assert(static_cast<int>(Location::Kind::kOutput) == static_cast<int>(TaskAddress::Region::kOutput) &&
              static_cast<int>(Location::Kind::kArena) == static_cast<int>(TaskAddress::Region::kArena));

TaskAddress to_task_address(const Location& location) {
  return {static_cast<TaskAddress::Region>(location.kind), location.index, location.offset};
}

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

/// Hands the planner the buffer offsets a model file stored, so that load re-derives
/// every buffer from the graph and validates the stored answer instead of searching.
std::shared_ptr<MemoryAssigner> stored_plan_assigner(const CompiledPlans& plans) {
  return fixed_offsets_assigner(plans.assigner.empty() ? std::string("stored plan") : plans.assigner + " (stored plan)",
                                {plans.buffer_offsets.begin(), plans.buffer_offsets.end()},
                                static_cast<size_t>(plans.feature_map_bytes));
}

/// Per node of `order`, the order positions of the nodes it depends on (input producers
/// and control predecessors; any position, so that a bad order can be named).
std::vector<std::vector<size_t>> dependences_in(const std::vector<Node*>& order) {
  std::unordered_map<const Node*, size_t> step_of;
  for (size_t i = 0; i < order.size(); ++i) step_of[order[i]] = i;
  std::vector<std::vector<size_t>> predecessors(order.size());
  for (size_t step = 0; step < order.size(); ++step) {
    const Node* node = order[step];
    for (const Value* in : node->inputs()) {
      if (in != nullptr && in->producer() != nullptr) predecessors[step].push_back(step_of.at(in->producer()));
    }
    for (const Node* control : node->control_predecessors()) predecessors[step].push_back(step_of.at(control));
  }
  return predecessors;
}

}  // namespace

struct ModelRunner::Impl {
  Backend* backend = nullptr;
  std::shared_ptr<TensorPool> output_pool;  // where execute's output tensors come from, when set
  Device* device = nullptr;
  std::unique_ptr<Graph> graph;
  std::vector<PreparedKernel> kernels;  // per node in `order`
  std::vector<std::string> node_labels;  // per node in `order`: KernelTask::node
  std::vector<Node*> order;
  StreamPlan plan;
  std::unique_ptr<GraphMemoryPlan> memory_plan;  // set by load
  std::vector<std::unique_ptr<CaptureStream>> streams;
  std::vector<Stream*> stream_pointers;  // the backend streams, for CapturedModel::execute
  std::vector<std::unique_ptr<Event>> events;
  /// The task lists as a captured model: load submits them on capturing streams (the
  /// stream capture machinery user code uses); execute replays it. Null when the model
  /// has no task.
  std::unique_ptr<CapturedModel> captured;
  /// Copies whose addresses lie in caller buffers: the capture holds copies by value, so
  /// each is captured as its own task group and updated from `tasks` per execute.
  struct PatchedCopy { size_t stream, task; TaskGroupHandle group; };
  std::vector<PatchedCopy> patched_copies;
  /// Tasks holding feature-map addresses by value (a caller feature map only): updated
  /// when the base moves.
  std::vector<PatchedCopy> arena_tasks;
  /// execute_bound_async: `ready` orders the model after the caller's stream, `done` the
  /// caller's stream after the model (created on first use, reused); while a launch is in
  /// flight the argument tables are its, so the next execute waits for `done` first.
  std::unique_ptr<Event> ready, done;
  bool in_flight = false;
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
  std::vector<PreparedKernel> super_kernels;  // their kernels, kept for the launches
  std::deque<std::string> super_labels;       // their KernelTask::node strings
  std::vector<std::vector<TaskDef>> task_defs;  // tasks' pointer-free twins, for model files
  /// Submission order: (stream, first task, end task); consecutive tasks of one stream in
  /// the global topological order. Waits make the order irrelevant on asynchronous
  /// streams; on synchronous ones it keeps every wait after its record.
  struct Chunk { size_t stream, begin, end; };
  std::vector<Chunk> chunks;
  // Argument tables: every kernel's input and output addresses, back to back.
  std::vector<const void*> input_table;
  std::vector<void*> output_table;
  std::vector<IoPatch> patches;  // refreshed per execute
  std::vector<IoCopy> copies_in, copies_out;
  /// Atomic clean: feature-map ranges zeroed by one memset task per run each.
  std::vector<CleanGroup> clean_groups;
  std::vector<Value*> runtime_inputs;
  std::vector<size_t> input_bytes, output_bytes;
  void* arena = nullptr;  // the feature map's base: the runner's own, or the caller's
  size_t arena_bytes = 0;
  size_t arena_alignment = kArenaAlignment;
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
  size_t weights_bytes = 0;
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

  ~Impl() {
    // Tasks reference events and kernels; streams may hold queued work: drain first.
    for (auto& stream : streams) (void)stream->synchronize();
    for (void* p : staged_inputs) device->deallocate(p);
    for (void* p : staged_outputs) device->deallocate(p);
    for (void* p : aligned_inputs) if (p != nullptr) device->deallocate(p);
    for (void* p : aligned_outputs) if (p != nullptr) device->deallocate(p);
    if (arena != nullptr && !caller_feature_map) device->deallocate(arena);
    if (weights != nullptr) device->deallocate(weights);
  }

  /// The device address of `location` with the given caller buffers.
  const void* address(const Location& location, std::span<const void* const> inputs,
                      std::span<void* const> outputs) const {
    switch (location.kind) {
      case Location::Kind::kArena: return arena != nullptr ? static_cast<const char*>(arena) + location.offset : nullptr;
      case Location::Kind::kWeights: return weight_at(location.offset);
      case Location::Kind::kInput: return static_cast<const char*>(inputs[location.index]) + location.offset;
      case Location::Kind::kOutput: return static_cast<const char*>(outputs[location.index]) + location.offset;
      case Location::Kind::kNone: break;
    }
    return nullptr;
  }

  /// The address of a location in the model's own memory; null for caller buffers.
  void* own_address(const Location& location) const {
    if (location.kind == Location::Kind::kArena) return arena != nullptr ? static_cast<char*>(arena) + location.offset : nullptr;
    if (location.kind == Location::Kind::kWeights) return const_cast<char*>(weight_at(location.offset));
    return nullptr;
  }

  /// The address of weights-region byte `offset`; null in place when no constant holds it.
  const char* weight_at(size_t offset) const {
    if (!weights_in_place) return static_cast<const char*>(weights) + offset;
    auto after = std::upper_bound(host_weights.begin(), host_weights.end(), offset,
                                  [](size_t at, const HostWeight& w) { return at < w.offset; });
    if (after == host_weights.begin()) return nullptr;
    const HostWeight& w = *(after - 1);
    return offset < w.offset + std::max<size_t>(w.bytes, 1) ? w.data + (offset - w.offset) : nullptr;
  }

  /// The feature map of arena_bytes at `alignment`: allocated, or left to the caller.
  Status allocate_arena(size_t alignment) {
    arena_alignment = alignment;
    if (caller_feature_map) return Status::ok();
    GE_RETURN_IF_ERROR(check_region("feature-map arena", arena_bytes));
    GE_ASSIGN_OR_RETURN(arena, device->allocate(std::max<size_t>(arena_bytes, 1), alignment));
    return Status::ok();
  }

  /// Points every feature-map address of the task lists at `base`.
  Status move_feature_map(void* base) {
    arena = base;
    for (const ArenaSlot& slot : arena_slots) {
      if (slot.read != nullptr) *slot.read = static_cast<const char*>(base) + slot.offset;
      if (slot.write != nullptr) *slot.write = static_cast<char*>(base) + slot.offset;
    }
    for (const PatchedCopy& task : arena_tasks) {
      GE_RETURN_IF_ERROR(captured->update_task_group(task.group, {tasks[task.stream].data() + task.task, 1}));
    }
    return Status::ok();
  }

  /// Waits for an execute_bound_async launch still using the argument tables.
  Status wait_in_flight() {
    if (!in_flight) return Status::ok();
    in_flight = false;
    return done->synchronize().with_context("graph '" + graph->name() + "': the previous asynchronous execute");
  }

  /// Checks a region against the session's memory limit (the output pool's) before it is
  /// allocated: a plan beyond the limit is the user's error, not the device's.
  Status check_region(const std::string& what, size_t bytes) const {
    const size_t limit = output_pool ? output_pool->memory_limit() : 0;
    return check_memory_limit("the task sink's " + what + " of graph '" + graph->name() + "'", bytes, limit);
  }

  /// Reserves the weights region: in place on a host-accessible device, else a block.
  Status reserve_weights(size_t alignment) {
    weights_in_place = device->host_accessible();
    host_weights.clear();
    if (weights_in_place) return Status::ok();
    GE_RETURN_IF_ERROR(check_region("weights", weights_bytes));
    GE_ASSIGN_OR_RETURN(weights, device->allocate(std::max<size_t>(weights_bytes, 1), alignment));
    return Status::ok();
  }

  /// After placement: in place, every weights location must lie in a constant's bytes,
  /// else the region is copied into a block as on other devices. A block is filled with
  /// upload_weights().
  Status settle_weights(const std::unordered_map<const Value*, Location>& location, const std::string& where) {
    std::sort(host_weights.begin(), host_weights.end(),
              [](const HostWeight& a, const HostWeight& b) { return a.offset < b.offset; });
    if (weights_in_place) {
      bool resolved = true;
      for (const auto& [value, at] : location) {
        if (at.kind == Location::Kind::kWeights && weight_at(at.offset) == nullptr) resolved = false;
      }
      if (resolved) return Status::ok();
      GE_RETURN_IF_ERROR(check_region("weights", weights_bytes));
      GE_ASSIGN_OR_RETURN(weights, device->allocate(std::max<size_t>(weights_bytes, 1), kArenaAlignment));
      weights_in_place = false;
    }
    GE_RETURN_IF_ERROR(upload_weights(where));
    host_weights.clear();  // the block holds them now: the constants may go (shrink)
    return Status::ok();
  }

  /// Weight merging (seed 001): the region goes to the device in as few copies as its
  /// host layout allows, never staging bytes where that costs more than it saves. Weights
  /// whose bytes lie in one host block at the distances of their region offsets (a .gem
  /// file's weights partition, written in the region's layout) go in one copy straight
  /// from that block: a compiled model's whole region in one copy. Of the rest, those
  /// under kDirectCopyBytes are gathered into host staging images (padding zeroed, at most
  /// kStagingImageBytes each), one copy per image; larger ones are copied from their own
  /// bytes, as staging them would cost a host pass over as many bytes as the copy moves.
  Status upload_weights(const std::string& where) {
    constexpr size_t kDirectCopyBytes = size_t{64} << 10;
    constexpr size_t kStagingImageBytes = size_t{16} << 20;
    constexpr size_t kMaxPadding = 4096;  // between two weights of one block copied together
    char* base = static_cast<char*>(weights);
    std::vector<char> image;  // region bytes [image_begin, image_begin + image.size())
    image.reserve(std::min(weights_bytes, kStagingImageBytes));  // pages are touched as filled
    size_t image_begin = 0;
    auto flush = [&]() -> Status {
      if (image.empty()) return Status::ok();
      Status copied = device->copy_to_device(base + image_begin, image.data(), image.size());
      image.clear();
      return copied.with_context(where + ": copying weights");
    };
    const auto address = [](const HostWeight& w) { return reinterpret_cast<uintptr_t>(w.data); };
    for (size_t i = 0; i < host_weights.size();) {  // sorted by offset
      const HostWeight& first = host_weights[i];
      if (first.bytes == 0) {
        ++i;
        continue;
      }
      // The piece [i, j): weights laid out in first's block as in the region.
      size_t j = i + 1, end = first.offset + first.bytes;
      for (; j < host_weights.size(); ++j) {
        const HostWeight& w = host_weights[j];
        if (w.bytes == 0) continue;
        if (first.tensor == nullptr || w.tensor == nullptr || !w.tensor->shares_storage_with(*first.tensor) ||
            w.offset < end || w.offset - end > kMaxPadding || address(w) - address(first) != w.offset - first.offset) {
          break;
        }
        end = w.offset + w.bytes;
      }
      const size_t bytes = end - first.offset;
      if (bytes >= kDirectCopyBytes) {
        GE_RETURN_IF_ERROR(
            device->copy_to_device(base + first.offset, first.data, bytes).with_context(where + ": copying weights"));
      } else {
        if (!image.empty() &&
            (first.offset - (image_begin + image.size()) > kDirectCopyBytes || end - image_begin > kStagingImageBytes)) {
          GE_RETURN_IF_ERROR(flush());
        }
        if (image.empty()) image_begin = first.offset;
        image.resize(end - image_begin, '\0');
        std::memcpy(image.data() + (first.offset - image_begin), first.data, bytes);
      }
      i = j;
    }
    return flush();
  }

  /// Records where a constant goes in the weights region; settle_weights reads it in
  /// place or uploads it.
  Status copy_weight(const Value* value, size_t offset, const std::string& where) {
    (void)where;
    const Tensor& data = *value->constant();
    host_weights.push_back({offset, data.byte_size(), static_cast<const char*>(data.raw_data()), &data});
    return Status::ok();
  }

  /// Shrink (seed 000): once the weights are in the device block, the graph's host
  /// copies are dropped; each initializer keeps its dtype and shape, with no data. A
  /// host-accessible device keeps them: they are the region its kernels read in place,
  /// and sibling runners prepare kernels from them.
  void release_host_weights() {
    if (device->host_accessible() || weights == nullptr) return;
    for (Value* init : graph->initializers()) {
      const Tensor* data = init->constant();
      if (data == nullptr || data->dtype() == DataType::kString || data->raw_data() == nullptr) continue;
      TensorDesc desc = init->desc();  // its format, say, as it was
      graph->set_constant(init, Tensor::borrow(data->dtype(), data->shape(), nullptr));
      init->set_desc(std::move(desc));
    }
  }

  /// `order`, of `source`'s nodes, as the same nodes of the loaded clone.
  Result<std::vector<const Node*>> on_clone(const Graph& source, std::vector<const Node*> order,
                                            const std::string& where) const {
    if (order.empty()) return order;
    // The clone keeps the node list's order.
    std::unordered_map<const Node*, const Node*> cloned;
    for (auto s = source.nodes().begin(), c = graph->nodes().begin();
         s != source.nodes().end() && c != graph->nodes().end(); ++s, ++c) {
      cloned[s->get()] = c->get();
    }
    for (const Node*& node : order) {
      auto it = cloned.find(node);
      if (it == cloned.end()) {
        return invalid_argument(where + ": the memory plan's explicit order names a node of another graph");
      }
      node = it->second;
    }
    return order;
  }

  /// Plans the memory of the loaded graph (`plan_options` name its nodes, and its streams
  /// when there are several) with what the prepared kernels need (workspaces, zeroing).
  Result<GraphMemoryPlan> plan_for_kernels(MemoryPlanOptions plan_options,
                                           const std::vector<std::shared_ptr<MemoryAssigner>>& assigners,
                                           const std::unordered_map<const Node*, PreparedKernel>& prepared,
                                           const std::string& where) const {
    plan_options.workspace_bytes = [&prepared](const Node& node) -> size_t {
      auto it = prepared.find(&node);
      return it == prepared.end() ? 0 : it->second.workspace_bytes;
    };
    plan_options.zeroed_memory = [&prepared](const Node& node) -> ZeroedMemory {
      auto it = prepared.find(&node);
      return it == prepared.end() ? ZeroedMemory{} : it->second.zeroed;
    };
    Result<GraphMemoryPlan> planned = plan_memory(*graph, assigners, plan_options);
    if (!planned.is_ok()) return planned.status().with_context(where);
    return planned;
  }

  /// Streams over `order` (up to `max_streams`) and the memory plan for them, within
  /// `ratio` times the one-stream plan's feature map (ModelRunnerOptions::
  /// stream_memory_ratio); sets `plan`. `plan_options` names `order` as its explicit order.
  Result<GraphMemoryPlan> plan_streams_and_memory(const std::vector<Node*>& order, int max_streams, double ratio,
                                                  MemoryPlanOptions plan_options,
                                                  std::vector<std::shared_ptr<MemoryAssigner>> assigners,
                                                  const std::unordered_map<const Node*, PreparedKernel>& prepared,
                                                  const std::string& where) {
    std::vector<std::vector<size_t>> predecessors = dependences_in(order);
    StreamPlanOptions stream_options;
    stream_options.max_streams = max_streams;
    GE_ASSIGN_OR_RETURN(StreamPlan side_by_side, plan_streams(predecessors, stream_options));
    MemoryPlanOptions on_streams = plan_options;
    if (side_by_side.stream_count > 1) on_streams.streams = &side_by_side;
    GE_ASSIGN_OR_RETURN(GraphMemoryPlan unordered, plan_for_kernels(on_streams, assigners, prepared, where));
    if (side_by_side.stream_count <= 1 || ratio <= 0) {
      plan = std::move(side_by_side);
      return unordered;
    }
    GE_ASSIGN_OR_RETURN(GraphMemoryPlan one_stream, plan_for_kernels(plan_options, assigners, prepared, where));
    const double limit = ratio * static_cast<double>(one_stream.feature_map_bytes);
    if (static_cast<double>(unordered.feature_map_bytes) <= limit) {
      unordered.statistics.one_stream_bytes = one_stream.feature_map_bytes;
      plan = std::move(side_by_side);
      return unordered;
    }
    const size_t side_by_side_bytes = unordered.feature_map_bytes;
    auto within_limit = [&](GraphMemoryPlan& chosen, StreamPlan& streams) {
      chosen.statistics.one_stream_bytes = one_stream.feature_map_bytes;
      chosen.statistics.unordered_streams_bytes = side_by_side_bytes;
      plan = std::move(streams);
      return std::move(chosen);
    };
    auto add_dependences = [&](const std::vector<std::vector<size_t>>& extra) {
      for (size_t v = 0; v < predecessors.size(); ++v) {
        predecessors[v].insert(predecessors[v].end(), extra[v].begin(), extra[v].end());
      }
    };
    // Over the limit: serialise the widest concurrent pair of buffers, one pair at a time,
    // so that the streams give up as little overlap as the limit asks.
    constexpr int kMostPairs = 16;
    GraphMemoryPlan current = std::move(unordered);
    for (int pair = 0; pair < kMostPairs; ++pair) {
      GE_ASSIGN_OR_RETURN(std::vector<std::vector<size_t>> widest, widest_concurrent_pair_order(current));
      if (std::all_of(widest.begin(), widest.end(), [](const std::vector<size_t>& p) { return p.empty(); })) break;
      add_dependences(widest);
      GE_ASSIGN_OR_RETURN(StreamPlan serialised, plan_streams(predecessors, stream_options));
      if (serialised.stream_count <= 1) break;
      MemoryPlanOptions on_serialised = plan_options;
      on_serialised.streams = &serialised;
      GE_ASSIGN_OR_RETURN(current, plan_for_kernels(on_serialised, assigners, prepared, where));
      if (static_cast<double>(current.feature_map_bytes) <= limit) return within_limit(current, serialised);
    }
    // Still over: order the streams so that every buffer reuses the one-stream plan's
    // bytes, and offer that plan's offsets next to the assigners' own answers.
    GE_ASSIGN_OR_RETURN(std::vector<std::vector<size_t>> reuse, memory_reuse_order(one_stream));
    add_dependences(reuse);
    GE_ASSIGN_OR_RETURN(StreamPlan ordered, plan_streams(predecessors, stream_options));
    if (ordered.stream_count > 1) {
      std::vector<size_t> offsets;
      for (const MemoryBuffer& buffer : one_stream.buffers) offsets.push_back(buffer.offset);
      assigners.push_back(fixed_offsets_assigner(one_stream.statistics.assigner + " (one-stream plan, reused in order)",
                                                 std::move(offsets), one_stream.feature_map_bytes));
      MemoryPlanOptions on_ordered = plan_options;
      on_ordered.streams = &ordered;
      GE_ASSIGN_OR_RETURN(GraphMemoryPlan reusing, plan_for_kernels(on_ordered, assigners, prepared, where));
      if (static_cast<double>(reusing.feature_map_bytes) <= limit) return within_limit(reusing, ordered);
    }
    GE_LOG_INFO("{}: {} streams need {} feature-map bytes, more than {} x the {} of one stream even ordered for reuse: "
                "running on one stream", where, max_streams, side_by_side_bytes, ratio,
                one_stream.feature_map_bytes);
    plan = StreamPlan{};
    return one_stream;
  }

  /// With memory assigners: plans the loaded graph (plan_for_kernels) and places it.
  Status place_with_plan(MemoryPlanOptions plan_options, const std::vector<std::shared_ptr<MemoryAssigner>>& assigners,
                         const std::unordered_map<const Node*, PreparedKernel>& prepared,
                         const std::unordered_map<const Value*, size_t>& input_index,
                         std::unordered_map<const Value*, Location>& location, std::vector<Location>& workspace,
                         const std::string& where) {
    GE_ASSIGN_OR_RETURN(GraphMemoryPlan planned, plan_for_kernels(std::move(plan_options), assigners, prepared, where));
    return place(std::move(planned), input_index, location, workspace, where);
  }

  /// Takes a memory plan of the loaded graph: its order, regions and offsets.
  Status place(GraphMemoryPlan planned, const std::unordered_map<const Value*, size_t>& input_index,
               std::unordered_map<const Value*, Location>& location, std::vector<Location>& workspace,
               const std::string& where) {
    const Graph& g = *graph;
    memory_plan = std::make_unique<GraphMemoryPlan>(std::move(planned));
    const GraphMemoryPlan& mp = *memory_plan;
    clean_groups = mp.clean_groups;

    std::unordered_map<const Node*, Node*> mutable_node;
    for (const auto& node : g.nodes()) mutable_node[node.get()] = node.get();
    order.clear();
    for (const Node* node : mp.order) order.push_back(mutable_node.at(node));
    std::unordered_map<const Node*, size_t> step_of;
    for (size_t i = 0; i < order.size(); ++i) step_of[order[i]] = i;

    weights_bytes = mp.weights_bytes;
    GE_RETURN_IF_ERROR(reserve_weights(mp.alignment));
    arena_bytes = mp.feature_map_bytes;
    GE_RETURN_IF_ERROR(allocate_arena(mp.alignment));

    workspace.assign(order.size(), Location{});
    for (size_t i = 0; i < mp.values.size(); ++i) {
      const ValuePlacement& p = mp.values[i];
      Location at;
      switch (p.region) {
        case MemoryRegion::kWeights: at = {Location::Kind::kWeights, 0, p.offset}; break;
        case MemoryRegion::kFeatureMap: at = {Location::Kind::kArena, 0, p.offset}; break;
        case MemoryRegion::kGraphIo: {
          // A caller's buffer: the root of the alias chain is a runtime input or a graph output.
          size_t root = i;
          for (size_t hops = 0; mp.values[root].alias != MemoryAlias::kNone; ++hops) {
            if (hops > mp.values.size() || mp.values[root].alias_source < 0) {
              return internal_error(where + ": the alias chain of '" + p.name + "' is broken");
            }
            root = static_cast<size_t>(mp.values[root].alias_source);
          }
          const Value* io = mp.values[root].value;
          const size_t offset = p.offset - mp.values[root].offset;
          if (auto it = input_index.find(io); it != input_index.end()) {
            at = {Location::Kind::kInput, it->second, offset};
          } else {
            auto out = std::find(g.outputs().begin(), g.outputs().end(), io);
            if (out == g.outputs().end()) {
              return internal_error(where + ": '" + p.name + "' is planned in graph I/O but '" + mp.values[root].name +
                                    "' is neither a runtime input nor a graph output");
            }
            at = {Location::Kind::kOutput, static_cast<size_t>(out - g.outputs().begin()), offset};
          }
          break;
        }
        case MemoryRegion::kUnplanned: continue;  // build_tasks names it if a kernel needs it
      }
      if (p.workspace_of != nullptr) {
        workspace[step_of.at(p.workspace_of)] = at;
      } else if (p.value != nullptr) {
        location[p.value] = at;
        if (p.region == MemoryRegion::kWeights && p.alias == MemoryAlias::kNone && p.value->producer() == nullptr &&
            p.value->constant()) {
          if (p.value->constant()->byte_size() != p.bytes) {
            return internal_error(where + ": weight '" + p.name + "' holds " + std::to_string(p.value->constant()->byte_size()) +
                                  " bytes but is planned for " + std::to_string(p.bytes));
          }
          GE_RETURN_IF_ERROR(copy_weight(p.value, p.offset, where));
        }
      }
    }
    // Without zero-copy I/O the inputs live in the arena: copy them in before the tasks.
    for (size_t i = 0; i < runtime_inputs.size(); ++i) {
      auto it = location.find(runtime_inputs[i]);
      if (it != location.end() && !it->second.is_io() && input_bytes[i] > 0) {
        copies_in.push_back({it->second, {Location::Kind::kInput, i, 0}, input_bytes[i]});
      }
    }
    // A graph output not planned in its own caller buffer is copied there after the tasks.
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      const Value* out = g.outputs()[i];
      auto it = location.find(out);
      if (it == location.end()) {
        return unsupported(where + ": graph output '" + out->name() + "' has no static placement");
      }
      const Location direct{Location::Kind::kOutput, i, 0};
      if (it->second != direct) copies_out.push_back({direct, it->second, output_bytes[i]});
    }
    return Status::ok();
  }

  /// The argument tables and task lists for `order` on `plan`'s streams.
  Status build_tasks(const std::unordered_map<const Value*, Location>& location, const std::vector<Location>& workspace,
                     const std::string& where) {
    if (memory_plan == nullptr) return internal_error(where + ": tasks built before the memory plan");
    const Graph& g = *graph;
    // Argument tables: sized once so that KernelArgs and patches can point into them.
    size_t input_total = 0, output_total = 0;
    node_labels.clear();
    node_labels.reserve(order.size());  // KernelTask::node points into these strings
    for (const Node* node : order) {
      node_labels.push_back(node->describe());
      input_total += node->input_count();
      output_total += node->output_count();
    }
    input_table.assign(input_total, nullptr);
    output_table.assign(output_total, nullptr);
    tasks.resize(streams.size());
    task_step.resize(streams.size());
    task_defs.resize(streams.size());

    std::vector<std::vector<size_t>> waits_before(order.size()), records_after(order.size());
    for (size_t e = 0; e < plan.events.size(); ++e) {
      waits_before[plan.events[e].consumer].push_back(e);
      records_after[plan.events[e].producer].push_back(e);
    }
    // Memcpy task addresses in caller buffers; resolved to pointers once the lists stop growing.
    struct PendingPatch {
      size_t stream = 0, task = 0;
      bool source = false;
      Location location;
    };
    std::vector<PendingPatch> pending;
    // With a caller feature map: task fields holding feature-map addresses by value.
    enum class Field { kWorkspace, kDestination, kSource, kMemset };
    struct PendingArena {
      size_t stream = 0, task = 0;
      Field field = Field::kWorkspace;
      size_t offset = 0;
    };
    std::vector<PendingArena> pending_arena;
    auto in_arena = [this](const Location& at) { return caller_feature_map && at.kind == Location::Kind::kArena; };
    auto find = [&](const Value* value, const Node* node) -> Result<Location> {
      auto it = location.find(value);
      if (it == location.end()) {
        return internal_error(where + ": value '" + value->name() + "' of " + node->describe() + " has no address");
      }
      return it->second;
    };
    // Atomic clean: before the first kernel writing a group, on the group's stream, one
    // memset zeroes the whole group.
    std::vector<char> cleaned(clean_groups.size(), 0);
    auto clean_before = [&](const Location& at, size_t bytes, size_t s, const std::string& what) -> Status {
      size_t g = 0;
      while (g < clean_groups.size() &&
             !(at.kind == Location::Kind::kArena && at.offset >= clean_groups[g].offset &&
               at.offset + bytes <= clean_groups[g].offset + clean_groups[g].bytes)) {
        ++g;
      }
      if (g == clean_groups.size()) {
        return internal_error(where + ": " + what + ", which its kernel needs zeroed, lies in no atomic-clean group");
      }
      const CleanGroup& group = clean_groups[g];
      if (static_cast<size_t>(group.stream) != s) {
        return internal_error(where + ": " + what + " runs on stream " + std::to_string(s) +
                              " but its atomic-clean group is zeroed on stream " + std::to_string(group.stream));
      }
      if (cleaned[g]) return Status::ok();
      cleaned[g] = 1;
      const Location base{Location::Kind::kArena, 0, group.offset};
      if (in_arena(base)) pending_arena.push_back({s, tasks[s].size(), Field::kMemset, group.offset});
      tasks[s].push_back(MemsetTask{own_address(base), group.bytes, 0});
      task_defs[s].push_back({TaskDef::Kind::kMemset, 0, 0, {to_task_address(base)}, group.bytes});
      return Status::ok();
    };

    size_t in_cursor = 0, out_cursor = 0;
    for (size_t step = 0; step < order.size(); ++step) {
      const Node* node = order[step];
      const auto s = static_cast<size_t>(plan.stream_of[step]);
      std::vector<Task>& list = tasks[s];
      const size_t begin = list.size();
      const size_t in_base = in_cursor, out_base = out_cursor;
      in_cursor += node->input_count();
      out_cursor += node->output_count();
      std::vector<TaskDef>& defs = task_defs[s];
      for (size_t e : waits_before[step]) {
        list.push_back(EventWaitTask{events[e].get()});
        defs.push_back({TaskDef::Kind::kEventWait, 0, e, {}, 0});
      }

      bool needs_kernel = true;
      if (planned_as_view(*memory_plan, *node)) {
        // The plan put the view at its input's address: nothing to copy.
        GE_ASSIGN_OR_RETURN(Location in, find(node->input(0), node));
        GE_ASSIGN_OR_RETURN(Location out, find(node->output(0), node));
        needs_kernel = !(in == out);
      } else if (memory_plan->has_input_in_slice(*node)) {
        // Producers wrote the inputs planned in their slices; copy only the others.
        GE_ASSIGN_OR_RETURN(Location out, find(node->output(0), node));
        std::vector<std::pair<Location, Location>> copies;  // (slice, input) of inputs elsewhere
        std::vector<size_t> copy_bytes;
        bool any_in_slice = false;
        size_t offset = 0;
        for (const Value* in : node->inputs()) {
          GE_ASSIGN_OR_RETURN(Location at, find(in, node));
          const size_t bytes = static_cast<size_t>(element_count(in->desc().static_dims())) * element_size(in->desc().dtype);
          const Location slice = out.plus(offset);
          offset += bytes;
          if (bytes == 0) continue;
          if (at == slice) {
            any_in_slice = true;
          } else {
            copies.emplace_back(slice, at);
            copy_bytes.push_back(bytes);
          }
        }
        if (any_in_slice) {
          const std::vector<int64_t> dims = node->output(0)->desc().static_dims();
          int64_t axis = node->get_int("axis", 0);
          if (axis < 0) axis += static_cast<int64_t>(dims.size());
          for (int64_t d = 0; d < axis && d < static_cast<int64_t>(dims.size()); ++d) {
            if (dims[d] != 1) {
              return internal_error(where + ": " + node->describe() + " has inputs planned in slices of an output that " +
                                    "is not contiguous per input");
            }
          }
          for (size_t c = 0; c < copies.size(); ++c) {
            const auto& [slice, at] = copies[c];
            if (slice.is_io()) pending.push_back({s, list.size(), false, slice});
            if (at.is_io()) pending.push_back({s, list.size(), true, at});
            if (in_arena(slice)) pending_arena.push_back({s, list.size(), Field::kDestination, slice.offset});
            if (in_arena(at)) pending_arena.push_back({s, list.size(), Field::kSource, at.offset});
            list.push_back(MemcpyTask{own_address(slice), own_address(at), copy_bytes[c]});
            defs.push_back({TaskDef::Kind::kMemcpy, 0, 0, {to_task_address(slice), to_task_address(at)}, copy_bytes[c]});
          }
          needs_kernel = false;
        }
      }

      if (needs_kernel) {
        const PreparedKernel& kernel = kernels[step];
        for (size_t k = 0; k < node->output_count() && kernel.zeroed.any(); ++k) {
          const Value* out = node->output(k);
          if (!kernel.zeroed.output(k) || is_omitted_output(g, out)) continue;
          GE_ASSIGN_OR_RETURN(Location at, find(out, node));
          const size_t bytes = static_cast<size_t>(element_count(out->desc().static_dims())) * element_size(out->desc().dtype);
          GE_RETURN_IF_ERROR(clean_before(at, bytes, s, "output '" + out->name() + "' of " + node->describe()));
        }
        if (kernel.zeroed.workspace && kernel.workspace_bytes > 0) {
          GE_RETURN_IF_ERROR(clean_before(workspace[step], kernel.workspace_bytes, s, "the workspace of " + node->describe()));
        }
        KernelTask task;
        task.function = kernel.function;
        task.name = kernel.name.c_str();
        task.node = node_labels[step].c_str();
        task.args.params = kernel.params.get();
        task.args.inputs = input_table.data() + in_base;
        task.args.outputs = output_table.data() + out_base;
        if (workspace[step].kind != Location::Kind::kNone) task.args.workspace = own_address(workspace[step]);
        if (in_arena(workspace[step])) pending_arena.push_back({s, list.size(), Field::kWorkspace, workspace[step].offset});
        TaskDef def{TaskDef::Kind::kKernel, step, 0, {}, 0};
        def.addresses.reserve(node->input_count() + node->output_count() + 1);
        for (size_t k = 0; k < node->input_count(); ++k) {
          const Value* in = node->input(k);
          if (in == nullptr) {
            def.addresses.emplace_back();
            continue;
          }
          GE_ASSIGN_OR_RETURN(Location at, find(in, node));
          def.addresses.push_back(to_task_address(at));
          if (at.is_io()) {
            patches.push_back({&input_table[in_base + k], nullptr, at});
          } else {
            input_table[in_base + k] = own_address(at);
            if (in_arena(at)) arena_slots.push_back({&input_table[in_base + k], nullptr, at.offset});
          }
        }
        for (size_t k = 0; k < node->output_count(); ++k) {
          const Value* out = node->output(k);
          if (is_omitted_output(g, out)) {
            def.addresses.emplace_back();
            continue;
          }
          GE_ASSIGN_OR_RETURN(Location at, find(out, node));
          def.addresses.push_back(to_task_address(at));
          if (at.kind == Location::Kind::kInput) {
            return internal_error(where + ": " + node->describe() + " would write into the caller's input buffer");
          }
          if (at.is_io()) {
            patches.push_back({nullptr, &output_table[out_base + k], at});
          } else {
            output_table[out_base + k] = own_address(at);
            if (in_arena(at)) arena_slots.push_back({nullptr, &output_table[out_base + k], at.offset});
          }
        }
        def.addresses.push_back(to_task_address(workspace[step]));
        task_step[s].resize(list.size(), SIZE_MAX);
        task_step[s].push_back(step);
        list.push_back(task);
        defs.push_back(std::move(def));
      }
      for (size_t e : records_after[step]) {
        list.push_back(EventRecordTask{events[e].get()});
        defs.push_back({TaskDef::Kind::kEventRecord, 0, e, {}, 0});
      }
      if (list.size() == begin) continue;
      if (!chunks.empty() && chunks.back().stream == s) {
        chunks.back().end = list.size();
      } else {
        chunks.push_back({s, begin, list.size()});
      }
    }
    for (const PendingPatch& p : pending) {
      if (patched_copies.empty() || patched_copies.back().stream != p.stream || patched_copies.back().task != p.task) {
        patched_copies.push_back({p.stream, p.task, {}});
      }
      auto& copy = std::get<MemcpyTask>(tasks[p.stream][p.task]);
      patches.push_back(p.source ? IoPatch{&copy.source, nullptr, p.location} : IoPatch{nullptr, &copy.destination, p.location});
    }
    for (const PendingArena& p : pending_arena) {
      Task& task = tasks[p.stream][p.task];
      if (p.field == Field::kWorkspace) {
        arena_slots.push_back({nullptr, &std::get<KernelTask>(task).args.workspace, p.offset});
      } else if (p.field == Field::kMemset) {
        arena_slots.push_back({nullptr, &std::get<MemsetTask>(task).destination, p.offset});
      } else if (p.field == Field::kDestination) {
        arena_slots.push_back({nullptr, &std::get<MemcpyTask>(task).destination, p.offset});
      } else {
        arena_slots.push_back({&std::get<MemcpyTask>(task).source, nullptr, p.offset});
      }
      const bool grouped = std::any_of(patched_copies.begin(), patched_copies.end(), [&](const PatchedCopy& c) {
        return c.stream == p.stream && c.task == p.task;
      });
      if (!grouped && (arena_tasks.empty() || arena_tasks.back().stream != p.stream || arena_tasks.back().task != p.task)) {
        arena_tasks.push_back({p.stream, p.task, {}});
      }
    }
    return Status::ok();
  }

  Status capture(Device& device, const std::string& where);
  /// Groups runs of at least two consecutive kernel launches of one chunk whose node
  /// writes at most `max_bytes` into super kernels of the backend (none when it has none).
  Status build_super_kernels(size_t max_bytes, const std::string& where);
  /// Submits tasks [begin, end) of stream `s` on `stream`, each super-kernel run as one.
  Status submit_range(CaptureStream& stream, size_t s, size_t begin, size_t end);
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
                  std::vector<Task>& copies) const {
    for (const IoCopy& copy : list) {
      copies.push_back(MemcpyTask{const_cast<void*>(address(copy.destination, inputs, outputs)),
                                  address(copy.source, inputs, outputs), copy.bytes});
    }
  }

  Status run_copies(const std::vector<IoCopy>& list, std::span<const void* const> inputs,
                    std::span<void* const> outputs, const char* what) {
    if (list.empty()) return Status::ok();
    std::vector<Task> copies;
    copy_tasks(list, inputs, outputs, copies);
    // Outside any capture: straight on the backend stream, whose run() may copy on the
    // calling thread (a submit would hand the copies to a worker and wait for it).
    return stream_pointers[0]->run(copies).with_context(what);
  }
};

Status ModelRunner::Impl::submit_range(CaptureStream& stream, size_t s, size_t begin, size_t end) {
  if (super_runs.empty()) return stream.submit({tasks[s].data() + begin, end - begin});
  const std::map<size_t, SuperRun>& runs = super_runs[s];
  size_t at = begin;
  for (auto run = runs.lower_bound(begin); run != runs.end() && run->first < end; ++run) {
    if (run->first > at) GE_RETURN_IF_ERROR(stream.submit({tasks[s].data() + at, run->first - at}));
    const Task super = run->second.task;
    GE_RETURN_IF_ERROR(stream.submit({&super, 1}));
    at = run->second.end;
  }
  return at < end ? stream.submit({tasks[s].data() + at, end - at}) : Status::ok();
}

Status ModelRunner::Impl::build_super_kernels(size_t max_bytes, const std::string& where) {
  // A caller feature map rewrites workspace fields of `tasks` in place: no copies of them.
  if (max_bytes == 0 || caller_feature_map) return Status::ok();
  std::set<std::pair<size_t, size_t>> grouped;
  for (const PatchedCopy& copy : patched_copies) grouped.emplace(copy.stream, copy.task);
  auto small = [&](size_t s, size_t t) {
    if (t >= task_step[s].size() || task_step[s][t] == SIZE_MAX || grouped.count({s, t})) return false;
    size_t bytes = 0;
    for (const Value* out : order[task_step[s][t]]->outputs()) {
      if (out->desc().is_static()) bytes += element_count(out->desc().static_dims()) * element_size(out->desc().dtype);
    }
    return bytes <= max_bytes;
  };
  super_runs.assign(tasks.size(), {});
  for (const Chunk& chunk : chunks) {
    for (size_t t = chunk.begin; t < chunk.end;) {
      size_t end = t;
      while (end < chunk.end && small(chunk.stream, end)) ++end;
      if (end - t < 2) {
        t = std::max(end, t + 1);
        continue;
      }
      std::vector<KernelTask> span;
      for (size_t k = t; k < end; ++k) span.push_back(std::get<KernelTask>(tasks[chunk.stream][k]));
      Result<PreparedKernel> kernel = backend->prepare_super_kernel(span);
      if (!kernel.is_ok()) {
        super_runs.clear();
        if (kernel.status().code() == StatusCode::kUnsupported) return Status::ok();
        return kernel.status().with_context(where + ": preparing a super kernel");
      }
      super_kernels.push_back(std::move(kernel).value());
      const PreparedKernel& prepared = super_kernels.back();
      super_labels.push_back("super kernel of " + std::to_string(end - t) + " nodes, " +
                             node_labels[task_step[chunk.stream][t]] + " to " + node_labels[task_step[chunk.stream][end - 1]]);
      SuperRun run;
      run.end = end;
      run.task.function = prepared.function;
      run.task.args.params = prepared.params.get();
      run.task.name = prepared.name.c_str();
      run.task.node = super_labels.back().c_str();
      super_runs[chunk.stream].emplace(t, run);
      t = end;
    }
  }
  return Status::ok();
}

/// Builds `captured` from the task lists through stream capture: stream 0 records a fork
/// event every other stream waits on first (so each joins the capture before its own
/// tasks), chunks go in submission order, and every other stream ends with a join event
/// stream 0 waits on (end_capture requires joined work to precede the origin's end).
Status ModelRunner::Impl::capture(Device& device, const std::string& where) {
  size_t task_total = 0;
  for (const auto& list : tasks) task_total += list.size();
  if (task_total == 0) return Status::ok();
  auto fail = [&](const Status& status) { return status.with_context(where + ": capturing the task lists"); };
  CaptureStream& origin = *streams[0];
  // Thread-local: loads on other threads (a session's sibling runners) go on meanwhile.
  if (Status status = begin_capture(origin, CaptureMode::kThreadLocal); !status.is_ok()) return fail(status);
  auto abort_capture = [&](const Status& status) {
    (void)end_capture(origin);
    return fail(status);
  };
  std::vector<std::unique_ptr<Event>> fork_join;
  if (streams.size() > 1) {
    Result<std::unique_ptr<Event>> fork = device.create_event();
    if (!fork.is_ok()) return abort_capture(fork.status());
    const Task record = EventRecordTask{fork->get()};
    if (Status status = origin.submit({&record, 1}); !status.is_ok()) return abort_capture(status);
    for (size_t s = 1; s < streams.size(); ++s) {
      const Task wait = EventWaitTask{fork->get()};
      if (Status status = streams[s]->submit({&wait, 1}); !status.is_ok()) return abort_capture(status);
    }
    fork_join.push_back(std::move(fork).value());
  }
  // Tasks updated after capture (caller-buffer or caller-feature-map addresses held by
  // value) are task groups of their own, in task order.
  std::vector<PatchedCopy*> grouped;
  for (PatchedCopy& copy : patched_copies) grouped.push_back(&copy);
  for (PatchedCopy& task : arena_tasks) grouped.push_back(&task);
  std::sort(grouped.begin(), grouped.end(), [](const PatchedCopy* a, const PatchedCopy* b) {
    return std::pair(a->stream, a->task) < std::pair(b->stream, b->task);
  });
  for (const Chunk& chunk : chunks) {
    CaptureStream& stream = *streams[chunk.stream];
    size_t begin = chunk.begin;
    // Submit the chunk, giving each of those tasks a task group.
    for (PatchedCopy* patched : grouped) {
      PatchedCopy& copy = *patched;
      if (copy.stream != chunk.stream || copy.task < chunk.begin || copy.task >= chunk.end) continue;
      if (copy.task > begin) {
        if (Status status = submit_range(stream, chunk.stream, begin, copy.task); !status.is_ok()) return abort_capture(status);
      }
      if (Status status = begin_task_group(stream); !status.is_ok()) return abort_capture(status);
      if (Status status = stream.submit({tasks[chunk.stream].data() + copy.task, 1}); !status.is_ok())
        return abort_capture(status);
      Result<TaskGroupHandle> group = end_task_group(stream);
      if (!group.is_ok()) return abort_capture(group.status());
      copy.group = *group;
      begin = copy.task + 1;
    }
    if (chunk.end > begin) {
      if (Status status = submit_range(stream, chunk.stream, begin, chunk.end); !status.is_ok()) return abort_capture(status);
    }
  }
  for (size_t s = 1; s < streams.size(); ++s) {
    Result<std::unique_ptr<Event>> join = device.create_event();
    if (!join.is_ok()) return abort_capture(join.status());
    const Task record = EventRecordTask{join->get()};
    const Task wait = EventWaitTask{join->get()};
    if (Status status = streams[s]->submit({&record, 1}); !status.is_ok()) return abort_capture(status);
    if (Status status = origin.submit({&wait, 1}); !status.is_ok()) return abort_capture(status);
    fork_join.push_back(std::move(join).value());
  }
  Result<std::unique_ptr<CapturedModel>> model = end_capture(origin);
  if (!model.is_ok()) return fail(model.status());
  if ((*model)->stream_count() != streams.size()) {
    return internal_error(where + ": the capture joined " + std::to_string((*model)->stream_count()) + " of " +
                          std::to_string(streams.size()) + " streams");
  }
  captured = std::move(model).value();
  return Status::ok();
}

ModelRunner::ModelRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModelRunner::~ModelRunner() = default;

const Graph& ModelRunner::graph() const { return *impl_->graph; }
const StreamPlan& ModelRunner::stream_plan() const { return impl_->plan; }
const std::vector<std::vector<Task>>& ModelRunner::stream_tasks() const { return impl_->tasks; }
const std::vector<CleanGroup>& ModelRunner::clean_groups() const { return impl_->clean_groups; }
size_t ModelRunner::feature_map_bytes() const { return impl_->arena_bytes; }
size_t ModelRunner::weight_bytes() const { return impl_->weights_bytes; }

size_t ModelRunner::weight_copy_bytes() const { return impl_->weights != nullptr ? impl_->weights_bytes : 0; }

size_t ModelRunner::host_weight_bytes() const {
  std::unordered_set<const void*> counted;  // storage shared by identical weights, once
  size_t total = 0;
  for (const Value* init : impl_->graph->initializers()) {
    const Tensor* data = init->constant();
    if (data != nullptr && data->dtype() != DataType::kString && data->raw_data() != nullptr &&
        counted.insert(data->raw_data()).second) {
      total += data->byte_size();
    }
  }
  return total;
}
const GraphMemoryPlan* ModelRunner::memory_plan() const { return impl_->memory_plan.get(); }

CompiledPlans ModelRunner::compiled_plans() const {
  const Impl& m = *impl_;
  CompiledPlans plans;
  std::unordered_map<const Node*, uint64_t> index;
  for (const auto& node : m.graph->nodes()) index.emplace(node.get(), index.size());
  for (const Node* node : m.order) plans.order.push_back(index.at(node));
  plans.streams = m.plan;
  plans.feature_map_bytes = m.arena_bytes;
  if (m.memory_plan != nullptr) {
    plans.has_memory_plan = true;
    for (const MemoryBuffer& buffer : m.memory_plan->buffers) plans.buffer_offsets.push_back(buffer.offset);
    plans.assigner = m.memory_plan->statistics.assigner;
  }
  plans.clean_groups = m.clean_groups;
  for (const PreparedKernel& kernel : m.kernels) plans.kernels.push_back({kernel.name, kernel.workspace_bytes, kernel.zeroed});
  plans.tasks = m.task_defs;
  return plans;
}

Result<std::unique_ptr<ModelRunner>> ModelRunner::load(const Graph& source, Backend& backend,
                                                       const ModelRunnerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->backend = &backend;
  impl->output_pool = options.output_pool;
  impl->caller_feature_map = options.caller_feature_map;
  impl->device = &backend.device();
  impl->graph = source.clone();
  Graph& g = *impl->graph;
  Device& device = *impl->device;
  const std::string where = "loading graph '" + g.name() + "' on backend '" + backend.name() + "'";

  auto check_value = [&](const Value* value, const std::string& role) -> Status {
    const TensorDesc& desc = value->desc();
    if (desc.kind != ValueKind::kTensor || !desc.is_static() || desc.dtype == DataType::kUndefined ||
        desc.dtype == DataType::kString) {
      return unsupported(where + ": " + role + " '" + value->name() + "' is " + desc.to_string() +
                         "; task sink needs numeric tensors of static shape (use the per-op executor)");
    }
    return Status::ok();
  };
  auto bytes_of = [](const Value* value) {
    return static_cast<size_t>(element_count(value->desc().static_dims())) * element_size(value->desc().dtype);
  };

  GE_ASSIGN_OR_RETURN(std::vector<Node*> topological, g.topological_order());

  // Kernels.
  std::unordered_map<const Node*, PreparedKernel> prepared;
  for (Node* node : topological) {
    if (is_host_op(*node) || !node->subgraphs().empty()) {
      return unsupported(where + ": " + node->describe() + " runs on the host (control flow, sequence or optional); "
                         "task sink cannot run it (use the per-op executor)");
    }
    for (const Value* in : node->inputs()) {
      if (in != nullptr) GE_RETURN_IF_ERROR(check_value(in, "input of " + node->describe()));
    }
    for (const Value* out : node->outputs()) {
      if (!is_omitted_output(g, out)) GE_RETURN_IF_ERROR(check_value(out, "output of " + node->describe()));
    }
    std::string reason;
    if (!backend.supports(*node, &reason)) {
      return unsupported(where + ": backend cannot run " + node->describe() + (reason.empty() ? "" : ": " + reason));
    }
    GE_ASSIGN_OR_RETURN(PreparedKernel kernel,
                        detail::guard_plugin_call("backend '" + backend.name() + "' (preparing " + node->describe() + ")",
                                                  [&] { return backend.prepare(*node); }));
    if (kernel.function == nullptr) return internal_error(where + ": kernel for " + node->describe() + " has no function");
    prepared[node] = std::move(kernel);
  }

  // Graph I/O.
  impl->runtime_inputs = g.runtime_inputs();
  std::unordered_map<const Value*, size_t> input_index;
  for (size_t i = 0; i < impl->runtime_inputs.size(); ++i) {
    GE_RETURN_IF_ERROR(check_value(impl->runtime_inputs[i], "graph input"));
    input_index[impl->runtime_inputs[i]] = i;
    impl->input_bytes.push_back(bytes_of(impl->runtime_inputs[i]));
  }
  for (const Value* out : g.outputs()) {
    GE_RETURN_IF_ERROR(check_value(out, "graph output"));
    impl->output_bytes.push_back(bytes_of(out));
  }
  for (const Value* init : g.initializers()) {
    if (!input_index.count(init) && init->constant()) GE_RETURN_IF_ERROR(check_value(init, "initializer"));
  }

  auto plan_streams_for = [&](const std::vector<Node*>& order, int max_streams) -> Result<StreamPlan> {
    StreamPlanOptions stream_options;
    stream_options.max_streams = max_streams;
    return plan_streams(dependences_in(order), stream_options);
  };

  // Where every value and workspace lives.
  std::unordered_map<const Value*, Location> location;
  std::vector<Location> workspace;  // per step
  if (const CompiledPlans* plans = options.precompiled) {
    // A model file's plans: validated against this graph, never trusted.
    const std::string file_where = where + ": the model file's plans";
    const size_t n = topological.size();
    if (plans->order.size() != n || plans->kernels.size() != n) {
      return invalid_argument(file_where + " cover " + std::to_string(plans->order.size()) + " steps and " +
                              std::to_string(plans->kernels.size()) + " kernels, but the graph has " +
                              std::to_string(n) + " nodes");
    }
    std::vector<Node*> by_index, source_by_index;
    for (const auto& node : g.nodes()) by_index.push_back(node.get());
    for (const auto& node : source.nodes()) source_by_index.push_back(node.get());
    std::vector<bool> seen(n, false);
    std::vector<const Node*> source_order;
    for (uint64_t index : plans->order) {
      if (index >= n || seen[index]) {
        return invalid_argument(file_where + ": the execution order names node " + std::to_string(index) +
                                (index >= n ? " of " + std::to_string(n) : " twice"));
      }
      seen[index] = true;
      impl->order.push_back(by_index[index]);
      source_order.push_back(source_by_index[index]);
    }
    const std::vector<std::vector<size_t>> predecessors = dependences_in(impl->order);
    for (size_t step = 0; step < n; ++step) {
      for (size_t p : predecessors[step]) {
        if (p >= step) {
          return invalid_argument(file_where + ": the execution order runs " + impl->order[step]->describe() +
                                  " before its producer " + impl->order[p]->describe());
        }
      }
      const PreparedKernel& kernel = prepared.at(impl->order[step]);
      const KernelMeta& meta = plans->kernels[step];
      // A kernel may need less workspace than the file planned (a backend that sizes its
      // scratch by thread count, loaded with fewer threads): the planned bytes still hold
      // it. More would overflow the plan.
      if (kernel.name != meta.name || kernel.workspace_bytes > meta.workspace_bytes) {
        return invalid_argument(where + ": " + impl->order[step]->describe() + " was compiled for kernel '" + meta.name +
                                "' with " + std::to_string(meta.workspace_bytes) + " workspace bytes, but backend '" +
                                backend.name() + "' now prepares '" + kernel.name + "' with " +
                                std::to_string(kernel.workspace_bytes) +
                                "; recompile the model (with ge-compile --threads as many as it runs with)");
      }
      if (kernel.zeroed != meta.zeroed) {
        return invalid_argument(where + ": " + impl->order[step]->describe() + " was compiled for kernel '" + meta.name +
                                "' needing " + describe_zeroed(meta.zeroed) + " zeroed before it runs, but backend '" +
                                backend.name() + "' now needs " + describe_zeroed(kernel.zeroed) +
                                " (atomic clean); recompile the model");
      }
    }
    if (Status status = validate_stream_plan(predecessors, plans->streams); !status.is_ok()) {
      return invalid_argument(file_where + ": " + status.message());
    }
    impl->plan = plans->streams;
    if (plans->has_memory_plan) {
      MemoryPlanOptions stored = options.memory_plan_options;
      GE_ASSIGN_OR_RETURN(stored.explicit_order, impl->on_clone(source, source_order, where));
      if (impl->plan.stream_count > 1) stored.streams = &impl->plan;
      if (Status status = impl->place_with_plan(stored, {stored_plan_assigner(*plans)}, prepared,
                                                input_index, location, workspace, where);
          !status.is_ok()) {
        return invalid_argument(file_where + ": the memory plan does not hold: " + status.message());
      }
      // Smaller when kernels now need less workspace than planned (see above).
      if (impl->memory_plan->feature_map_bytes > plans->feature_map_bytes) {
        return invalid_argument(file_where + ": the memory plan's feature map is " +
                                std::to_string(impl->memory_plan->feature_map_bytes) + " bytes, not the stored " +
                                std::to_string(plans->feature_map_bytes));
      }
    } else {
      // Placed at load by the core's first-fit assigner: deterministic, so the bytes match.
      MemoryPlanOptions first_fit = options.memory_plan_options;
      GE_ASSIGN_OR_RETURN(first_fit.explicit_order, impl->on_clone(source, source_order, where));
      if (impl->plan.stream_count > 1) first_fit.streams = &impl->plan;
      GE_RETURN_IF_ERROR(
          impl->place_with_plan(first_fit, {first_fit_assigner()}, prepared, input_index, location, workspace, where));
      if (impl->arena_bytes > plans->feature_map_bytes) {
        return invalid_argument(file_where + ": the feature map is " + std::to_string(impl->arena_bytes) +
                                " bytes, not the stored " + std::to_string(plans->feature_map_bytes));
      }
    }
  } else {
    impl->order = topological;
    {
      // Without assigner plugins, the core's first-fit assigner places the same plan's
      // buffers.
      const std::vector<std::shared_ptr<MemoryAssigner>> assigners =
          options.memory_assigners.empty() ? std::vector<std::shared_ptr<MemoryAssigner>>{first_fit_assigner()}
                                           : options.memory_assigners;
      MemoryPlanOptions plan_options = options.memory_plan_options;
      GE_ASSIGN_OR_RETURN(plan_options.explicit_order, impl->on_clone(source, plan_options.explicit_order, where));
      impl->plan = StreamPlan{};
      if (options.max_streams > 1) {
        // Streams over the order the memory plan then keeps: its lifetimes follow them.
        std::vector<Node*> order = topological;
        if (!plan_options.explicit_order.empty() || plan_options.order == ExecutionOrder::kMemoryPriority) {
          std::vector<const Node*> chosen = plan_options.explicit_order;
          if (chosen.empty()) {
            GE_ASSIGN_OR_RETURN(chosen, memory_priority_order(g, plan_options.alignment));
          }
          std::unordered_map<const Node*, Node*> mutable_node;
          for (const auto& node : g.nodes()) mutable_node[node.get()] = node.get();
          order.clear();
          for (const Node* node : chosen) order.push_back(mutable_node.at(node));
        }
        plan_options.explicit_order.assign(order.begin(), order.end());
        GE_ASSIGN_OR_RETURN(GraphMemoryPlan planned,
                            impl->plan_streams_and_memory(order, options.max_streams, options.stream_memory_ratio,
                                                          std::move(plan_options), assigners, prepared, where));
        GE_RETURN_IF_ERROR(impl->place(std::move(planned), input_index, location, workspace, where));
      } else {
        GE_RETURN_IF_ERROR(
            impl->place_with_plan(std::move(plan_options), assigners, prepared, input_index, location, workspace, where));
      }
      if (impl->plan.stream_count <= 1) {
        GE_ASSIGN_OR_RETURN(impl->plan, plan_streams_for(impl->order, 1));
      }
    }
  }
  if (const CompiledPlans* plans = options.precompiled; plans != nullptr && plans->clean_groups != impl->clean_groups) {
    return invalid_argument(where + ": the model file's plans: its atomic-clean groups (" +
                            format_clean_groups(plans->clean_groups) + ") are not the ones its plans give (" +
                            format_clean_groups(impl->clean_groups) + ")");
  }
  GE_RETURN_IF_ERROR(impl->settle_weights(location, where));
  if (options.shrink) impl->release_host_weights();
  for (Node* node : impl->order) impl->kernels.push_back(std::move(prepared.at(node)));

  for (int s = 0; s < std::max(impl->plan.stream_count, 1); ++s) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<CaptureStream> stream, CaptureStream::create(device));
    impl->stream_pointers.push_back(&stream->backend_stream());  // replay skips the capture wrapper
    impl->streams.push_back(std::move(stream));
  }
  for (size_t e = 0; e < impl->plan.events.size(); ++e) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Event> event, device.create_event());
    impl->events.push_back(std::move(event));
  }
  GE_RETURN_IF_ERROR(impl->build_tasks(location, workspace, where));
  if (const CompiledPlans* plans = options.precompiled) {
    // The stored task definitions must be exactly what the validated plans give.
    if (plans->tasks.size() != impl->task_defs.size()) {
      return invalid_argument(where + ": the model file defines tasks for " + std::to_string(plans->tasks.size()) +
                              " streams but its plans use " + std::to_string(impl->task_defs.size()));
    }
    for (size_t s = 0; s < plans->tasks.size(); ++s) {
      const auto& stored = plans->tasks[s];
      const auto& built = impl->task_defs[s];
      for (size_t t = 0; t < std::max(stored.size(), built.size()); ++t) {
        if (t >= stored.size() || t >= built.size() || !(stored[t] == built[t])) {
          return invalid_argument(where + ": the model file's task " + std::to_string(t) + " on stream " +
                                  std::to_string(s) + " does not match its plans (" + std::to_string(stored.size()) +
                                  " tasks stored, " + std::to_string(built.size()) + " planned)");
        }
      }
    }
  }

  GE_RETURN_IF_ERROR(impl->build_super_kernels(options.super_kernel_max_bytes, where));
  GE_RETURN_IF_ERROR(impl->capture(device, where));

  if (!device.host_accessible()) {
    for (size_t bytes : impl->input_bytes) {
      GE_ASSIGN_OR_RETURN(void* p, device.allocate(std::max<size_t>(bytes, 1)));
      impl->staged_inputs.push_back(p);
    }
    for (size_t bytes : impl->output_bytes) {
      GE_ASSIGN_OR_RETURN(void* p, device.allocate(std::max<size_t>(bytes, 1)));
      impl->staged_outputs.push_back(p);
    }
  }
  return std::unique_ptr<ModelRunner>(new ModelRunner(std::move(impl)));
}

namespace {

bool zero_copy_aligned(const void* address, size_t bytes) {
  return bytes == 0 || reinterpret_cast<uintptr_t>(address) % kZeroCopyAlignment == 0;
}

/// The aligned buffer `slot` of `buffers` (allocated on first use) for `bytes`.
Result<void*> aligned_buffer(Device& device, std::vector<void*>& buffers, size_t slot, size_t bytes) {
  if (buffers.size() <= slot) buffers.resize(slot + 1, nullptr);
  if (buffers[slot] == nullptr) {
    GE_ASSIGN_OR_RETURN(buffers[slot], device.allocate(std::max<size_t>(bytes, 1), kZeroCopyAlignment));
  }
  return buffers[slot];
}

}  // namespace

Status ModelRunner::Impl::check_launch(std::span<const void* const> inputs, std::span<void* const> outputs) const {
  if (inputs.size() != runtime_inputs.size() || outputs.size() != output_bytes.size()) {
    return invalid_argument("execute_bound: graph '" + graph->name() + "' takes " + std::to_string(runtime_inputs.size()) +
                            " inputs and " + std::to_string(output_bytes.size()) + " outputs, got " +
                            std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  }
  if (caller_feature_map && arena == nullptr && arena_bytes > 0) {
    return invalid_argument("graph '" + graph->name() + "' was loaded for a caller-supplied feature map: bind " +
                            std::to_string(arena_bytes) + " bytes (bind_feature_map) before executing");
  }
  return Status::ok();
}

bool ModelRunner::Impl::find_misaligned(std::span<const void* const> inputs, std::span<void* const> outputs) {
  // Zero copy only for buffers of the zero-copy alignment (seeds 000, 002).
  copied_inputs.clear();
  copied_outputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!zero_copy_aligned(inputs[i], input_bytes[i])) copied_inputs.push_back(i);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!zero_copy_aligned(outputs[i], output_bytes[i])) copied_outputs.push_back(i);
  }
  return !copied_inputs.empty() || !copied_outputs.empty();
}

Status ModelRunner::Impl::stage_misaligned(std::span<const void* const> inputs, std::span<void* const> outputs,
                                           std::vector<const void*>& in, std::vector<void*>& out,
                                           std::vector<Task>& before, std::vector<Task>& after) {
  in.assign(inputs.begin(), inputs.end());
  out.assign(outputs.begin(), outputs.end());
  for (size_t i : copied_inputs) {
    GE_ASSIGN_OR_RETURN(void* buffer, aligned_buffer(*device, aligned_inputs, i, input_bytes[i]));
    before.push_back(MemcpyTask{buffer, inputs[i], input_bytes[i]});
    in[i] = buffer;
  }
  for (size_t i : copied_outputs) {
    GE_ASSIGN_OR_RETURN(out[i], aligned_buffer(*device, aligned_outputs, i, output_bytes[i]));
    after.push_back(MemcpyTask{outputs[i], out[i], output_bytes[i]});
  }
  return Status::ok();
}

Status ModelRunner::Impl::bind_io(std::span<const void* const> inputs, std::span<void* const> outputs) {
  for (const IoPatch& patch : patches) {
    const void* address_now = address(patch.location, inputs, outputs);
    if (patch.read != nullptr) *patch.read = address_now;
    if (patch.write != nullptr) *patch.write = const_cast<void*>(address_now);
  }
  for (const PatchedCopy& copy : patched_copies) {
    GE_RETURN_IF_ERROR(captured->update_task_group(copy.group, {tasks[copy.stream].data() + copy.task, 1}));
  }
  return Status::ok();
}

Status ModelRunner::execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs) {
  Impl& m = *impl_;
  GE_RETURN_IF_ERROR(m.wait_in_flight());
  GE_RETURN_IF_ERROR(m.check_launch(inputs, outputs));
  if (!m.find_misaligned(inputs, outputs)) return execute_aligned(inputs, outputs);
  std::vector<const void*> in;
  std::vector<void*> out;
  std::vector<Task> before, after;
  GE_RETURN_IF_ERROR(m.stage_misaligned(inputs, outputs, in, out, before, after));
  if (!before.empty()) GE_RETURN_IF_ERROR(m.stream_pointers[0]->run(before).with_context("copying misaligned inputs"));
  GE_RETURN_IF_ERROR(execute_aligned(in, out));
  return after.empty() ? Status::ok() : m.stream_pointers[0]->run(after).with_context("copying misaligned outputs");
}

Status ModelRunner::execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs,
                                  void* feature_map) {
  GE_RETURN_IF_ERROR(bind_feature_map(feature_map));
  return execute_bound(inputs, outputs);
}

Status ModelRunner::bind_feature_map(void* base) {
  Impl& m = *impl_;
  const std::string who = "graph '" + m.graph->name() + "'";
  if (!m.caller_feature_map) {
    return invalid_argument(who + " owns its feature map: load it with ModelRunnerOptions::caller_feature_map to bind one");
  }
  if (base == nullptr) return invalid_argument(who + ": bind_feature_map needs memory, got null");
  if (reinterpret_cast<uintptr_t>(base) % m.arena_alignment != 0) {
    return invalid_argument(who + ": a feature map must be " + std::to_string(m.arena_alignment) + "-byte aligned");
  }
  if (base == m.arena) return Status::ok();
  GE_RETURN_IF_ERROR(m.wait_in_flight());
  return m.move_feature_map(base);
}

size_t ModelRunner::feature_map_alignment() const { return impl_->arena_alignment; }

size_t ModelRunner::super_kernel_count() const { return impl_->super_kernels.size(); }

Status ModelRunner::execute_bound_async(std::span<const void* const> inputs, std::span<void* const> outputs,
                                        Stream& stream) {
  Impl& m = *impl_;
  GE_RETURN_IF_ERROR(m.wait_in_flight());
  GE_RETURN_IF_ERROR(m.check_launch(inputs, outputs));
  std::vector<const void*> in(inputs.begin(), inputs.end());
  std::vector<void*> out(outputs.begin(), outputs.end());
  std::vector<Task> head, tail;
  if (m.ready == nullptr) {
    GE_ASSIGN_OR_RETURN(m.ready, m.device->create_event());
    GE_ASSIGN_OR_RETURN(m.done, m.device->create_event());
  }
  head.push_back(EventWaitTask{m.ready.get()});
  if (m.find_misaligned(inputs, outputs)) GE_RETURN_IF_ERROR(m.stage_misaligned(inputs, outputs, in, out, head, tail));
  GE_RETURN_IF_ERROR(m.bind_io(in, out));
  m.copy_tasks(m.copies_in, in, out, head);
  std::vector<Task> after_model;
  m.copy_tasks(m.copies_out, in, out, after_model);
  tail.insert(tail.begin(), after_model.begin(), after_model.end());  // pass-through outputs before the copy-outs
  tail.push_back(EventRecordTask{m.done.get()});
  // The caller's stream: what it queued so far comes first; what it queues next waits.
  const Task record_ready = EventRecordTask{m.ready.get()};
  GE_RETURN_IF_ERROR(stream.submit({&record_ready, 1}).with_context("execute_bound_async: the caller's stream"));
  GE_RETURN_IF_ERROR(m.stream_pointers[0]->submit(head));
  m.in_flight = true;  // from here the tables are the launch's: the next execute waits for `done`
  if (m.captured != nullptr) {
    GE_RETURN_IF_ERROR(m.captured->execute(m.stream_pointers).with_context("graph '" + m.graph->name() + "'"));
  }
  GE_RETURN_IF_ERROR(m.stream_pointers[0]->submit(tail));
  const Task wait_done = EventWaitTask{m.done.get()};
  return stream.submit({&wait_done, 1}).with_context("execute_bound_async: the caller's stream");
}

std::vector<std::string> ModelRunner::copied_io() const {
  const Impl& m = *impl_;
  std::vector<std::string> names;
  for (size_t i : m.copied_inputs) names.push_back("input '" + m.runtime_inputs[i]->name() + "'");
  for (size_t i : m.copied_outputs) names.push_back("output '" + m.graph->outputs()[i]->name() + "'");
  return names;
}

Status ModelRunner::execute_aligned(std::span<const void* const> inputs, std::span<void* const> outputs) {
  Impl& m = *impl_;
  GE_RETURN_IF_ERROR(m.bind_io(inputs, outputs));
  GE_RETURN_IF_ERROR(m.run_copies(m.copies_in, inputs, outputs, "copying graph inputs into the feature map"));
  if (m.captured != nullptr) {
    GE_RETURN_IF_ERROR(m.captured->run(m.stream_pointers).with_context("graph '" + m.graph->name() + "'"));
  }
  return m.run_copies(m.copies_out, inputs, outputs, "copying pass-through graph outputs");
}

Status ModelRunner::execute(const NamedTensors& inputs, std::vector<Tensor>& outputs) {
  Impl& m = *impl_;
  const Graph& g = *m.graph;
  std::vector<const Tensor*> bound(m.runtime_inputs.size(), nullptr);
  for (const auto& [name, tensor] : inputs) {
    size_t index = bound.size();
    for (size_t i = 0; i < bound.size(); ++i) {
      if (m.runtime_inputs[i]->name() == name) index = i;
    }
    if (index == bound.size()) return invalid_argument("graph '" + g.name() + "': unknown input '" + name + "'");
    if (bound[index] != nullptr) return invalid_argument("graph '" + g.name() + "': input '" + name + "' is bound twice");
    const TensorDesc& desc = m.runtime_inputs[index]->desc();
    if (tensor.dtype() != desc.dtype || tensor.shape() != desc.static_dims()) {
      return invalid_argument("graph '" + g.name() + "': input '" + name + "' is " +
                              TensorDesc::of(tensor.dtype(), tensor.shape()).to_string() + " but the loaded model expects " +
                              desc.to_string());
    }
    bound[index] = &tensor;
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    if (bound[i] == nullptr) return invalid_argument("graph '" + g.name() + "': input '" + m.runtime_inputs[i]->name() + "' is not bound");
  }
  outputs.clear();
  for (const Value* out : g.outputs()) {
    outputs.push_back(m.output_pool ? m.output_pool->allocate(out->desc().dtype, out->desc().static_dims())
                                    : Tensor::zeros(out->desc().dtype, out->desc().static_dims()));
  }
  std::vector<const void*> in_addresses(bound.size());
  std::vector<void*> out_addresses(outputs.size());
  if (m.device->host_accessible()) {
    for (size_t i = 0; i < bound.size(); ++i) in_addresses[i] = bound[i]->raw_data();
    for (size_t i = 0; i < outputs.size(); ++i) out_addresses[i] = outputs[i].raw_data();
    return execute_bound(in_addresses, out_addresses);
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    if (m.input_bytes[i] > 0) GE_RETURN_IF_ERROR(m.device->copy_to_device(m.staged_inputs[i], bound[i]->raw_data(), m.input_bytes[i]));
    in_addresses[i] = m.staged_inputs[i];
  }
  for (size_t i = 0; i < outputs.size(); ++i) out_addresses[i] = m.staged_outputs[i];
  GE_RETURN_IF_ERROR(execute_bound(in_addresses, out_addresses));
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (m.output_bytes[i] > 0) GE_RETURN_IF_ERROR(m.device->copy_to_host(outputs[i].raw_data(), m.staged_outputs[i], m.output_bytes[i]));
  }
  return Status::ok();
}

}  // namespace ge
