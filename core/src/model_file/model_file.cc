// The .gem model file (ge/model_file.h): serializing and loading a compiled graph and its plans.
#include "ge/model_file.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gem.pb.h"
#include "ge/alignment.h"
#include "ge/atomic_file.h"
#include "ge/data_type.h"
#include "ge/graph_text.h"
#include "../passes/weight_merging.h"

namespace ge {
namespace {

constexpr uint32_t kKnownFlags = 0;

void put_u32(std::string& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_u64(std::string& out, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint32_t get_u32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(in[at + i])} << (8 * i);
  return v;
}
uint64_t get_u64(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(in[at + i])} << (8 * i);
  return v;
}

std::string desc_string(const Value& value) { return value.desc().to_string(); }

std::string op_key(const Node& node) {
  return node.domain().empty() ? node.op_type() : node.domain() + "::" + node.op_type();
}

/// Whether `value`'s bytes go to the weights partition (strings are not raw bytes).
bool is_stripped(const Value& value) {
  const Tensor* data = value.constant();
  return data != nullptr && data->defined() && data->dtype() != DataType::kString;
}

void fill_graph_fields(const Graph& graph, ModelFileInfo& info) {
  info.inputs.clear();
  info.outputs.clear();
  info.op_histogram.clear();
  for (const Value* v : graph.runtime_inputs()) info.inputs.emplace_back(v->name(), desc_string(*v));
  for (const Value* v : graph.outputs()) {
    if (v == nullptr)
      info.outputs.emplace_back("_", "");
    else
      info.outputs.emplace_back(v->name(), desc_string(*v));
  }
  std::map<std::string, uint64_t> histogram;
  for (const auto& node : graph.nodes()) ++histogram[op_key(*node)];
  info.op_histogram.assign(histogram.begin(), histogram.end());
  info.node_count = graph.node_count();
}

Status corrupt(const std::string& origin, const std::string& what) {
  return parse_error("model file '" + origin + "' is corrupt: " + what);
}

}  // namespace

