// A model runner's tasks: their definitions at compile (kernel launches, views and
// concatenation slices that need no task, copies, atomic-clean memsets and events, as
// locations), and at load the task lists and argument tables they resolve to on the
// device (runner::Compiled, ModelRunner::Impl).
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

Status runner::Compiled::build_task_defs(const std::string& where) {
  const std::unordered_map<const Value*, Location>& location = placement.location;
  const std::vector<Location>& workspace = placement.workspace;
  if (memory_plan == nullptr) return internal_error(where + ": tasks defined before the memory plan");
  const Graph& g = *graph;
  const size_t stream_count = static_cast<size_t>(std::max(plan.stream_count, 1));
  task_defs.assign(stream_count, {});
  chunks.clear();

  std::vector<std::vector<size_t>> waits_before(order.size()), records_after(order.size());
  for (size_t e = 0; e < plan.events.size(); ++e) {
    waits_before[plan.events[e].consumer].push_back(e);
    records_after[plan.events[e].producer].push_back(e);
  }
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
    task_defs[s].push_back({TaskDef::Kind::kMemset, 0, 0, {Location{Location::Region::kArena, 0, group.offset}},
                            group.bytes});
    return Status::ok();
  };

  for (size_t step = 0; step < order.size(); ++step) {
    const Node* node = order[step];
    const auto s = static_cast<size_t>(plan.stream_of[step]);
    if (s >= stream_count) return internal_error(where + ": " + node->describe() + " is planned on a stream the plan lacks");
    std::vector<TaskDef>& defs = task_defs[s];
    const size_t begin = defs.size();
    for (size_t e : waits_before[step]) defs.push_back({TaskDef::Kind::kEventWait, 0, e, {}, 0});

    bool needs_kernel = true;
    if (planned_as_view(*memory_plan, *node)) {
      // The plan put the view at its input's address: nothing to copy.
      GE_ASSIGN_OR_RETURN(Location in, find(node->input(0), node));
      GE_ASSIGN_OR_RETURN(Location out, find(node->output(0), node));
      needs_kernel = !(in == out);
    } else if (memory_plan->has_input_in_slice(*node)) {
      // Producers wrote the inputs planned in their slices; copy only the others.
      GE_ASSIGN_OR_RETURN(Location out, find(node->output(0), node));
      std::vector<TaskDef> copies;  // of inputs elsewhere into their slices
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
          copies.push_back({TaskDef::Kind::kMemcpy, 0, 0, {slice, at}, bytes});
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
        defs.insert(defs.end(), std::make_move_iterator(copies.begin()), std::make_move_iterator(copies.end()));
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
      }
      for (size_t k = 0; k < node->output_count(); ++k) {
        const Value* out = node->output(k);
        if (is_omitted_output(g, out)) {
          def.addresses.emplace_back();
          continue;
        }
        GE_ASSIGN_OR_RETURN(Location at, find(out, node));
        if (at.region == Location::Region::kInput) {
          return internal_error(where + ": " + node->describe() + " would write into the caller's input buffer");
        }
        def.addresses.push_back(at);
      }
      def.addresses.push_back(workspace[step]);
      defs.push_back(std::move(def));
    }
    for (size_t e : records_after[step]) defs.push_back({TaskDef::Kind::kEventRecord, 0, e, {}, 0});
    if (defs.size() == begin) continue;
    if (!chunks.empty() && chunks.back().stream == s) {
      chunks.back().end = defs.size();
    } else {
      chunks.push_back({s, begin, defs.size()});
    }
  }
  return Status::ok();
}

