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
  for (const PreparedKernel& kernel : m.kernels)
    plans.kernels.push_back({kernel.name, kernel.workspace_bytes, kernel.zeroed});
  plans.tasks = m.task_defs;
  return plans;
}

Result<std::unique_ptr<ModelRunner>> ModelRunner::load(const Graph& source, Backend& backend,
                                                       const ModelRunnerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->backend = &backend;
  impl->output_pool = options.output_pool;
  impl->caller_feature_map = options.caller_feature_map;
  impl->ops = options.memory_plan_options.ops;
  impl->device = &backend.device();
  impl->graph = source.clone();
  const std::string where = "loading graph '" + impl->graph->name() + "' on backend '" + backend.name() + "'";

  GE_ASSIGN_OR_RETURN(std::vector<Node*> topological, impl->graph->topological_order());
  GE_ASSIGN_OR_RETURN(Impl::PreparedKernels prepared, impl->prepare_kernels(topological, where));
  GE_ASSIGN_OR_RETURN(Impl::InputIndex input_index, impl->take_io(where));
  Impl::Placement placement;
  if (options.precompiled != nullptr) {
    GE_RETURN_IF_ERROR(impl->place_model_file_plans(source, *options.precompiled, topological, options, prepared,
                                                    input_index, placement, where));
  } else {
    GE_RETURN_IF_ERROR(impl->plan_and_place(source, topological, options, prepared, input_index, placement, where));
  }
  GE_RETURN_IF_ERROR(impl->settle_weights(placement, where));
  if (options.shrink) impl->release_host_weights();
  for (Node* node : impl->order) impl->kernels.push_back(std::move(prepared.at(node)));

  GE_RETURN_IF_ERROR(impl->create_streams());
  GE_RETURN_IF_ERROR(impl->build_tasks(placement, where));
  if (options.precompiled != nullptr) GE_RETURN_IF_ERROR(impl->check_model_file_tasks(*options.precompiled, where));
  GE_RETURN_IF_ERROR(impl->build_super_kernels(options.super_kernel_max_bytes, where));
  GE_RETURN_IF_ERROR(impl->capture(where));
  GE_RETURN_IF_ERROR(impl->allocate_staging());
  return std::unique_ptr<ModelRunner>(new ModelRunner(std::move(impl)));
}

}  // namespace ge