uint64_t model_file_checksum(std::string_view bytes, uint32_t format_version) {
  if (format_version >= 2) return XXH3_64bits(bytes.data(), bytes.size());
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

namespace {

constexpr uint32_t kMaxStoredStreams = 1024;

bool serialize(const google::protobuf::MessageLite& message, std::string* out) { return message.SerializeToString(out); }

template <typename Message>
bool parse(std::string_view bytes, Message& message) {
  return bytes.size() <= static_cast<size_t>(std::numeric_limits<int>::max()) &&
         message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

/// The four plan partitions of `plans`.
struct PlanPartitions {
  std::string memory, streams, tasks, kernels;
};

Result<PlanPartitions> encode_plans(const CompiledPlans& plans, const MemoryStatistics* statistics) {
  gem::MemoryPlan memory;
  memory.set_planned(plans.has_memory_plan);
  for (uint64_t offset : plans.buffer_offsets) memory.add_buffer_offsets(offset);
  memory.set_feature_map_bytes(plans.feature_map_bytes);
  memory.set_assigner(plans.assigner);
  for (const CleanGroup& g : plans.clean_groups) {
    gem::CleanGroup* group = memory.add_clean_groups();
    group->set_offset(g.offset);
    group->set_bytes(g.bytes);
    group->set_blocks(g.blocks);
    group->set_stream(static_cast<uint32_t>(g.stream));
  }
  if (statistics != nullptr) {
    memory.set_lower_bound_bytes(statistics->lower_bound_bytes);
    memory.set_no_reuse_bytes(statistics->no_reuse_bytes);
    memory.set_weights_bytes(statistics->weights_bytes);
    memory.set_io_bytes(statistics->io_bytes);
  }
  gem::StreamPlan streams;
  for (uint64_t index : plans.order) streams.add_order(index);
  streams.set_stream_count(static_cast<uint32_t>(plans.streams.stream_count));
  for (int s : plans.streams.stream_of) streams.add_stream_of(static_cast<uint32_t>(s));
  for (const StreamEvent& e : plans.streams.events) {
    gem::StreamEvent* event = streams.add_events();
    event->set_producer(e.producer);
    event->set_consumer(e.consumer);
  }
  gem::TaskDefs tasks;
  for (const std::vector<TaskDef>& list : plans.tasks) {
    gem::StreamTasks* stream = tasks.add_streams();
    for (const TaskDef& def : list) {
      gem::TaskDef* task = stream->add_tasks();
      task->set_kind(static_cast<uint32_t>(def.kind));
      task->set_step(def.step);
      task->set_event(def.event);
      task->set_bytes(def.bytes);
      for (const TaskAddress& a : def.addresses) {
        gem::TaskAddress* address = task->add_addresses();
        address->set_region(static_cast<uint32_t>(a.region));
        address->set_index(a.index);
        address->set_offset(a.offset);
      }
    }
  }
  gem::KernelMeta kernels;
  for (const KernelMeta& k : plans.kernels) {
    gem::KernelInfo* kernel = kernels.add_kernels();
    kernel->set_name(k.name);
    kernel->set_workspace_bytes(k.workspace_bytes);
    kernel->set_zeroed_outputs(k.zeroed.outputs);
    kernel->set_zeroed_workspace(k.zeroed.workspace);
  }
  PlanPartitions out;
  if (!serialize(memory, &out.memory) || !serialize(streams, &out.streams) || !serialize(tasks, &out.tasks) ||
      !serialize(kernels, &out.kernels)) {
    return internal_error("cannot serialise the execution plans");
  }
  return out;
}

/// Decodes the plan partitions: structure and ranges only; ModelRunner::load validates
/// them against the graph.
Status decode_plans(const std::map<ModelPartitionKind, std::string_view>& partitions, const std::string& origin,
                    LoadedModelFile& loaded) {
  gem::MemoryPlan memory;
  gem::StreamPlan streams;
  gem::TaskDefs tasks;
  gem::KernelMeta kernels;
  if (!parse(partitions.at(ModelPartitionKind::kMemoryPlan), memory)) return corrupt(origin, "the memory plan partition does not parse");
  if (!parse(partitions.at(ModelPartitionKind::kStreamPlan), streams)) return corrupt(origin, "the stream plan partition does not parse");
  if (!parse(partitions.at(ModelPartitionKind::kTaskDefs), tasks)) return corrupt(origin, "the task definitions partition does not parse");
  if (!parse(partitions.at(ModelPartitionKind::kKernelMeta), kernels)) return corrupt(origin, "the kernel metadata partition does not parse");

  CompiledPlans plans;
  plans.has_memory_plan = memory.planned();
  plans.buffer_offsets.assign(memory.buffer_offsets().begin(), memory.buffer_offsets().end());
  plans.feature_map_bytes = memory.feature_map_bytes();
  plans.assigner = memory.assigner();
  for (const gem::CleanGroup& g : memory.clean_groups()) {
    if (g.stream() >= kMaxStoredStreams) {
      return corrupt(origin, "an atomic-clean group is on stream " + std::to_string(g.stream()));
    }
    plans.clean_groups.push_back({g.offset(), g.bytes(), g.blocks(), static_cast<int>(g.stream())});
  }

  const uint32_t stream_count = streams.stream_count();
  if (stream_count > kMaxStoredStreams || (stream_count == 0 && streams.order_size() > 0)) {
    return corrupt(origin, "the stream plan has " + std::to_string(stream_count) + " streams (1.." +
                               std::to_string(kMaxStoredStreams) + " allowed)");
  }
  if (streams.stream_of_size() != streams.order_size()) {
    return corrupt(origin, "the stream plan places " + std::to_string(streams.stream_of_size()) + " of " +
                               std::to_string(streams.order_size()) + " steps on streams");
  }
  plans.order.assign(streams.order().begin(), streams.order().end());
  plans.streams.stream_count = static_cast<int>(stream_count);
  plans.streams.streams.resize(stream_count);
  for (int step = 0; step < streams.stream_of_size(); ++step) {
    const uint32_t s = streams.stream_of(step);
    if (s >= stream_count) {
      return corrupt(origin, "step " + std::to_string(step) + " is on stream " + std::to_string(s) + " of " +
                                 std::to_string(stream_count));
    }
    plans.streams.stream_of.push_back(static_cast<int>(s));
    plans.streams.streams[s].push_back(static_cast<size_t>(step));
  }
  for (const gem::StreamEvent& e : streams.events()) plans.streams.events.push_back({e.producer(), e.consumer()});

  // A model with no node still has the one stream the runner submits copies on.
  if (tasks.streams_size() != static_cast<int>(std::max<uint32_t>(stream_count, 1))) {
    return corrupt(origin, "task lists for " + std::to_string(tasks.streams_size()) + " streams, but the stream plan has " +
                               std::to_string(stream_count));
  }
  constexpr uint32_t kLastKind = static_cast<uint32_t>(TaskDef::Kind::kMemset);
  constexpr uint32_t kLastRegion = static_cast<uint32_t>(TaskAddress::Region::kOutput);
  for (const gem::StreamTasks& stream : tasks.streams()) {
    std::vector<TaskDef>& list = plans.tasks.emplace_back();
    list.reserve(static_cast<size_t>(stream.tasks_size()));
    for (const gem::TaskDef& task : stream.tasks()) {
      if (task.kind() > kLastKind) return corrupt(origin, "a task has unknown kind " + std::to_string(task.kind()));
      TaskDef& def = list.emplace_back();
      def.kind = static_cast<TaskDef::Kind>(task.kind());
      def.step = task.step();
      def.event = task.event();
      def.bytes = task.bytes();
      for (const gem::TaskAddress& a : task.addresses()) {
        if (a.region() > kLastRegion) return corrupt(origin, "a task address has unknown region " + std::to_string(a.region()));
        def.addresses.push_back({static_cast<TaskAddress::Region>(a.region()), a.index(), a.offset()});
      }
    }
  }
  for (const gem::KernelInfo& k : kernels.kernels()) {
    plans.kernels.push_back({k.name(), k.workspace_bytes(), ZeroedMemory{k.zeroed_outputs(), k.zeroed_workspace()}});
  }

  ModelFileInfo& info = loaded.info;
  info.has_plans = true;
  info.stream_count = stream_count;
  info.event_count = plans.streams.events.size();
  for (const auto& list : plans.tasks) info.task_count += list.size();
  info.memory_planned = plans.has_memory_plan;
  info.memory_assigner = plans.assigner;
  info.feature_map_bytes = plans.feature_map_bytes;
  info.clean_groups = plans.clean_groups;
  info.lower_bound_bytes = memory.lower_bound_bytes();
  info.no_reuse_bytes = memory.no_reuse_bytes();
  info.io_bytes = memory.io_bytes();
  loaded.plans = std::move(plans);
  return Status::ok();
}

}  // namespace

Result<std::string> serialize_model_file(const Graph& graph, const ModelFileInfo& given, const CompiledPlans* plans,
                                         const MemoryStatistics* statistics, const std::vector<std::string>& gears) {
  ModelFileInfo info = given;
  fill_graph_fields(graph, info);

  // Move initializer bytes out of the text: the clone keeps a zero-element placeholder of
  // the same dtype in each one's place, restored from the weights partition on load.
  // Initializers with identical bytes are stored once: their entries share an offset.
  std::unique_ptr<Graph> stripped = graph.clone();
  std::vector<Value*> stored;
  std::vector<const Tensor*> stored_data;
  for (Value* value : stripped->initializers()) {
    if (!is_stripped(*value)) continue;
    const Tensor& data = *value->constant();
    if (data.raw_data() == nullptr && data.byte_size() > 0) {
      return invalid_argument("cannot serialise graph '" + graph.name() + "': the host copy of weight '" +
                              value->name() + "' was released after load (shrink); save without shrink");
    }
    stored.push_back(value);
    stored_data.push_back(&data);
  }
  const std::vector<size_t> identical = find_identical_bytes(stored_data);
  gem::ModelInfo model_info;
  std::string weights;
  uint64_t weights_bytes = 0;
  std::vector<uint64_t> offset_of(stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    const Tensor& data = *stored_data[i];
    gem::WeightEntry* entry = model_info.add_weights();
    entry->set_value_name(stored[i]->name());
    entry->set_dtype(static_cast<int32_t>(data.dtype()));
    for (int64_t d : data.shape()) entry->add_shape(d);
    entry->set_size(data.byte_size());
    if (identical[i] != i) {
      offset_of[i] = offset_of[identical[i]];
    } else {
      weights.resize(align_up(weights.size(), kModelFileWeightAlignment), '\0');
      offset_of[i] = weights.size();
      weights.append(static_cast<const char*>(data.raw_data()), data.byte_size());
      weights_bytes += data.byte_size();
    }
    entry->set_offset(offset_of[i]);
  }
  for (size_t i = 0; i < stored.size(); ++i) {
    stripped->set_constant(stored[i], Tensor::zeros(stored_data[i]->dtype(), {0}));
  }
  const std::string graph_text = print_graph(*stripped);

  model_info.set_backend(info.backend);
  model_info.set_opt_level(info.opt_level);
  model_info.set_precision(std::string(precision_name(info.precision)));
  model_info.set_producer(info.producer);
  model_info.set_source_model(info.source_model);
  for (const RequiredPlugin& plugin : info.plugins) {
    gem::RequiredPlugin* p = model_info.add_plugins();
    p->set_name(plugin.name);
    p->set_version(plugin.version);
    p->set_kind(plugin.kind);
  }
  for (const auto& [name, type] : info.inputs) {
    gem::ValueSummary* s = model_info.add_inputs();
    s->set_name(name);
    s->set_type(type);
  }
  for (const auto& [name, type] : info.outputs) {
    gem::ValueSummary* s = model_info.add_outputs();
    s->set_name(name);
    s->set_type(type);
  }
  for (const auto& [op, count] : info.op_histogram) {
    gem::OpCount* c = model_info.add_op_histogram();
    c->set_op(op);
    c->set_count(count);
  }
  model_info.set_weights_bytes(weights_bytes);
  model_info.set_node_count(info.node_count);
  std::string gear_bytes;
  for (const std::string& gear : gears) {
    gear_bytes.resize(align_up(gear_bytes.size(), kModelFileAlignment), '\0');
    gem::GearEntry* entry = model_info.add_gears();
    entry->set_offset(gear_bytes.size());
    entry->set_size(gear.size());
    gear_bytes += gear;
  }
  std::string info_bytes;
  if (!model_info.SerializeToString(&info_bytes)) return internal_error("cannot serialise the model info");

  std::vector<std::pair<ModelPartitionKind, const std::string*>> parts = {
      {ModelPartitionKind::kModelInfo, &info_bytes}};
  PlanPartitions plan_bytes;
  if (plans != nullptr) {
    GE_ASSIGN_OR_RETURN(plan_bytes, encode_plans(*plans, statistics));
    parts.emplace_back(ModelPartitionKind::kMemoryPlan, &plan_bytes.memory);
    parts.emplace_back(ModelPartitionKind::kStreamPlan, &plan_bytes.streams);
    parts.emplace_back(ModelPartitionKind::kTaskDefs, &plan_bytes.tasks);
    parts.emplace_back(ModelPartitionKind::kKernelMeta, &plan_bytes.kernels);
  }
  parts.emplace_back(ModelPartitionKind::kGraph, &graph_text);
  parts.emplace_back(ModelPartitionKind::kWeights, &weights);
  if (!gears.empty()) parts.emplace_back(ModelPartitionKind::kGears, &gear_bytes);
  // The table's size depends on the offsets it holds: lay out with a fixed upper bound
  // for the table (eight partitions of at most 3 x 11 bytes each), padded.
  constexpr size_t kTableReserve = 320;
  size_t cursor = kModelFileHeaderBytes + kTableReserve;
  gem::PartitionTable table;
  for (const auto& [kind, bytes] : parts) {
    cursor = align_up(cursor, kModelFileAlignment);
    gem::Partition* p = table.add_partitions();
    p->set_kind(static_cast<gem::PartitionKind>(kind));
    p->set_offset(cursor);
    p->set_size(bytes->size());
    cursor += bytes->size();
  }
  std::string table_bytes;
  if (!table.SerializeToString(&table_bytes) || table_bytes.size() > kTableReserve)
    return internal_error("cannot serialise the partition table");

  std::string file(cursor, '\0');
  std::memcpy(file.data(), kModelFileMagic, sizeof(kModelFileMagic));
  put_u32(file, 8, kModelFileFormatVersion);
  put_u32(file, 12, 0);
  put_u64(file, 16, file.size() - kModelFileHeaderBytes);
  put_u32(file, 32, static_cast<uint32_t>(table_bytes.size()));
  put_u32(file, 36, 0);
  std::memcpy(file.data() + kModelFileHeaderBytes, table_bytes.data(), table_bytes.size());
  for (int i = 0; i < table.partitions_size(); ++i) {
    const std::string& bytes = *parts[i].second;
    if (!bytes.empty()) std::memcpy(file.data() + table.partitions(i).offset(), bytes.data(), bytes.size());
  }
  put_u64(file, 24, model_file_checksum(std::string_view(file).substr(kModelFileHeaderBytes), kModelFileFormatVersion));
  return file;
}

Status write_model_file(const std::filesystem::path& path, const Graph& graph, const ModelFileInfo& info,
                        const CompiledPlans* plans, const MemoryStatistics* statistics,
                        const std::vector<std::string>& gears) {
  GE_ASSIGN_OR_RETURN(std::string bytes, serialize_model_file(graph, info, plans, statistics, gears));
  return write_file_atomically(path, bytes);
}

namespace {

/// Decodes `file`; when `owner` keeps `file` alive, aligned weights share its bytes
/// instead of being copied.
Result<LoadedModelFile> decode_model_file(std::string_view file, const std::string& origin,
                                          const std::shared_ptr<void>& owner, bool is_gear = false) {
  // ---- header ----
  if (file.size() < kModelFileHeaderBytes) {
    if (file.size() >= 8 && std::memcmp(file.data(), kModelFileMagic, 8) != 0)
      return parse_error("'" + origin + "' is not a GE model file (wrong magic)");
    return corrupt(origin, "truncated: " + std::to_string(file.size()) + " bytes is shorter than the " +
                               std::to_string(kModelFileHeaderBytes) + "-byte header");
  }
  if (std::memcmp(file.data(), kModelFileMagic, 8) != 0)
    return parse_error("'" + origin + "' is not a GE model file (wrong magic)");
  const uint32_t version = get_u32(file, 8);
  if (version > kModelFileFormatVersion) {
    return unsupported("model file '" + origin + "' has format version " + std::to_string(version) +
                       ", newer than this build reads (" + std::to_string(kModelFileFormatVersion) +
                       "); recompile it with this ge-compile");
  }
  if (version == 0) return corrupt(origin, "format version 0 is not valid");
  const uint32_t flags = get_u32(file, 12);
  if ((flags & ~kKnownFlags) != 0) {
    return unsupported("model file '" + origin + "' sets unknown flags 0x" +
                       [&] {
                         std::ostringstream s;
                         s << std::hex << (flags & ~kKnownFlags);
                         return s.str();
                       }() +
                       "; it was written by a newer ge-compile");
  }
  const uint64_t payload_size = get_u64(file, 16);
  const uint64_t actual_payload = file.size() - kModelFileHeaderBytes;
  if (payload_size > actual_payload) {
    return corrupt(origin, "truncated: the header promises " + std::to_string(payload_size) +
                               " payload bytes but the file holds " + std::to_string(actual_payload));
  }
  if (payload_size < actual_payload) {
    return corrupt(origin, std::to_string(actual_payload - payload_size) + " unexpected bytes after the payload");
  }
  const uint64_t checksum = model_file_checksum(file.substr(kModelFileHeaderBytes), version);
  if (checksum != get_u64(file, 24)) return corrupt(origin, "checksum mismatch (the file was modified or damaged)");
  if (get_u32(file, 36) != 0) return corrupt(origin, "reserved header field is not 0");

  // ---- partition table ----
  const uint32_t table_size = get_u32(file, 32);
  if (table_size > payload_size) {
    return corrupt(origin, "partition table size " + std::to_string(table_size) + " exceeds the payload (" +
                               std::to_string(payload_size) + " bytes)");
  }
  gem::PartitionTable table;
  if (!table.ParseFromArray(file.data() + kModelFileHeaderBytes, static_cast<int>(table_size)))
    return corrupt(origin, "the partition table does not parse");
  const uint64_t data_start = kModelFileHeaderBytes + table_size;
  std::map<ModelPartitionKind, std::string_view> partitions;
  for (const gem::Partition& p : table.partitions()) {
    const uint32_t kind = static_cast<uint32_t>(p.kind());
    const std::string label = "partition " + std::to_string(kind);
    if (kind < 1 || kind > 8) return corrupt(origin, "unknown " + label);
    if (p.offset() < data_start || p.offset() > file.size() || p.size() > file.size() - p.offset()) {
      return corrupt(origin, label + " at offset " + std::to_string(p.offset()) + " with size " +
                                 std::to_string(p.size()) + " lies outside the file's partition area [" +
                                 std::to_string(data_start) + ", " + std::to_string(file.size()) + ")");
    }
    if (!partitions.emplace(static_cast<ModelPartitionKind>(kind), file.substr(p.offset(), p.size())).second)
      return corrupt(origin, label + " appears twice");
  }
  for (auto [kind, name] : {std::pair{ModelPartitionKind::kGraph, "graph"},
                            std::pair{ModelPartitionKind::kWeights, "weights"},
                            std::pair{ModelPartitionKind::kModelInfo, "model info"}}) {
    if (!partitions.count(kind)) return corrupt(origin, std::string("the ") + name + " partition is missing");
  }

  const size_t plan_partitions = partitions.count(ModelPartitionKind::kMemoryPlan) +
                                 partitions.count(ModelPartitionKind::kStreamPlan) +
                                 partitions.count(ModelPartitionKind::kTaskDefs) +
                                 partitions.count(ModelPartitionKind::kKernelMeta);
  if (plan_partitions != 0 && plan_partitions != 4) {
    return corrupt(origin, "it holds " + std::to_string(plan_partitions) + " of the 4 execution plan partitions");
  }

  // ---- model info ----
  const std::string_view info_bytes = partitions[ModelPartitionKind::kModelInfo];
  gem::ModelInfo model_info;
  if (info_bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model_info.ParseFromArray(info_bytes.data(), static_cast<int>(info_bytes.size())))
    return corrupt(origin, "the model info partition does not parse");
  LoadedModelFile loaded;
  ModelFileInfo& info = loaded.info;
  info.format_version = version;
  info.file_bytes = file.size();
  info.backend = model_info.backend();
  info.opt_level = model_info.opt_level();
  if (!model_info.precision().empty()) {  // files before format 5 are fp32
    const std::optional<Precision> precision = parse_precision(model_info.precision());
    if (!precision) {
      return unsupported("model file '" + origin + "' was compiled with precision '" + model_info.precision() +
                         "', which this build does not know (fp32, bf16, mixed); recompile it with this ge-compile");
    }
    info.precision = *precision;
  }
  info.producer = model_info.producer();
  info.source_model = model_info.source_model();
  for (const gem::RequiredPlugin& p : model_info.plugins()) info.plugins.push_back({p.name(), p.version(), p.kind()});
  for (const gem::ValueSummary& s : model_info.inputs()) info.inputs.emplace_back(s.name(), s.type());
  for (const gem::ValueSummary& s : model_info.outputs()) info.outputs.emplace_back(s.name(), s.type());
  for (const gem::OpCount& c : model_info.op_histogram()) info.op_histogram.emplace_back(c.op(), c.count());
  info.weights_bytes = model_info.weights_bytes();
  info.weight_count = static_cast<uint64_t>(model_info.weights_size());
  info.node_count = model_info.node_count();

  if (plan_partitions == 4) GE_RETURN_IF_ERROR(decode_plans(partitions, origin, loaded));

  // ---- graph ----
  Result<std::unique_ptr<Graph>> graph = parse_graph(partitions[ModelPartitionKind::kGraph]);
  if (!graph.is_ok()) return graph.status().with_context("model file '" + origin + "': graph partition");
  loaded.graph = std::move(*graph);

  // ---- weights: every size is checked against the partition before anything is allocated ----
  const std::string_view weights = partitions[ModelPartitionKind::kWeights];
  std::vector<Value*> placeholders;
  for (Value* value : loaded.graph->initializers()) {
    if (is_stripped(*value) && value->constant()->element_count() == 0) placeholders.push_back(value);
  }
  // A genuinely empty initializer is stored as an entry of size 0 too, so counts match.
  if (placeholders.size() != static_cast<size_t>(model_info.weights_size())) {
    return corrupt(origin, "the graph has " + std::to_string(placeholders.size()) +
                               " weight placeholders but the weight directory lists " +
                               std::to_string(model_info.weights_size()));
  }
  uint64_t total = 0;         // bytes stored: entries sharing bytes count once
  std::vector<int> by_offset;  // non-empty entries, checked for overlap below
  std::map<std::pair<uint64_t, uint64_t>, std::shared_ptr<void>> copies;  // (offset, size) -> copied bytes
  for (int i = 0; i < model_info.weights_size(); ++i) {
    const gem::WeightEntry& entry = model_info.weights(i);
    Value* value = placeholders[static_cast<size_t>(i)];
    const std::string label = "weight '" + entry.value_name() + "'";
    if (entry.value_name() != value->name())
      return corrupt(origin, label + " does not match the graph's initializer '" + value->name() + "'");
    if (!is_valid_data_type(entry.dtype()) || entry.dtype() == static_cast<int32_t>(DataType::kUndefined) ||
        entry.dtype() == static_cast<int32_t>(DataType::kString) ||
        entry.dtype() != static_cast<int32_t>(value->constant()->dtype())) {
      return corrupt(origin, label + " has dtype " + std::to_string(entry.dtype()) + " but its placeholder is " +
                                 std::string(data_type_name(value->constant()->dtype())));
    }
    const DataType dtype = static_cast<DataType>(entry.dtype());
    // Element count without overflow, bounded by what the partition can hold.
    const uint64_t limit = weights.size() / element_size(dtype);
    uint64_t elements = 1;
    std::vector<int64_t> shape;
    for (int64_t d : entry.shape()) {
      if (d < 0) return corrupt(origin, label + " has a negative dimension " + std::to_string(d));
      if (d != 0 && elements > limit / static_cast<uint64_t>(d)) elements = limit + 1;  // saturate
      else elements *= static_cast<uint64_t>(d);
      shape.push_back(d);
    }
    if (elements > limit || entry.size() != elements * element_size(dtype)) {
      return corrupt(origin, label + " claims " + std::to_string(entry.size()) + " bytes for shape " +
                                 shape_to_string(shape) + " but the weights partition holds " +
                                 std::to_string(weights.size()) + " bytes");
    }
    if (entry.offset() > weights.size() || entry.size() > weights.size() - entry.offset()) {
      return corrupt(origin, label + " at offset " + std::to_string(entry.offset()) + " with size " +
                                 std::to_string(entry.size()) + " lies outside the weights partition (" +
                                 std::to_string(weights.size()) + " bytes)");
    }
    if (entry.size() != 0) by_offset.push_back(i);
    const char* bytes = weights.data() + entry.offset();
    if (owner != nullptr && entry.size() != 0 && reinterpret_cast<uintptr_t>(bytes) % kModelFileAlignment == 0) {
      loaded.graph->set_constant(value, Tensor::share(dtype, shape, const_cast<char*>(bytes), owner));
    } else if (entry.size() != 0) {
      // Entries holding the same bytes (weight merging) share one copy.
      std::shared_ptr<void>& copy = copies[{entry.offset(), entry.size()}];
      if (!copy) {
        void* memory = std::aligned_alloc(kModelFileAlignment, align_up(entry.size(), kModelFileAlignment));
        if (memory == nullptr) return invalid_argument("model file '" + origin + "': cannot allocate " + label);
        copy = std::shared_ptr<void>(memory, [](void* p) { std::free(p); });
        std::memcpy(memory, bytes, entry.size());
      }
      loaded.graph->set_constant(value, Tensor::share(dtype, shape, copy.get(), copy));
    } else {
      loaded.graph->set_constant(value, Tensor::zeros(dtype, shape));
    }
  }
  // Weights own disjoint bytes, or exactly the same bytes (weight merging): a forged
  // directory could otherwise make two initializers (or a shared one and a copied one)
  // read each other's values.
  std::stable_sort(by_offset.begin(), by_offset.end(), [&](int a, int b) {
    return model_info.weights(a).offset() < model_info.weights(b).offset();
  });
  for (size_t k = 0; k < by_offset.size(); ++k) {
    const gem::WeightEntry& entry = model_info.weights(by_offset[k]);
    if (k == 0) {
      total += entry.size();
      continue;
    }
    const gem::WeightEntry& before = model_info.weights(by_offset[k - 1]);
    if (entry.offset() == before.offset() && entry.size() == before.size()) {
      ++info.merged_weight_count;  // stored once
      continue;
    }
    total += entry.size();
    if (entry.offset() < before.offset() + before.size()) {
      return corrupt(origin, "weight '" + entry.value_name() + "' at offset " + std::to_string(entry.offset()) +
                                 " overlaps weight '" + before.value_name() + "' (offset " +
                                 std::to_string(before.offset()) + ", " + std::to_string(before.size()) + " bytes)");
    }
  }
  if (total != info.weights_bytes)
    return corrupt(origin, "weights total " + std::to_string(total) + " bytes but the model info says " +
                               std::to_string(info.weights_bytes));

  // ---- dynamic gears: whole model files, decoded (and checked) like the outer one ----
  const bool has_gear_partition = partitions.count(ModelPartitionKind::kGears) > 0;
  if (has_gear_partition != (model_info.gears_size() > 0)) {
    return corrupt(origin, has_gear_partition ? "it has a gears partition but no gear entries"
                                              : "it lists gears but has no gears partition");
  }
  if (has_gear_partition && is_gear) return corrupt(origin, "a gear holds gears of its own");
  const std::string_view gear_area = has_gear_partition ? partitions[ModelPartitionKind::kGears] : std::string_view{};
  // Every entry is checked before any gear is decoded: gears lie one after another, so a
  // forged directory cannot make the loader decode one big gear many times.
  uint64_t gears_end = 0;
  for (int i = 0; i < model_info.gears_size(); ++i) {
    const gem::GearEntry& entry = model_info.gears(i);
    if (entry.offset() < gears_end) {
      return corrupt(origin, "gear " + std::to_string(i) + " at offset " + std::to_string(entry.offset()) +
                                 " overlaps the gear before it (which ends at " + std::to_string(gears_end) + ")");
    }
    if (entry.offset() > gear_area.size() || entry.size() > gear_area.size() - entry.offset()) {
      return corrupt(origin, "gear " + std::to_string(i) + " at offset " + std::to_string(entry.offset()) +
                                 " with size " + std::to_string(entry.size()) + " lies outside the gears partition (" +
                                 std::to_string(gear_area.size()) + " bytes)");
    }
    gears_end = entry.offset() + entry.size();
  }
  for (int i = 0; i < model_info.gears_size(); ++i) {
    const gem::GearEntry& entry = model_info.gears(i);
    const std::string label = origin + " gear " + std::to_string(i);
    GE_ASSIGN_OR_RETURN(LoadedModelFile gear,
                        decode_model_file(gear_area.substr(entry.offset(), entry.size()), label, owner, true));
    if (!gear.plans) return corrupt(origin, "gear " + std::to_string(i) + " has no execution plans");
    if (gear.info.backend != info.backend) {
      return corrupt(origin, "gear " + std::to_string(i) + " is for backend '" + gear.info.backend + "', the model for '" +
                                 info.backend + "'");
    }
    info.gear_inputs.push_back(gear.info.inputs);
    loaded.gears.push_back(std::move(gear));
  }
  return loaded;
}

}  // namespace

Result<LoadedModelFile> deserialize_model_file(std::string_view file, const std::string& origin) {
  return decode_model_file(file, origin, nullptr);
}

Result<LoadedModelFile> read_model_file(const std::filesystem::path& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return not_found("cannot read model file '" + path.string() + "': " + error.message());
  if (size > kModelFileMaxBytes) {
    return invalid_argument("model file '" + path.string() + "' is " + std::to_string(size) +
                            " bytes, more than the " + std::to_string(kModelFileMaxBytes) + "-byte limit");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open model file '" + path.string() + "'");
  // One aligned block, not zero-filled first (the read overwrites every byte); the
  // weights of the loaded graph share it rather than being copied out.
  const size_t allocation = align_up(std::max<size_t>(static_cast<size_t>(size), 1), kModelFileAlignment);
  void* memory = std::aligned_alloc(kModelFileAlignment, allocation);
  if (memory == nullptr) return invalid_argument("model file '" + path.string() + "': cannot allocate " + std::to_string(size) + " bytes");
  std::shared_ptr<void> block(memory, [](void* p) { std::free(p); });
  char* bytes = static_cast<char*>(memory);
  in.read(bytes, static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size) return invalid_argument("cannot read model file '" + path.string() + "'");
  return decode_model_file(std::string_view(bytes, static_cast<size_t>(size)), path.string(), block);
}

std::vector<RequiredPlugin> required_plugins(const PluginHost& host, const std::string& backend) {
  std::vector<RequiredPlugin> result;
  for (const PluginRecord& record : host.records()) {
    if (!record.loaded || !record.shadowed_by.empty()) continue;
    bool needed = record.kind == PluginKind::kOpLibrary;
    if (record.kind == PluginKind::kBackend) {
      needed = std::find(record.components.begin(), record.components.end(), "backend " + backend) !=
               record.components.end();
    }
    if (needed) result.push_back({record.name, record.plugin_version, plugin_kind_name(record.kind)});
  }
  return result;
}

Status check_required_plugins(const ModelFileInfo& info, const PluginHost& host) {
  for (const RequiredPlugin& needed : info.plugins) {
    const PluginRecord* found = nullptr;
    for (const PluginRecord& record : host.records()) {
      if (record.name == needed.name && record.loaded && record.shadowed_by.empty()) found = &record;
    }
    if (found == nullptr) {
      return not_found("the model needs plugin '" + needed.name + "' (" + needed.kind + ", version " +
                       needed.version + ") but it is not loaded; add it to the registry or pass --plugins");
    }
    if (found->plugin_version != needed.version) {
      return invalid_argument("the model was compiled with plugin '" + needed.name + "' version " + needed.version +
                              " but version " + found->plugin_version + " is loaded (from '" +
                              found->library.string() + "'); recompile the model with ge-compile");
    }
  }
  return Status::ok();
}

std::string describe_model_file(const ModelFileInfo& info) {
  std::ostringstream out;
  out << "format version: " << info.format_version << "\n";
  out << "producer: " << info.producer << "\n";
  out << "source model: " << info.source_model << "\n";
  out << "backend: " << info.backend << " (-O" << info.opt_level << ")\n";
  out << "precision: " << precision_name(info.precision) << "\n";
  out << "file size: " << info.file_bytes << " bytes\n";
  out << "weights: " << info.weight_count << " tensors, " << info.weights_bytes << " bytes\n";
  if (info.merged_weight_count > 0) {
    out << "identical weights: " << info.merged_weight_count << " tensors stored once, in another's bytes\n";
  }
  out << "inputs:\n";
  for (const auto& [name, type] : info.inputs) out << "  " << name << " : " << type << "\n";
  out << "outputs:\n";
  for (const auto& [name, type] : info.outputs) out << "  " << name << " : " << type << "\n";
  if (info.has_plans) {
    out << "execution: task sink, " << info.stream_count << (info.stream_count == 1 ? " stream, " : " streams, ")
        << info.event_count << (info.event_count == 1 ? " event, " : " events, ") << info.task_count << " tasks\n";
    if (info.memory_planned) {
      out << "memory: feature map " << info.feature_map_bytes << " bytes (assigner " << info.memory_assigner
          << "; lower bound " << info.lower_bound_bytes << ", no reuse " << info.no_reuse_bytes << "), weights "
          << info.weights_bytes << " bytes, graph I/O " << info.io_bytes << " bytes (zero-copy)\n";
    } else {
      out << "memory: feature map " << info.feature_map_bytes << " bytes placed first-fit at load, weights "
          << info.weights_bytes << " bytes\n";
    }
    if (!info.clean_groups.empty()) out << "atomic clean: " << format_clean_groups(info.clean_groups) << "\n";
  } else {
    out << "execution: per-op executor (dynamic shapes, control flow or sequences; no stored plans)\n";
  }
  if (!info.gear_inputs.empty()) {
    out << "dynamic gears: " << info.gear_inputs.size() << " (static plans picked by exact input shapes)\n";
    for (const auto& inputs : info.gear_inputs) {
      out << " ";
      for (const auto& [name, type] : inputs) out << " " << name << " : " << type;
      out << "\n";
    }
  }
  out << "nodes: " << info.node_count << "\nop histogram:\n";
  for (const auto& [op, count] : info.op_histogram) out << "  " << op << ": " << count << "\n";
  out << "required plugins:\n";
  if (info.plugins.empty()) out << "  (none)\n";
  for (const RequiredPlugin& p : info.plugins) out << "  " << p.name << " " << p.version << " (" << p.kind << ")\n";
  return out.str();
}

}  // namespace ge
