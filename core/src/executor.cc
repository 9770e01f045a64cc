#include "ge/executor.h"

#include <map>
#include <unordered_map>

#include "ge/logging.h"

namespace ge {
namespace {

/// One node of a plan: its kernel when shapes were static at plan time; otherwise the
/// node is inferred and prepared at run time (per-op mode).
struct Step {
  Node* node = nullptr;
  bool dynamic = false;
  PreparedKernel kernel;
};

/// A graph specialised to one set of input shapes, with its kernels.
struct Plan {
  std::vector<std::vector<int64_t>> input_shapes;
  std::unique_ptr<Graph> graph;
  std::vector<Step> steps;
  std::unordered_map<const Value*, int> use_counts;  // data uses per value, for early release
};

bool output_is_omitted(const Graph& graph, const Value* value) {
  return value->name().empty() && !value->has_uses() && !graph.is_output(value);
}

std::string unsupported_message(const Node& node, const Backend& backend, const std::string& reason) {
  std::string types;
  for (const Value* in : node.inputs()) {
    if (in != nullptr) types += (types.empty() ? "" : ", ") + in->desc().to_string();
  }
  return "backend '" + backend.name() + "' cannot run " + node.describe() + " with inputs (" + types + ")" +
         (reason.empty() ? "" : ": " + reason);
}

}  // namespace

struct Executor::Impl {
  std::unique_ptr<Graph> graph;
  Backend* backend = nullptr;
  const OpRegistry* ops = nullptr;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<Plan> plan;

  Result<std::unique_ptr<Plan>> build_plan(const std::vector<std::vector<int64_t>>& shapes) const {
    auto plan = std::make_unique<Plan>();
    plan->input_shapes = shapes;
    plan->graph = graph->clone();
    Graph& g = *plan->graph;
    std::vector<Value*> inputs = g.runtime_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      inputs[i]->set_desc(TensorDesc::of(inputs[i]->desc().dtype, shapes[i]));
    }
    GE_RETURN_IF_ERROR(ops->infer_graph(g).with_context("specialising to the given input shapes"));
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, g.topological_order());
    for (Node* node : order) {
      Step step;
      step.node = node;
      for (const Value* in : node->inputs()) {
        if (in != nullptr) ++plan->use_counts[in];
      }
      for (const Value* out : node->outputs()) {
        if (!out->desc().is_static() && !output_is_omitted(g, out)) step.dynamic = true;
      }
      if (!step.dynamic) {
        std::string reason;
        if (!backend->supports(*node, &reason)) return unsupported(unsupported_message(*node, *backend, reason));
        GE_ASSIGN_OR_RETURN(step.kernel, backend->prepare(*node));
      }
      plan->steps.push_back(std::move(step));
    }
    return plan;
  }

  Status execute(Plan& plan, const std::map<const Value*, Tensor>& bound, std::vector<Tensor>& outputs) {
    Graph& g = *plan.graph;
    std::unordered_map<const Value*, Tensor> env;
    env.reserve(plan.use_counts.size() * 2);
    for (const auto& [value, tensor] : bound) env[value] = tensor;
    for (const Value* init : g.initializers()) {
      if (!env.count(init)) env[init] = *init->constant();
    }
    std::unordered_map<const Value*, int> remaining = plan.use_counts;
    std::vector<const void*> input_addresses;
    std::vector<void*> output_addresses;
    const InputDataProvider runtime_data = [&env](const Node& node, size_t index) -> const Tensor* {
      const Value* v = node.input(index);
      auto it = v ? env.find(v) : env.end();
      return it == env.end() ? nullptr : &it->second;
    };

    for (Step& step : plan.steps) {
      Node& node = *step.node;
      PreparedKernel dynamic_kernel;
      const PreparedKernel* kernel = &step.kernel;
      if (step.dynamic) {
        // Per-op mode: shapes depend on data computed this run.
        GE_RETURN_IF_ERROR(stream->synchronize());
        GE_RETURN_IF_ERROR(ops->infer_node(node, runtime_data).with_context("run-time shape inference"));
        for (const Value* out : node.outputs()) {
          if (!out->desc().is_static() && !output_is_omitted(g, out)) {
            return unsupported("cannot determine the shape of '" + out->name() + "' (output of " + node.describe() +
                               ") even at run time: got " + out->desc().to_string());
          }
        }
        std::string reason;
        if (!backend->supports(node, &reason)) return unsupported(unsupported_message(node, *backend, reason));
        GE_ASSIGN_OR_RETURN(dynamic_kernel, backend->prepare(node));
        kernel = &dynamic_kernel;
      }
      input_addresses.assign(node.input_count(), nullptr);
      for (size_t i = 0; i < node.input_count(); ++i) {
        const Value* in = node.input(i);
        if (in == nullptr) continue;
        auto it = env.find(in);
        if (it == env.end()) {
          return internal_error("executor: input '" + in->name() + "' of " + node.describe() + " has no value");
        }
        input_addresses[i] = it->second.raw_data();
      }
      output_addresses.assign(node.output_count(), nullptr);
      for (size_t i = 0; i < node.output_count(); ++i) {
        const Value* out = node.output(i);
        if (output_is_omitted(g, out)) continue;
        Tensor tensor = Tensor::zeros(out->desc().dtype, out->desc().static_dims());
        output_addresses[i] = tensor.raw_data();
        env[out] = std::move(tensor);
      }
      std::vector<char> workspace(kernel->workspace_bytes);
      KernelTask task;
      task.function = kernel->function;
      task.args.inputs = input_addresses.data();
      task.args.outputs = output_addresses.data();
      task.args.workspace = workspace.empty() ? nullptr : workspace.data();
      task.args.params = kernel->params.get();
      task.name = kernel->name.c_str();
      const Task tasks[] = {task};
      GE_RETURN_IF_ERROR(stream->submit(tasks).with_context(node.describe()));
      if (step.dynamic || kernel->workspace_bytes) GE_RETURN_IF_ERROR(stream->synchronize().with_context(node.describe()));
      for (const Value* in : node.inputs()) {
        if (in != nullptr && --remaining[in] == 0 && !g.is_output(in) && in->producer() != nullptr) env.erase(in);
      }
    }
    GE_RETURN_IF_ERROR(stream->synchronize());
    outputs.clear();
    for (const Value* out : g.outputs()) {
      auto it = env.find(out);
      if (it == env.end()) return internal_error("executor: graph output '" + out->name() + "' was not produced");
      outputs.push_back(it->second);
    }
    return Status::ok();
  }
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

