// A model runner's memory plan: planning the loaded graph with its kernels' needs, on
// streams within a memory limit, and placing the plan's values (ModelRunner::Impl).
#include "model_runner_impl.h"

#include <algorithm>

#include "ge/logging.h"
#include "../memory/memory_reuse_order.h"
#include "../memory/stream_lifetimes.h"

namespace ge {

Result<std::vector<const Node*>> runner::Compiled::on_clone(const Graph& source, std::vector<const Node*> order,
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

Result<GraphMemoryPlan> runner::Compiled::plan_for_kernels(MemoryPlanOptions plan_options, const Assigners& assigners,
                                                            const PreparedKernels& prepared,
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

Result<GraphMemoryPlan> runner::Compiled::plan_streams_and_memory(const std::vector<Node*>& order, int max_streams,
                                                                   double ratio, MemoryPlanOptions plan_options,
                                                                   Assigners assigners, const PreparedKernels& prepared,
                                                                   const std::string& where) {
  std::vector<std::vector<size_t>> predecessors = order_dependences(order);
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
  GE_LOG_INFO(
      "{}: {} streams need {} feature-map bytes, more than {} x the {} of one stream even ordered for reuse: "
      "running on one stream",
      where, max_streams, side_by_side_bytes, ratio, one_stream.feature_map_bytes);
  plan = StreamPlan{};
  return one_stream;
}

Status runner::Compiled::plan_and_place(const Graph& source, const std::vector<Node*>& topological,
                                         const ModelRunnerOptions& options, const PreparedKernels& prepared,
                                         const InputIndex& input_index,
                                         const std::string& where) {
  order = topological;
  // Without assigner plugins, the core's first-fit assigner places the same plan's buffers.
  const Assigners assigners =
      options.memory_assigners.empty() ? Assigners{first_fit_assigner()} : options.memory_assigners;
  MemoryPlanOptions plan_options = options.memory_plan_options;
  GE_ASSIGN_OR_RETURN(plan_options.explicit_order, on_clone(source, plan_options.explicit_order, where));
  plan = StreamPlan{};
  if (options.max_streams > 1) {
    // Streams over the order the memory plan then keeps: its lifetimes follow them.
    std::vector<Node*> streamed = topological;
    if (!plan_options.explicit_order.empty() || plan_options.order == ExecutionOrder::kMemoryPriority) {
      std::vector<const Node*> chosen = plan_options.explicit_order;
      if (chosen.empty()) {
        GE_ASSIGN_OR_RETURN(chosen, memory_priority_order(*graph, plan_options.alignment));
      }
      std::unordered_map<const Node*, Node*> mutable_node;
      for (const auto& node : graph->nodes()) mutable_node[node.get()] = node.get();
      streamed.clear();
      for (const Node* node : chosen) streamed.push_back(mutable_node.at(node));
    }
    plan_options.explicit_order.assign(streamed.begin(), streamed.end());
    GE_ASSIGN_OR_RETURN(GraphMemoryPlan planned,
                        plan_streams_and_memory(streamed, options.max_streams, options.stream_memory_ratio,
                                                std::move(plan_options), assigners, prepared, where));
    GE_RETURN_IF_ERROR(place(std::move(planned), input_index, where));
  } else {
    GE_RETURN_IF_ERROR(place_with_plan(std::move(plan_options), assigners, prepared, input_index, where));
  }
  if (plan.stream_count <= 1) {
    GE_ASSIGN_OR_RETURN(plan, plan_streams(order_dependences(order), StreamPlanOptions{.max_streams = 1}));
  }
  return Status::ok();
}

Status runner::Compiled::place_with_plan(MemoryPlanOptions plan_options, const Assigners& assigners,
                                          const PreparedKernels& prepared, const InputIndex& input_index, const std::string& where) {
  GE_ASSIGN_OR_RETURN(GraphMemoryPlan planned, plan_for_kernels(std::move(plan_options), assigners, prepared, where));
  return place(std::move(planned), input_index, where);
}

Status runner::Compiled::place(GraphMemoryPlan planned, const InputIndex& input_index,
                                const std::string& where) {
  const Graph& g = *graph;
  memory_plan = std::make_unique<GraphMemoryPlan>(std::move(planned));
  const GraphMemoryPlan& mp = *memory_plan;
  clean_groups = mp.clean_groups;
  placement = Placement{};
  copies_in.clear();
  copies_out.clear();

  std::unordered_map<const Node*, Node*> mutable_node;
  for (const auto& node : g.nodes()) mutable_node[node.get()] = node.get();
  order.clear();
  for (const Node* node : mp.order) order.push_back(mutable_node.at(node));
  std::unordered_map<const Node*, size_t> step_of;
  for (size_t i = 0; i < order.size(); ++i) step_of[order[i]] = i;

  weights_bytes = mp.weights_bytes;
  arena_bytes = mp.feature_map_bytes;
  arena_alignment = mp.alignment;
  weight_offsets.clear();

  std::unordered_map<const Value*, Location>& location = placement.location;
  std::vector<Location>& workspace = placement.workspace;
  workspace.assign(order.size(), Location{});
  for (size_t i = 0; i < mp.values.size(); ++i) {
    const ValuePlacement& p = mp.values[i];
    Location at;
    switch (p.region) {
      case MemoryRegion::kWeights:
        at = {Location::Region::kWeights, 0, p.offset};
        break;
      case MemoryRegion::kFeatureMap:
        at = {Location::Region::kArena, 0, p.offset};
        break;
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
          at = {Location::Region::kInput, it->second, offset};
        } else {
          auto out = std::find(g.outputs().begin(), g.outputs().end(), io);
          if (out == g.outputs().end()) {
            return internal_error(where + ": '" + p.name + "' is planned in graph I/O but '" + mp.values[root].name +
                                  "' is neither a runtime input nor a graph output");
          }
          at = {Location::Region::kOutput, static_cast<size_t>(out - g.outputs().begin()), offset};
        }
        break;
      }
      case MemoryRegion::kUnplanned:
        continue;  // build_tasks names it if a kernel needs it
    }
    if (p.workspace_of != nullptr) {
      workspace[step_of.at(p.workspace_of)] = at;
    } else if (p.value != nullptr) {
      location[p.value] = at;
      if (p.region == MemoryRegion::kWeights && p.alias == MemoryAlias::kNone && p.value->producer() == nullptr &&
          p.value->constant()) {
        if (p.value->constant()->byte_size() != p.bytes) {
          return internal_error(where + ": weight '" + p.name + "' holds " +
                                std::to_string(p.value->constant()->byte_size()) + " bytes but is planned for " +
                                std::to_string(p.bytes));
        }
        weight_offsets.emplace_back(p.value, p.offset);
      }
    }
  }
  // Without zero-copy I/O the inputs live in the arena: copy them in before the tasks.
  for (size_t i = 0; i < runtime_inputs.size(); ++i) {
    auto it = location.find(runtime_inputs[i]);
    if (it != location.end() && !is_io(it->second) && input_bytes[i] > 0) {
      copies_in.push_back({it->second, {Location::Region::kInput, i, 0}, input_bytes[i]});
    }
  }
  // A graph output not planned in its own caller buffer is copied there after the tasks.
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const Value* out = g.outputs()[i];
    auto it = location.find(out);
    if (it == location.end()) {
      return unsupported(where + ": graph output '" + out->name() + "' has no static placement");
    }
    const Location direct{Location::Region::kOutput, i, 0};
    if (it->second != direct) copies_out.push_back({direct, it->second, output_bytes[i]});
  }
  return Status::ok();
}

}  // namespace ge
