// A model file's plans taken by a model runner (ModelRunnerOptions::precompiled): its
// order, streams, memory plan, atomic-clean groups and tasks, each validated against the
// loaded graph and the prepared kernels, never trusted (ModelRunner::Impl).
#include "model_runner_impl.h"

#include <algorithm>

#include "../memory/stream_lifetimes.h"

namespace ge {
namespace {

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

/// Hands the planner the buffer offsets a model file stored, so that load re-derives
/// every buffer from the graph and validates the stored answer instead of searching.
std::shared_ptr<MemoryAssigner> stored_plan_assigner(const CompiledPlans& plans) {
  return fixed_offsets_assigner(plans.assigner.empty() ? std::string("stored plan") : plans.assigner + " (stored plan)",
                                {plans.buffer_offsets.begin(), plans.buffer_offsets.end()},
                                static_cast<size_t>(plans.feature_map_bytes));
}

}  // namespace

Status runner::Compiled::place_model_file_plans(const Graph& source, const CompiledPlans& plans,
                                                 const std::vector<Node*>& topological,
                                                 const ModelRunnerOptions& options, const PreparedKernels& prepared,
                                                 const InputIndex& input_index,
                                                 const std::string& where) {
  const Graph& g = *graph;
  const std::string file_where = where + ": the model file's plans";
  const size_t n = topological.size();
  if (plans.order.size() != n || plans.kernels.size() != n) {
    return invalid_argument(file_where + " cover " + std::to_string(plans.order.size()) + " steps and " +
                            std::to_string(plans.kernels.size()) + " kernels, but the graph has " + std::to_string(n) +
                            " nodes");
  }
  std::vector<Node*> by_index, source_by_index;
  for (const auto& node : g.nodes()) by_index.push_back(node.get());
  for (const auto& node : source.nodes()) source_by_index.push_back(node.get());
  std::vector<bool> seen(n, false);
  std::vector<const Node*> source_order;
  for (uint64_t index : plans.order) {
    if (index >= n || seen[index]) {
      return invalid_argument(file_where + ": the execution order names node " + std::to_string(index) +
                              (index >= n ? " of " + std::to_string(n) : " twice"));
    }
    seen[index] = true;
    order.push_back(by_index[index]);
    source_order.push_back(source_by_index[index]);
  }
  const std::vector<std::vector<size_t>> predecessors = order_dependences(order);
  for (size_t step = 0; step < n; ++step) {
    for (size_t p : predecessors[step]) {
      if (p >= step) {
        return invalid_argument(file_where + ": the execution order runs " + order[step]->describe() +
                                " before its producer " + order[p]->describe());
      }
    }
    const PreparedKernel& kernel = prepared.at(order[step]);
    const KernelMeta& meta = plans.kernels[step];
    // A kernel may need less workspace than the file planned (a backend that sizes its
    // scratch by thread count, loaded with fewer threads): the planned bytes still hold
    // it. More would overflow the plan.
    if (kernel.name != meta.name || kernel.workspace_bytes > meta.workspace_bytes) {
      return invalid_argument(where + ": " + order[step]->describe() + " was compiled for kernel '" + meta.name +
                              "' with " + std::to_string(meta.workspace_bytes) + " workspace bytes, but backend '" +
                              backend->name() + "' now prepares '" + kernel.name + "' with " +
                              std::to_string(kernel.workspace_bytes) +
                              "; recompile the model (with ge-compile --threads as many as it runs with)");
    }
    if (kernel.zeroed != meta.zeroed) {
      return invalid_argument(where + ": " + order[step]->describe() + " was compiled for kernel '" + meta.name +
                              "' needing " + describe_zeroed(meta.zeroed) + " zeroed before it runs, but backend '" +
                              backend->name() + "' now needs " + describe_zeroed(kernel.zeroed) +
                              " (atomic clean); recompile the model");
    }
  }
  if (Status status = validate_stream_plan(predecessors, plans.streams); !status.is_ok()) {
    return invalid_argument(file_where + ": " + status.message());
  }
  plan = plans.streams;
  if (plans.has_memory_plan) {
    MemoryPlanOptions stored = options.memory_plan_options;
    GE_ASSIGN_OR_RETURN(stored.explicit_order, on_clone(source, source_order, where));
    if (plan.stream_count > 1) stored.streams = &plan;
    if (Status status = place_with_plan(stored, {stored_plan_assigner(plans)}, prepared, input_index, where);
        !status.is_ok()) {
      return invalid_argument(file_where + ": the memory plan does not hold: " + status.message());
    }
    // Smaller when kernels now need less workspace than planned (see above).
    if (memory_plan->feature_map_bytes > plans.feature_map_bytes) {
      return invalid_argument(file_where + ": the memory plan's feature map is " +
                              std::to_string(memory_plan->feature_map_bytes) + " bytes, not the stored " +
                              std::to_string(plans.feature_map_bytes));
    }
  } else {
    // Placed at load by the core's first-fit assigner: deterministic, so the bytes match.
    MemoryPlanOptions first_fit = options.memory_plan_options;
    GE_ASSIGN_OR_RETURN(first_fit.explicit_order, on_clone(source, source_order, where));
    if (plan.stream_count > 1) first_fit.streams = &plan;
    GE_RETURN_IF_ERROR(place_with_plan(first_fit, {first_fit_assigner()}, prepared, input_index, where));
    if (arena_bytes > plans.feature_map_bytes) {
      return invalid_argument(file_where + ": the feature map is " + std::to_string(arena_bytes) +
                              " bytes, not the stored " + std::to_string(plans.feature_map_bytes));
    }
  }
  if (plans.clean_groups != clean_groups) {
    return invalid_argument(where + ": the model file's plans: its atomic-clean groups (" +
                            format_clean_groups(plans.clean_groups) + ") are not the ones its plans give (" +
                            format_clean_groups(clean_groups) + ")");
  }
  return Status::ok();
}

Status runner::Compiled::check_model_file_tasks(const CompiledPlans& plans, const std::string& where) const {
  // The stored task definitions must be exactly what the validated plans give.
  if (plans.tasks.size() != task_defs.size()) {
    return invalid_argument(where + ": the model file defines tasks for " + std::to_string(plans.tasks.size()) +
                            " streams but its plans use " + std::to_string(task_defs.size()));
  }
  for (size_t s = 0; s < plans.tasks.size(); ++s) {
    const auto& stored = plans.tasks[s];
    const auto& built = task_defs[s];
    for (size_t t = 0; t < std::max(stored.size(), built.size()); ++t) {
      if (t >= stored.size() || t >= built.size() || !(stored[t] == built[t])) {
        return invalid_argument(where + ": the model file's task " + std::to_string(t) + " on stream " +
                                std::to_string(s) + " does not match its plans (" + std::to_string(stored.size()) +
                                " tasks stored, " + std::to_string(built.size()) + " planned)");
      }
    }
  }
  return Status::ok();
}

}  // namespace ge