const Graph& Executor::graph() const { return *impl_->graph; }

Result<std::unique_ptr<Executor>> Executor::create(std::unique_ptr<Graph> graph, Backend& backend, const OpRegistry& ops) {
  if (!graph) return invalid_argument("Executor::create: no graph");
  if (!backend.device().host_accessible()) {
    return unsupported("the simple executor needs a host-accessible device; backend '" + backend.name() + "' is not");
  }
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->backend = &backend;
  impl->ops = &ops;
  GE_ASSIGN_OR_RETURN(impl->stream, backend.device().create_stream());
  // Capabilities are checked up front so that an unsupported op fails before any run.
  for (const auto& node : impl->graph->nodes()) {
    std::string reason;
    if (!backend.supports(*node, &reason)) return unsupported(unsupported_message(*node, backend, reason));
  }
  std::vector<std::vector<int64_t>> shapes;
  bool all_static = true;
  for (const Value* in : impl->graph->runtime_inputs()) {
    all_static = all_static && in->desc().is_static();
    shapes.push_back(in->desc().static_dims());
  }
  if (all_static) {
    GE_ASSIGN_OR_RETURN(impl->plan, impl->build_plan(shapes));
  }
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Status Executor::run(const NamedTensors& inputs, std::vector<Tensor>& outputs) {
  const Graph& graph = *impl_->graph;
  const std::vector<Value*> expected = graph.runtime_inputs();
  auto expected_names = [&] {
    std::string names;
    for (const Value* v : expected) names += (names.empty() ? "" : ", ") + v->name();
    return names.empty() ? std::string("none") : names;
  };
  std::vector<const Tensor*> bound(expected.size(), nullptr);
  for (const auto& [name, tensor] : inputs) {
    size_t index = expected.size();
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i]->name() == name) index = i;
    }
    if (index == expected.size()) {
      return invalid_argument("unknown input '" + name + "'; the model's inputs are: " + expected_names());
    }
    if (bound[index] != nullptr) return invalid_argument("input '" + name + "' is bound twice");
    bound[index] = &tensor;
  }
  std::map<std::string, int64_t> symbols;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < expected.size(); ++i) {
    const Value* v = expected[i];
    if (bound[i] == nullptr) return invalid_argument("input '" + v->name() + "' is not bound; the model's inputs are: " + expected_names());
    const Tensor& t = *bound[i];
    const TensorDesc& desc = v->desc();
    if (desc.dtype != DataType::kUndefined && t.dtype() != desc.dtype) {
      return invalid_argument("input '" + v->name() + "' has dtype " + std::string(data_type_name(t.dtype())) +
                              " but the model expects " + std::string(data_type_name(desc.dtype)));
    }
    if (desc.shape) {
      bool ok = static_cast<int64_t>(t.shape().size()) == desc.rank();
      for (size_t d = 0; ok && d < t.shape().size(); ++d) {
        const Dim& dim = (*desc.shape)[d];
        if (dim.is_static()) {
          ok = dim.value == t.shape()[d];
        } else if (!dim.symbol.empty()) {
          auto [it, inserted] = symbols.emplace(dim.symbol, t.shape()[d]);
          ok = inserted || it->second == t.shape()[d];
        }
      }
      if (!ok) {
        return invalid_argument("input '" + v->name() + "' has shape " + shape_to_string(t.shape()) +
                                " but the model expects " + desc.to_string() +
                                (symbols.empty() ? "" : " (named dims must agree across inputs)"));
      }
    }
    shapes.push_back(t.shape());
  }
  if (!impl_->plan || impl_->plan->input_shapes != shapes) {
    impl_->plan.reset();
    GE_ASSIGN_OR_RETURN(impl_->plan, impl_->build_plan(shapes));
  }
  std::map<const Value*, Tensor> values;
  const std::vector<Value*> plan_inputs = impl_->plan->graph->runtime_inputs();
  for (size_t i = 0; i < plan_inputs.size(); ++i) values[plan_inputs[i]] = *bound[i];
  return impl_->execute(*impl_->plan, values, outputs);
}

}  // namespace ge
