#include "ge/runtime/model_runner.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace ge {
namespace {

constexpr size_t kArenaAlignment = 512;  // GE's feature-map and weight alignment

size_t align_up(size_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }

bool is_omitted(const Graph& graph, const Value* value) {
  return value->name().empty() && !value->has_uses() && !graph.is_output(value);
}

/// A live interval in the arena: [first, last] steps, both inclusive.
struct ArenaRequest {
  size_t bytes = 0;
  size_t first = 0, last = 0;
  size_t offset = 0;
};

/// First-fit placement of intervals in one arena; `reuse` lets requests whose lifetimes
/// do not overlap share bytes. Returns the arena size.
size_t place_in_arena(std::vector<ArenaRequest>& requests, bool reuse) {
  struct Block { size_t offset, end, last; };
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].first < requests[b].first; });
  std::vector<Block> live;  // sorted by offset
  size_t total = 0;
  for (size_t index : order) {
    ArenaRequest& request = requests[index];
    if (reuse) {
      std::erase_if(live, [&](const Block& b) { return b.last < request.first; });
    }
    const size_t bytes = align_up(std::max<size_t>(request.bytes, 1), kArenaAlignment);
    size_t offset = 0;
    for (const Block& block : live) {
      if (block.offset >= offset + bytes) break;
      offset = std::max(offset, block.end);
    }
    request.offset = offset;
    live.push_back({offset, offset + bytes, request.last});
    std::sort(live.begin(), live.end(), [](const Block& a, const Block& b) { return a.offset < b.offset; });
    total = std::max(total, offset + bytes);
  }
  return total;
}

/// Where a graph output comes from when no kernel writes it straight into the caller's
/// buffer (it is an input, a weight, or repeats an earlier output).
struct OutputCopy {
  size_t output = 0;
  enum class From { kInput, kWeight, kOutput } from = From::kInput;
  size_t index = 0;        // input or output index
  const void* weight = nullptr;
  size_t bytes = 0;
};

}  // namespace

struct ModelRunner::Impl {
  Backend* backend = nullptr;
  Device* device = nullptr;
  std::unique_ptr<Graph> graph;
  std::vector<PreparedKernel> kernels;  // per node in topological order
  std::vector<Node*> order;
  StreamPlan plan;
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<std::unique_ptr<Event>> events;
  std::vector<std::vector<Task>> tasks;
  /// Submission order: (stream, first task, end task); consecutive tasks of one stream in
  /// the global topological order. Waits make the order irrelevant on asynchronous
  /// streams; on synchronous ones it keeps every wait after its record.
  struct Chunk { size_t stream, begin, end; };
  std::vector<Chunk> chunks;
  // Argument tables: every kernel's input and output addresses, back to back.
  std::vector<const void*> input_table;
  std::vector<void*> output_table;
  // I/O address slots, refreshed per execute.
  std::vector<std::vector<size_t>> input_slots;          // per runtime input: input_table indices
  std::vector<std::vector<size_t>> output_write_slots;   // per graph output: output_table indices
  std::vector<std::vector<size_t>> output_read_slots;    // per graph output: input_table indices
  std::vector<OutputCopy> output_copies;
  std::vector<Value*> runtime_inputs;
  std::vector<size_t> input_bytes, output_bytes;
  void* arena = nullptr;
  size_t arena_bytes = 0;
  void* weights = nullptr;
  size_t weights_bytes = 0;
  // Staging buffers for devices the host cannot address.
  std::vector<void*> staged_inputs, staged_outputs;

  ~Impl() {
    // Tasks reference events and kernels; streams may hold queued work: drain first.
    for (auto& stream : streams) (void)stream->synchronize();
    for (void* p : staged_inputs) device->deallocate(p);
    for (void* p : staged_outputs) device->deallocate(p);
    if (arena != nullptr) device->deallocate(arena);
    if (weights != nullptr) device->deallocate(weights);
  }

