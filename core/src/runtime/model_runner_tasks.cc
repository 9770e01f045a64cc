// A model runner's task lists: argument tables, kernel launches, views and concatenation
// slices that need no task, copies, atomic-clean memsets and events (ModelRunner::Impl).
#include "model_runner_impl.h"

#include "ge/graph_queries.h"
#include "ge/op_registry.h"

#include <algorithm>
#include <variant>

namespace ge {
namespace {

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

}  // namespace

Status ModelRunner::Impl::build_tasks(const Placement& placement, const std::string& where) {
  const std::unordered_map<const Value*, Location>& location = placement.location;
  const std::vector<Location>& workspace = placement.workspace;
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
  auto in_arena = [this](const Location& at) { return caller_feature_map && at.region == Location::Region::kArena; };
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
    while (g < clean_groups.size() && !(at.region == Location::Region::kArena && at.offset >= clean_groups[g].offset &&
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
    const Location base{Location::Region::kArena, 0, group.offset};
    if (in_arena(base)) pending_arena.push_back({s, tasks[s].size(), Field::kMemset, group.offset});
    tasks[s].push_back(MemsetTask{own_address(base), group.bytes, 0});
    task_defs[s].push_back({TaskDef::Kind::kMemset, 0, 0, {base}, group.bytes});
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
        const size_t bytes =
            static_cast<size_t>(element_count(in->desc().static_dims())) * element_size(in->desc().dtype);
        const Location slice = plus(out, offset);
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
        // The plan's slices are the output's bytes in input order: the concatenation axis
        // (the attribute the op's schema names) must have only 1s before it.
        const OpSchemaInfo* schema = ops != nullptr ? ops->find_schema(*node) : nullptr;
        if (schema == nullptr || schema->concatenates_along.empty()) {
          return internal_error(where + ": " + node->describe() + " has inputs planned in slices of its output, but " +
                                "its schema declares no concatenation");
        }
        const std::vector<int64_t> dims = node->output(0)->desc().static_dims();
        int64_t axis = node->get_int(schema->concatenates_along, 0);
        if (axis < 0) axis += static_cast<int64_t>(dims.size());
        for (int64_t d = 0; d < axis && d < static_cast<int64_t>(dims.size()); ++d) {
          if (dims[d] != 1) {
            return internal_error(where + ": " + node->describe() + " has inputs planned in slices of an output that " +
                                  "is not contiguous per input");
          }
        }
        for (size_t c = 0; c < copies.size(); ++c) {
          const auto& [slice, at] = copies[c];
          if (is_io(slice)) pending.push_back({s, list.size(), false, slice});
          if (is_io(at)) pending.push_back({s, list.size(), true, at});
          if (in_arena(slice)) pending_arena.push_back({s, list.size(), Field::kDestination, slice.offset});
          if (in_arena(at)) pending_arena.push_back({s, list.size(), Field::kSource, at.offset});
          list.push_back(MemcpyTask{own_address(slice), own_address(at), copy_bytes[c]});
          defs.push_back({TaskDef::Kind::kMemcpy, 0, 0, {slice, at}, copy_bytes[c]});
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
        const size_t bytes =
            static_cast<size_t>(element_count(out->desc().static_dims())) * element_size(out->desc().dtype);
        GE_RETURN_IF_ERROR(clean_before(at, bytes, s, "output '" + out->name() + "' of " + node->describe()));
      }
      if (kernel.zeroed.workspace && kernel.workspace_bytes > 0) {
        GE_RETURN_IF_ERROR(
            clean_before(workspace[step], kernel.workspace_bytes, s, "the workspace of " + node->describe()));
      }
      KernelTask task;
      task.function = kernel.function;
      task.name = kernel.name.c_str();
      task.node = node_labels[step].c_str();
      task.args.params = kernel.params.get();
      task.args.inputs = input_table.data() + in_base;
      task.args.outputs = output_table.data() + out_base;
      if (workspace[step].region != Location::Region::kNone) task.args.workspace = own_address(workspace[step]);
      if (in_arena(workspace[step]))
        pending_arena.push_back({s, list.size(), Field::kWorkspace, workspace[step].offset});
      TaskDef def{TaskDef::Kind::kKernel, step, 0, {}, 0};
      def.addresses.reserve(node->input_count() + node->output_count() + 1);
      for (size_t k = 0; k < node->input_count(); ++k) {
        const Value* in = node->input(k);
        if (in == nullptr) {
          def.addresses.emplace_back();
          continue;
        }
        GE_ASSIGN_OR_RETURN(Location at, find(in, node));
        def.addresses.push_back(at);
        if (is_io(at)) {
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
        def.addresses.push_back(at);
        if (at.region == Location::Region::kInput) {
          return internal_error(where + ": " + node->describe() + " would write into the caller's input buffer");
        }
        if (is_io(at)) {
          patches.push_back({nullptr, &output_table[out_base + k], at});
        } else {
          output_table[out_base + k] = own_address(at);
          if (in_arena(at)) arena_slots.push_back({nullptr, &output_table[out_base + k], at.offset});
        }
      }
      def.addresses.push_back(workspace[step]);
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
    patches.push_back(p.source ? IoPatch{&copy.source, nullptr, p.location}
                               : IoPatch{nullptr, &copy.destination, p.location});
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
    const bool grouped = std::any_of(patched_copies.begin(), patched_copies.end(),
                                     [&](const PatchedCopy& c) { return c.stream == p.stream && c.task == p.task; });
    if (!grouped &&
        (arena_tasks.empty() || arena_tasks.back().stream != p.stream || arena_tasks.back().task != p.task)) {
      arena_tasks.push_back({p.stream, p.task, {}});
    }
  }
  return Status::ok();
}

}  // namespace ge
