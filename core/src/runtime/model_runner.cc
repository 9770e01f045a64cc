// ModelRunner's public face (ge/runtime/model_runner.h): load, which runs the parts the
// other model_runner_*.cc files define in order, and the loaded model's accessors.
#include "model_runner_impl.h"

#include <unordered_set>

namespace ge {

ModelRunner::Impl::~Impl() {
  // Tasks reference events and kernels; streams may hold queued work: drain first.
  for (auto& stream : streams) (void)stream->synchronize();
  for (void* p : staged_inputs) device->deallocate(p);
  for (void* p : staged_outputs) device->deallocate(p);
  for (void* p : aligned_inputs) {
    if (p != nullptr) device->deallocate(p);
  }
  for (void* p : aligned_outputs) {
    if (p != nullptr) device->deallocate(p);
  }
  if (arena != nullptr && !caller_feature_map) device->deallocate(arena);
  if (weights != nullptr) device->deallocate(weights);
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

CompiledPlans ModelRunner::compiled_plans() const { return impl_->plans(); }

CompiledPlans runner::Compiled::plans() const {
  CompiledPlans plans;
  std::unordered_map<const Node*, uint64_t> index;
  for (const auto& node : graph->nodes()) index.emplace(node.get(), index.size());
  for (const Node* node : order) plans.order.push_back(index.at(node));
  plans.streams = plan;
  plans.feature_map_bytes = arena_bytes;
  if (memory_plan != nullptr) {
    plans.has_memory_plan = true;
    for (const MemoryBuffer& buffer : memory_plan->buffers) plans.buffer_offsets.push_back(buffer.offset);
    plans.assigner = memory_plan->statistics.assigner;
  }
  plans.clean_groups = clean_groups;
  for (const PreparedKernel& kernel : kernels) plans.kernels.push_back({kernel.name, kernel.workspace_bytes, kernel.zeroed});
  plans.tasks = task_defs;
  return plans;
}

CompiledModel::CompiledModel(std::unique_ptr<runner::Compiled> state) : state_(std::move(state)) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;
const Graph& CompiledModel::graph() const { return *state_->graph; }
const StreamPlan& CompiledModel::stream_plan() const { return state_->plan; }
const GraphMemoryPlan& CompiledModel::memory_plan() const { return *state_->memory_plan; }
size_t CompiledModel::feature_map_bytes() const { return state_->arena_bytes; }
size_t CompiledModel::weight_bytes() const { return state_->weights_bytes; }
CompiledPlans CompiledModel::plans() const { return state_->plans(); }

Result<CompiledModel> ModelRunner::compile(const Graph& source, const Backend& backend,
                                           const ModelRunnerOptions& options) {
  auto compiled = std::make_unique<runner::Compiled>();
  runner::Compiled& c = *compiled;
  c.backend = &backend;
  c.output_pool = options.output_pool;
  c.ops = options.memory_plan_options.ops;
  c.graph = source.clone();
  const std::string where = "compiling graph '" + c.graph->name() + "' for backend '" + backend.name() + "'";

  GE_ASSIGN_OR_RETURN(std::vector<Node*> topological, c.graph->topological_order());
  GE_ASSIGN_OR_RETURN(runner::PreparedKernels prepared, c.prepare_kernels(topological, where));
  GE_ASSIGN_OR_RETURN(runner::InputIndex input_index, c.take_io(where));
  if (options.precompiled != nullptr) {
    GE_RETURN_IF_ERROR(
        c.place_model_file_plans(source, *options.precompiled, topological, options, prepared, input_index, where));
  } else {
    GE_RETURN_IF_ERROR(c.plan_and_place(source, topological, options, prepared, input_index, where));
  }
  for (Node* node : c.order) c.kernels.push_back(std::move(prepared.at(node)));
  GE_RETURN_IF_ERROR(c.build_task_defs(where));
  if (options.precompiled != nullptr) GE_RETURN_IF_ERROR(c.check_model_file_tasks(*options.precompiled, where));
  return CompiledModel(std::move(compiled));
}

Result<std::unique_ptr<ModelRunner>> ModelRunner::load(CompiledModel compiled, Backend& backend,
                                                       const ModelRunnerOptions& options) {
  if (compiled.state_ == nullptr) return invalid_argument("loading a compiled model that was moved from");
  if (compiled.state_->backend != &backend) {
    return invalid_argument("graph '" + compiled.graph().name() + "' was compiled for backend '" +
                            compiled.state_->backend->name() + "', not for backend '" + backend.name() +
                            "' it is loaded on");
  }
  auto impl = std::make_unique<Impl>(std::move(*compiled.state_));
  compiled.state_.reset();
  impl->caller_feature_map = options.caller_feature_map;
  impl->device = &backend.device();
  const std::string where = "loading graph '" + impl->graph->name() + "' on backend '" + backend.name() + "'";

  GE_RETURN_IF_ERROR(impl->reserve_weights());
  GE_RETURN_IF_ERROR(impl->allocate_arena());
  GE_RETURN_IF_ERROR(impl->settle_weights(where));
  if (options.shrink) impl->release_host_weights();
  GE_RETURN_IF_ERROR(impl->create_streams());
  GE_RETURN_IF_ERROR(impl->materialise_tasks());
  GE_RETURN_IF_ERROR(impl->build_super_kernels(options.super_kernel_max_bytes, where));
  GE_RETURN_IF_ERROR(impl->capture(where));
  GE_RETURN_IF_ERROR(impl->allocate_staging());
  return std::unique_ptr<ModelRunner>(new ModelRunner(std::move(impl)));
}

Result<std::unique_ptr<ModelRunner>> ModelRunner::load(const Graph& graph, Backend& backend,
                                                       const ModelRunnerOptions& options) {
  GE_ASSIGN_OR_RETURN(CompiledModel compiled, compile(graph, backend, options));
  return load(std::move(compiled), backend, options);
}

}  // namespace ge