  Status run_output_copies(std::span<const void* const> inputs, std::span<void* const> outputs) {
    if (output_copies.empty()) return Status::ok();
    std::vector<Task> copies;
    for (const OutputCopy& copy : output_copies) {
      const void* source = copy.from == OutputCopy::From::kInput    ? inputs[copy.index]
                           : copy.from == OutputCopy::From::kOutput ? outputs[copy.index]
                                                                    : copy.weight;
      copies.push_back(MemcpyTask{outputs[copy.output], source, copy.bytes});
    }
    GE_RETURN_IF_ERROR(streams[0]->submit(copies).with_context("copying pass-through graph outputs"));
    return streams[0]->synchronize();
  }
};

ModelRunner::ModelRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModelRunner::~ModelRunner() = default;

const Graph& ModelRunner::graph() const { return *impl_->graph; }
const StreamPlan& ModelRunner::stream_plan() const { return impl_->plan; }
const std::vector<std::vector<Task>>& ModelRunner::stream_tasks() const { return impl_->tasks; }
size_t ModelRunner::feature_map_bytes() const { return impl_->arena_bytes; }
size_t ModelRunner::weight_bytes() const { return impl_->weights_bytes; }

Result<std::unique_ptr<ModelRunner>> ModelRunner::load(const Graph& source, Backend& backend,
                                                       const ModelRunnerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->backend = &backend;
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

  GE_ASSIGN_OR_RETURN(impl->order, g.topological_order());
  std::unordered_map<const Node*, size_t> step_of;
  for (size_t i = 0; i < impl->order.size(); ++i) step_of[impl->order[i]] = i;

  // Kernels.
  for (Node* node : impl->order) {
    if (is_host_op(*node) || !node->subgraphs().empty()) {
      return unsupported(where + ": " + node->describe() + " runs on the host (control flow, sequence or optional); "
                         "task sink cannot run it (use the per-op executor)");
    }
    for (const Value* in : node->inputs()) {
      if (in != nullptr) GE_RETURN_IF_ERROR(check_value(in, "input of " + node->describe()));
    }
    for (const Value* out : node->outputs()) {
      if (!is_omitted(g, out)) GE_RETURN_IF_ERROR(check_value(out, "output of " + node->describe()));
    }
    std::string reason;
    if (!backend.supports(*node, &reason)) {
      return unsupported(where + ": backend cannot run " + node->describe() + (reason.empty() ? "" : ": " + reason));
    }
    GE_ASSIGN_OR_RETURN(PreparedKernel kernel, backend.prepare(*node));
    if (kernel.function == nullptr) return internal_error(where + ": kernel for " + node->describe() + " has no function");
    impl->kernels.push_back(std::move(kernel));
  }

  // Graph I/O.
  impl->runtime_inputs = g.runtime_inputs();
  std::unordered_map<const Value*, size_t> input_index;
  for (size_t i = 0; i < impl->runtime_inputs.size(); ++i) {
    GE_RETURN_IF_ERROR(check_value(impl->runtime_inputs[i], "graph input"));
    input_index[impl->runtime_inputs[i]] = i;
    impl->input_bytes.push_back(bytes_of(impl->runtime_inputs[i]));
  }
  std::unordered_map<const Value*, size_t> output_index;  // first occurrence, when a kernel writes it
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const Value* out = g.outputs()[i];
    GE_RETURN_IF_ERROR(check_value(out, "graph output"));
    impl->output_bytes.push_back(bytes_of(out));
  }

  // Weights: one block, each initializer at a fixed aligned offset.
  std::unordered_map<const Value*, size_t> weight_offset;
  for (const Value* init : g.initializers()) {
    if (input_index.count(init) || !init->constant()) continue;
    GE_RETURN_IF_ERROR(check_value(init, "initializer"));
    weight_offset[init] = impl->weights_bytes;
    impl->weights_bytes += align_up(std::max<size_t>(init->constant()->byte_size(), 1), kArenaAlignment);
  }
  GE_ASSIGN_OR_RETURN(impl->weights, device.allocate(std::max<size_t>(impl->weights_bytes, 1), kArenaAlignment));
  for (const auto& [init, offset] : weight_offset) {
    const Tensor& data = *init->constant();
    if (data.byte_size() == 0) continue;
    GE_RETURN_IF_ERROR(device.copy_to_device(static_cast<char*>(impl->weights) + offset, data.raw_data(), data.byte_size())
                           .with_context(where + ": copying weight '" + init->name() + "'"));
  }
  auto weight_address = [&](const Value* v) -> const void* {
    return static_cast<const char*>(impl->weights) + weight_offset.at(v);
  };

  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const Value* out = g.outputs()[i];
    OutputCopy copy;
    copy.output = i;
    copy.bytes = impl->output_bytes[i];
    if (out->producer() != nullptr && !output_index.count(out)) {
      output_index[out] = i;
      continue;
    }
    if (output_index.count(out)) {
      copy.from = OutputCopy::From::kOutput;
      copy.index = output_index[out];
    } else if (input_index.count(out)) {
      copy.from = OutputCopy::From::kInput;
      copy.index = input_index[out];
    } else if (weight_offset.count(out)) {
      copy.from = OutputCopy::From::kWeight;
      copy.weight = weight_address(out);
    } else {
      return unsupported(where + ": graph output '" + out->name() + "' has no producer, input or initializer");
    }
    impl->output_copies.push_back(copy);
  }

  // Feature map: node outputs that are not graph outputs, and kernel workspaces.
  std::vector<ArenaRequest> requests;
  std::unordered_map<const Value*, size_t> request_of;
  std::vector<size_t> workspace_request(impl->order.size(), SIZE_MAX);
  for (size_t step = 0; step < impl->order.size(); ++step) {
    const Node* node = impl->order[step];
    for (const Value* out : node->outputs()) {
      if (is_omitted(g, out) || output_index.count(out)) continue;
      ArenaRequest request;
      request.bytes = bytes_of(out);
      request.first = request.last = step;
      for (const Use& use : out->uses()) {
        auto it = step_of.find(use.user);
        if (it != step_of.end()) request.last = std::max(request.last, it->second);
      }
      request_of[out] = requests.size();
      requests.push_back(request);
    }
    if (impl->kernels[step].workspace_bytes > 0) {
      workspace_request[step] = requests.size();
      requests.push_back({impl->kernels[step].workspace_bytes, step, step, 0});
    }
  }

  // Streams and events.
  std::vector<std::vector<size_t>> predecessors(impl->order.size());
  for (size_t step = 0; step < impl->order.size(); ++step) {
    const Node* node = impl->order[step];
    for (const Value* in : node->inputs()) {
      if (in != nullptr && in->producer() != nullptr) predecessors[step].push_back(step_of.at(in->producer()));
    }
    for (const Node* control : node->control_predecessors()) predecessors[step].push_back(step_of.at(control));
  }
  StreamPlanOptions stream_options;
  stream_options.max_streams = options.max_streams;
  GE_ASSIGN_OR_RETURN(impl->plan, plan_streams(predecessors, stream_options));
  // Lifetimes in one topological order only order work on one stream: with several
  // streams every buffer gets its own bytes.
  impl->arena_bytes = place_in_arena(requests, impl->plan.stream_count <= 1);
  GE_ASSIGN_OR_RETURN(impl->arena, device.allocate(std::max<size_t>(impl->arena_bytes, 1), kArenaAlignment));
  auto arena_address = [&](size_t request) { return static_cast<char*>(impl->arena) + requests[request].offset; };

  for (int s = 0; s < std::max(impl->plan.stream_count, 1); ++s) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, device.create_stream());
    impl->streams.push_back(std::move(stream));
  }
  for (size_t e = 0; e < impl->plan.events.size(); ++e) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Event> event, device.create_event());
    impl->events.push_back(std::move(event));
  }

  // Argument tables: sized once so that KernelArgs can point into them.
  size_t input_total = 0, output_total = 0;
  for (const Node* node : impl->order) {
    input_total += node->input_count();
    output_total += node->output_count();
  }
  impl->input_table.assign(input_total, nullptr);
  impl->output_table.assign(output_total, nullptr);
  impl->input_slots.resize(impl->runtime_inputs.size());
  impl->output_write_slots.resize(g.outputs().size());
  impl->output_read_slots.resize(g.outputs().size());
  impl->tasks.resize(impl->streams.size());

  std::vector<std::vector<size_t>> waits_before(impl->order.size()), records_after(impl->order.size());
  for (size_t e = 0; e < impl->plan.events.size(); ++e) {
    waits_before[impl->plan.events[e].consumer].push_back(e);
    records_after[impl->plan.events[e].producer].push_back(e);
  }

  size_t in_cursor = 0, out_cursor = 0;
  for (size_t step = 0; step < impl->order.size(); ++step) {
    const Node* node = impl->order[step];
    const auto s = static_cast<size_t>(impl->plan.stream_of[step]);
    std::vector<Task>& list = impl->tasks[s];
    const size_t begin = list.size();
    for (size_t e : waits_before[step]) list.push_back(EventWaitTask{impl->events[e].get()});
    KernelTask task;
    task.function = impl->kernels[step].function;
    task.name = impl->kernels[step].name.c_str();
    task.args.params = impl->kernels[step].params.get();
    task.args.inputs = impl->input_table.data() + in_cursor;
    task.args.outputs = impl->output_table.data() + out_cursor;
    if (workspace_request[step] != SIZE_MAX) task.args.workspace = arena_address(workspace_request[step]);
    for (const Value* in : node->inputs()) {
      const size_t slot = in_cursor++;
      if (in == nullptr) continue;
      if (auto it = input_index.find(in); it != input_index.end()) {
        impl->input_slots[it->second].push_back(slot);
      } else if (auto ot = output_index.find(in); ot != output_index.end()) {
        impl->output_read_slots[ot->second].push_back(slot);
      } else if (weight_offset.count(in)) {
        impl->input_table[slot] = weight_address(in);
      } else if (auto rt = request_of.find(in); rt != request_of.end()) {
        impl->input_table[slot] = arena_address(rt->second);
      } else {
        return internal_error(where + ": input '" + in->name() + "' of " + node->describe() + " has no address");
      }
    }
    for (const Value* out : node->outputs()) {
      const size_t slot = out_cursor++;
      if (is_omitted(g, out)) continue;
      if (auto ot = output_index.find(out); ot != output_index.end()) {
        impl->output_write_slots[ot->second].push_back(slot);
      } else {
        impl->output_table[slot] = arena_address(request_of.at(out));
      }
    }
    list.push_back(task);
    for (size_t e : records_after[step]) list.push_back(EventRecordTask{impl->events[e].get()});
    if (!impl->chunks.empty() && impl->chunks.back().stream == s) {
      impl->chunks.back().end = list.size();
    } else {
      impl->chunks.push_back({s, begin, list.size()});
    }
  }

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