Status ModelRunner::Impl::materialise_tasks() {
  const std::string where = "loading graph '" + graph->name() + "'";
  // Argument tables: sized once so that KernelArgs and patches can point into them.
  size_t input_total = 0, output_total = 0;
  std::vector<size_t> in_base(order.size()), out_base(order.size());
  node_labels.clear();
  node_labels.reserve(order.size());  // KernelTask::node points into these strings
  for (size_t step = 0; step < order.size(); ++step) {
    const Node* node = order[step];
    node_labels.push_back(node->describe());
    in_base[step] = input_total;
    out_base[step] = output_total;
    input_total += node->input_count();
    output_total += node->output_count();
  }
  input_table.assign(input_total, nullptr);
  output_table.assign(output_total, nullptr);
  if (task_defs.size() != streams.size()) {
    return internal_error(where + ": tasks defined for " + std::to_string(task_defs.size()) + " streams, " +
                          std::to_string(streams.size()) + " created");
  }
  tasks.assign(streams.size(), {});
  task_step.assign(streams.size(), {});

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

  for (size_t s = 0; s < task_defs.size(); ++s) {
    std::vector<Task>& list = tasks[s];
    list.reserve(task_defs[s].size());
    task_step[s].assign(task_defs[s].size(), SIZE_MAX);
    for (const TaskDef& def : task_defs[s]) {
      const size_t t = list.size();
      switch (def.kind) {
        case TaskDef::Kind::kEventWait:
        case TaskDef::Kind::kEventRecord: {
          if (def.event >= events.size()) return internal_error(where + ": a task names an event the plan lacks");
          Event* event = events[def.event].get();
          if (def.kind == TaskDef::Kind::kEventWait) {
            list.push_back(EventWaitTask{event});
          } else {
            list.push_back(EventRecordTask{event});
          }
          break;
        }
        case TaskDef::Kind::kMemset: {
          const Location& base = def.addresses.at(0);
          if (in_arena(base)) pending_arena.push_back({s, t, Field::kMemset, base.offset});
          list.push_back(MemsetTask{own_address(base), def.bytes, 0});
          break;
        }
        case TaskDef::Kind::kMemcpy: {
          const Location& slice = def.addresses.at(0);
          const Location& at = def.addresses.at(1);
          if (is_io(slice)) pending.push_back({s, t, false, slice});
          if (is_io(at)) pending.push_back({s, t, true, at});
          if (in_arena(slice)) pending_arena.push_back({s, t, Field::kDestination, slice.offset});
          if (in_arena(at)) pending_arena.push_back({s, t, Field::kSource, at.offset});
          list.push_back(MemcpyTask{own_address(slice), own_address(at), def.bytes});
          break;
        }
        case TaskDef::Kind::kKernel: {
          const size_t step = def.step;
          const Node* node = order.at(step);
          const size_t inputs = node->input_count(), outputs = node->output_count();
          if (def.addresses.size() != inputs + outputs + 1) {
            return internal_error(where + ": the task of " + node->describe() + " has " +
                                  std::to_string(def.addresses.size()) + " addresses");
          }
          const PreparedKernel& kernel = kernels[step];
          KernelTask task;
          task.function = kernel.function;
          task.name = kernel.name.c_str();
          task.node = node_labels[step].c_str();
          task.args.params = kernel.params.get();
          task.args.inputs = input_table.data() + in_base[step];
          task.args.outputs = output_table.data() + out_base[step];
          const Location& scratch = def.addresses.back();
          if (scratch.region != Location::Region::kNone) task.args.workspace = own_address(scratch);
          if (in_arena(scratch)) pending_arena.push_back({s, t, Field::kWorkspace, scratch.offset});
          for (size_t k = 0; k < inputs; ++k) {
            const Location& at = def.addresses[k];
            const void** slot = &input_table[in_base[step] + k];
            if (at.region == Location::Region::kNone) continue;
            if (is_io(at)) {
              patches.push_back({slot, nullptr, at});
            } else {
              *slot = own_address(at);
              if (in_arena(at)) arena_slots.push_back({slot, nullptr, at.offset});
            }
          }
          for (size_t k = 0; k < outputs; ++k) {
            const Location& at = def.addresses[inputs + k];
            void** slot = &output_table[out_base[step] + k];
            if (at.region == Location::Region::kNone) continue;
            if (is_io(at)) {
              patches.push_back({nullptr, slot, at});
            } else {
              *slot = own_address(at);
              if (in_arena(at)) arena_slots.push_back({nullptr, slot, at.offset});
            }
          }
          task_step[s][t] = step;
          list.push_back(task);
          break;
        }
      }
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