Status ModelRunner::execute_bound(std::span<const void* const> inputs, std::span<void* const> outputs) {
  Impl& m = *impl_;
  if (inputs.size() != m.input_slots.size() || outputs.size() != m.output_write_slots.size()) {
    return invalid_argument("execute_bound: graph '" + m.graph->name() + "' takes " + std::to_string(m.input_slots.size()) +
                            " inputs and " + std::to_string(m.output_write_slots.size()) + " outputs, got " +
                            std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t slot : m.input_slots[i]) m.input_table[slot] = inputs[i];
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t slot : m.output_write_slots[i]) m.output_table[slot] = outputs[i];
    for (size_t slot : m.output_read_slots[i]) m.input_table[slot] = outputs[i];
  }
  Status first = Status::ok();
  for (const Impl::Chunk& chunk : m.chunks) {
    std::span<const Task> tasks(m.tasks[chunk.stream].data() + chunk.begin, chunk.end - chunk.begin);
    Status status = m.streams[chunk.stream]->submit(tasks);
    if (!status.is_ok()) {
      first = status.with_context("graph '" + m.graph->name() + "', stream " + std::to_string(chunk.stream));
      break;
    }
  }
  for (size_t s = 0; s < m.streams.size(); ++s) {
    Status status = m.streams[s]->synchronize();
    if (first.is_ok() && !status.is_ok()) first = status.with_context("graph '" + m.graph->name() + "', stream " + std::to_string(s));
  }
  GE_RETURN_IF_ERROR(first);
  return m.run_output_copies(inputs, outputs);
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
  for (const Value* out : g.outputs()) outputs.push_back(Tensor::zeros(out->desc().dtype, out->desc().static_dims()));
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
