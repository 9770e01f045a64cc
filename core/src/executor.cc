#include "ge/executor.h"

#include <map>
#include <unordered_map>

#include "ge/logging.h"
#include "host_ops.h"
#include "runtime_input_binding.h"

namespace ge {
namespace {

/// One node of a plan: its kernel when shapes were static at plan time; otherwise the
/// node is inferred and prepared at run time (per-op mode). Host ops have no kernel.
struct Step {
  Node* node = nullptr;
  bool host = false;
  bool dynamic = false;
  PreparedKernel kernel;
};

/// A graph specialised to one set of input types, with its kernels.
struct Plan {
  std::vector<TensorDesc> input_descs;
  std::unique_ptr<Graph> graph;
  std::vector<Step> steps;
  std::unordered_map<const Value*, int> use_counts;  // data uses per value, for early release
};

/// The values of one graph activation (the top-level graph, or one run of a subgraph).
struct Frame {
  const Graph* graph = nullptr;
  const Frame* parent = nullptr;
  std::unordered_map<const Value*, RuntimeValue> values;

  const RuntimeValue* find(const Value* value) const {
    auto it = values.find(value);
    return it == values.end() ? nullptr : &it->second;
  }
  /// The value an enclosing activation holds under `name`.
  const RuntimeValue* find_outer(const std::string& name) const {
    for (const Frame* f = parent; f != nullptr; f = f->parent) {
      if (const Value* v = f->graph->find_value(name)) {
        if (const RuntimeValue* rv = f->find(v)) return rv;
      }
    }
    return nullptr;
  }
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

TensorDesc RuntimeValue::desc() const {
  TensorDesc d;
  d.kind = kind;
  d.dtype = element_type;
  if (holds_tensor()) d = TensorDesc::of(tensor.dtype(), tensor.shape());
  d.kind = kind;
  return d;
}

std::string RuntimeValue::to_string() const {
  if (!has_element) return "optional(empty)";
  if (holds_sequence()) return "seq(" + std::to_string(sequence.size()) + " x " + std::string(data_type_name(element_type)) + ")";
  return tensor.to_string(0);
}

bool is_host_op(const Node& node) { return detail::is_host_op_type(node); }

Result<std::vector<Tensor>> evaluate_node(const Node& node, const std::vector<Tensor>& inputs, Backend& backend,
                                          const OpRegistry& ops) {
  // A one-node graph whose inputs are initializers: the executor then runs it like any
  // other graph (host ops and subgraphs included).
  auto graph = std::make_unique<Graph>("evaluate_" + node.name());
  if (node.graph() != nullptr) {
    for (const auto& [domain, version] : node.graph()->opset_imports()) graph->set_opset_import(domain, version);
    for (const Graph* g = node.graph(); g != nullptr; g = g->parent()) {
      for (const auto& [domain, version] : g->opset_imports()) {
        if (!graph->opset_imports().count(domain)) graph->set_opset_import(domain, version);
      }
    }
  }
  if (inputs.size() != node.input_count()) {
    return invalid_argument("evaluate_node: " + node.describe() + " has " + std::to_string(node.input_count()) +
                            " inputs, got " + std::to_string(inputs.size()));
  }
  std::vector<Value*> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    values.push_back(inputs[i].defined() ? graph->add_initializer("input_" + std::to_string(i), inputs[i]) : nullptr);
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < node.output_count(); ++i) names.push_back("output_" + std::to_string(i));
  Node* copy = graph->add_node(node.op_type(), values, node.output_count(), node.name(), names, node.domain());
  for (const auto& [key, attr] : node.attributes()) {
    if (attr.holds<Attribute::GraphPtr>() || attr.holds<std::vector<Attribute::GraphPtr>>()) {
      return unsupported("evaluate_node: " + node.describe() + " has a subgraph attribute");
    }
    copy->set_attribute(key, attr);
  }
  for (size_t i = 0; i < node.output_count(); ++i) {
    if (!node.output(i)->name().empty()) graph->add_output(copy->output(i));
  }
  GE_RETURN_IF_ERROR(ops.infer_graph(*graph));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::create(std::move(graph), backend, ops));
  std::vector<Tensor> outputs;
  GE_RETURN_IF_ERROR(executor->run({}, outputs));
  return outputs;
}

struct Executor::Impl {
  std::unique_ptr<Graph> graph;
  Backend* backend = nullptr;
  const OpRegistry* ops = nullptr;
  std::unique_ptr<Stream> stream;
  std::shared_ptr<TensorPool> pool;
  std::unique_ptr<Plan> plan;
  // Per-op mode caches: a node's kernel for the input descs it was last prepared with,
  // and the order of each subgraph.
  std::unordered_map<const Node*, std::pair<std::vector<TensorDesc>, PreparedKernel>> kernel_cache;
  std::unordered_map<const Graph*, std::vector<Node*>> subgraph_orders;

  Result<std::unique_ptr<Plan>> build_plan(const std::vector<TensorDesc>& descs) const {
    auto plan = std::make_unique<Plan>();
    plan->input_descs = descs;
    plan->graph = graph->clone();
    Graph& g = *plan->graph;
    std::vector<Value*> inputs = g.runtime_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i]->set_desc(descs[i]);
    GE_RETURN_IF_ERROR(ops->infer_graph(g).with_context("specialising to the given input shapes"));
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, g.topological_order());
    for (Node* node : order) {
      Step step;
      step.node = node;
      step.host = is_host_op(*node);
      for (const Value* in : node->inputs()) {
        if (in != nullptr) ++plan->use_counts[in];
      }
      for (const Value* in : g.implicit_inputs(*node)) ++plan->use_counts[in];
      for (const Value* out : node->outputs()) {
        if (!out->desc().is_static() && !output_is_omitted(g, out)) step.dynamic = true;
      }
      // A static output can still depend on an input whose shape is only known at run
      // time (e.g. a declared graph output fed by a data-dependent value).
      for (const Value* in : node->inputs()) {
        if (in != nullptr && in->desc().kind == ValueKind::kTensor && !in->desc().is_static()) step.dynamic = true;
      }
      if (!step.host && !step.dynamic) {
        std::string reason;
        if (!backend->supports(*node, &reason)) return unsupported(unsupported_message(*node, *backend, reason));
        GE_ASSIGN_OR_RETURN(step.kernel, backend->prepare(*node));
      }
      plan->steps.push_back(std::move(step));
    }
    return plan;
  }

  Status run_subgraph(Graph& body, const Frame& parent, const std::vector<RuntimeValue>& inputs,
                      std::vector<RuntimeValue>& outputs) {
    Frame frame;
    frame.graph = &body;
    frame.parent = &parent;
    const std::vector<Value*> body_inputs = body.runtime_inputs();
    if (body_inputs.size() != inputs.size()) {
      return invalid_argument("subgraph '" + body.name() + "' takes " + std::to_string(body_inputs.size()) + " inputs, got " +
                              std::to_string(inputs.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) frame.values[body_inputs[i]] = inputs[i];
    for (const Value* init : body.initializers()) {
      if (!frame.values.count(init)) frame.values[init] = RuntimeValue::of(*init->constant());
    }
    for (const Value* capture : body.captures()) {
      const RuntimeValue* outer = frame.find_outer(capture->name());
      if (outer == nullptr) return internal_error("subgraph '" + body.name() + "': captured value '" + capture->name() + "' has no value");
      frame.values[capture] = *outer;
    }
    auto cached = subgraph_orders.find(&body);
    if (cached == subgraph_orders.end()) {
      GE_ASSIGN_OR_RETURN(std::vector<Node*> order, body.topological_order());
      cached = subgraph_orders.emplace(&body, std::move(order)).first;
    }
    for (Node* node : cached->second) GE_RETURN_IF_ERROR(run_node(*node, frame, nullptr));
    outputs.clear();
    for (const Value* out : body.outputs()) {
      const RuntimeValue* v = frame.find(out);
      if (v == nullptr) v = frame.find_outer(out->name());
      if (v == nullptr) return internal_error("subgraph '" + body.name() + "': output '" + out->name() + "' was not produced");
      outputs.push_back(*v);
    }
    return Status::ok();
  }

  Status run_node(Node& node, Frame& frame, Step* step) {
    const Graph& g = *frame.graph;
    std::vector<const RuntimeValue*> inputs(node.input_count(), nullptr);
    for (size_t i = 0; i < node.input_count(); ++i) {
      const Value* in = node.input(i);
      if (in == nullptr) continue;
      inputs[i] = frame.find(in);
      if (inputs[i] == nullptr) return internal_error("executor: input '" + in->name() + "' of " + node.describe() + " has no value");
    }
    if (is_host_op(node)) {
      GE_RETURN_IF_ERROR(stream->synchronize());
      std::vector<RuntimeValue> results;
      auto runner = [this, &frame](Graph& body, const std::vector<RuntimeValue>& in, std::vector<RuntimeValue>& out) {
        return run_subgraph(body, frame, in, out);
      };
      GE_RETURN_IF_ERROR(detail::run_host_op(node, inputs, results, runner));
      if (results.size() < node.output_count()) return internal_error(node.describe() + ": host op produced too few outputs");
      for (size_t i = 0; i < node.output_count(); ++i) {
        Value* out = node.output(i);
        if (output_is_omitted(g, out)) continue;
        out->set_desc(results[i].desc());
        frame.values[out] = std::move(results[i]);
      }
      return Status::ok();
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] != nullptr && !inputs[i]->holds_tensor()) {
        return unsupported(node.describe() + ": input " + std::to_string(i) + " is " + inputs[i]->to_string() +
                           ", but kernels take tensors");
      }
    }
    PreparedKernel* kernel = step != nullptr && !step->dynamic ? &step->kernel : nullptr;
    if (kernel == nullptr) {
      // Per-op mode: shapes depend on data computed this run.
      GE_RETURN_IF_ERROR(stream->synchronize());
      std::vector<TensorDesc> descs(node.input_count());
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] == nullptr) continue;
        descs[i] = inputs[i]->desc();
        node.input(i)->set_desc(descs[i]);
      }
      // The outputs still hold the shapes of the previous run (or loop iteration), which
      // data-dependent ops change: infer them afresh, keeping only kind and dtype.
      for (Value* out : node.outputs()) {
        if (output_is_omitted(g, out)) continue;
        TensorDesc relaxed = out->desc();
        relaxed.shape.reset();
        out->set_desc(std::move(relaxed));
      }
      const InputDataProvider data = [&inputs](const Node&, size_t index) -> const Tensor* {
        return index < inputs.size() && inputs[index] != nullptr ? &inputs[index]->tensor : nullptr;
      };
      GE_RETURN_IF_ERROR(ops->infer_node(node, data).with_context("run-time shape inference"));
      for (const Value* out : node.outputs()) {
        if (!out->desc().is_static() && !output_is_omitted(g, out)) {
          return unsupported("cannot determine the shape of '" + out->name() + "' (output of " + node.describe() +
                             ") even at run time: got " + out->desc().to_string());
        }
      }
      auto& [cached_descs, cached_kernel] = kernel_cache[&node];
      for (const Value* out : node.outputs()) descs.push_back(out->desc());
      if (cached_kernel.function == nullptr || cached_descs != descs) {
        std::string reason;
        if (!backend->supports(node, &reason)) return unsupported(unsupported_message(node, *backend, reason));
        GE_ASSIGN_OR_RETURN(cached_kernel, backend->prepare(node));
        cached_descs = descs;
      }
      kernel = &cached_kernel;
    }
    std::vector<const void*> input_addresses(node.input_count(), nullptr);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] != nullptr) input_addresses[i] = inputs[i]->tensor.raw_data();
    }
    std::vector<void*> output_addresses(node.output_count(), nullptr);
    for (size_t i = 0; i < node.output_count(); ++i) {
      const Value* out = node.output(i);
      if (output_is_omitted(g, out)) continue;
      Tensor tensor = pool->allocate(out->desc().dtype, out->desc().static_dims());
      output_addresses[i] = tensor.raw_data();
      frame.values[out] = RuntimeValue::of(std::move(tensor));
    }
    std::shared_ptr<void> workspace = kernel->workspace_bytes > 0 ? pool->allocate_bytes(kernel->workspace_bytes) : nullptr;
    KernelTask task;
    task.function = kernel->function;
    task.args.inputs = input_addresses.data();
    task.args.outputs = output_addresses.data();
    task.args.workspace = workspace.get();
    task.args.params = kernel->params.get();
    task.name = kernel->name.c_str();
    const Task tasks[] = {task};
    // The argument arrays and workspace live on this frame: run and wait before they go.
    return stream->run(tasks).with_context(node.describe());
  }

  Status execute(Plan& plan, std::vector<RuntimeValue> bound, std::vector<RuntimeValue>& outputs) {
    Graph& g = *plan.graph;
    Frame frame;
    frame.graph = &g;
    const std::vector<Value*> inputs = g.runtime_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) frame.values[inputs[i]] = std::move(bound[i]);
    for (const Value* init : g.initializers()) {
      if (!frame.values.count(init)) frame.values[init] = RuntimeValue::of(*init->constant());
    }
    std::unordered_map<const Value*, int> remaining = plan.use_counts;
    for (Step& step : plan.steps) {
      GE_RETURN_IF_ERROR(run_node(*step.node, frame, &step));
      auto release = [&](const Value* in) {
        if (in != nullptr && --remaining[in] == 0 && !g.is_output(in) && in->producer() != nullptr) frame.values.erase(in);
      };
      for (const Value* in : step.node->inputs()) release(in);
      if (step.host) {
        for (const Value* in : g.implicit_inputs(*step.node)) release(in);
      }
    }
    GE_RETURN_IF_ERROR(stream->synchronize());
    outputs.clear();
    for (const Value* out : g.outputs()) {
      const RuntimeValue* v = frame.find(out);
      if (v == nullptr) return internal_error("executor: graph output '" + out->name() + "' was not produced");
      outputs.push_back(*v);
    }
    return Status::ok();
  }
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

const Graph& Executor::graph() const { return *impl_->graph; }

const TensorPool& Executor::pool() const { return *impl_->pool; }

Result<std::unique_ptr<Executor>> Executor::create(std::unique_ptr<Graph> graph, Backend& backend, const OpRegistry& ops,
                                                   std::shared_ptr<TensorPool> pool) {
  if (!graph) return invalid_argument("Executor::create: no graph");
  if (!backend.device().host_accessible()) {
    return unsupported("the simple executor needs a host-accessible device; backend '" + backend.name() + "' is not");
  }
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->backend = &backend;
  impl->ops = &ops;
  impl->pool = pool ? std::move(pool) : TensorPool::create();
  GE_ASSIGN_OR_RETURN(impl->stream, backend.device().create_stream());
  // Capabilities are checked up front so that an unsupported op fails before any run.
  for (const auto& node : impl->graph->nodes()) {
    if (is_host_op(*node)) continue;
    std::string reason;
    if (!backend.supports(*node, &reason)) return unsupported(unsupported_message(*node, backend, reason));
  }
  std::vector<TensorDesc> descs;
  bool all_static = true;
  for (const Value* in : impl->graph->runtime_inputs()) {
    all_static = all_static && in->desc().is_static() && in->desc().kind == ValueKind::kTensor;
    descs.push_back(in->desc());
  }
  if (all_static) {
    GE_ASSIGN_OR_RETURN(impl->plan, impl->build_plan(descs));
  }
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Status Executor::run(const NamedTensors& inputs, std::vector<Tensor>& outputs) {
  NamedValues values;
  values.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) values.emplace_back(name, RuntimeValue::of(tensor));
  std::vector<RuntimeValue> results;
  GE_RETURN_IF_ERROR(run_values(values, results));
  outputs.clear();
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].is_tensor()) {
      return unsupported("output '" + impl_->graph->outputs()[i]->name() + "' is " + results[i].to_string() +
                         ", not a tensor; use run_values()");
    }
    outputs.push_back(std::move(results[i].tensor));
  }
  return Status::ok();
}

Status Executor::run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs) {
  const std::vector<Value*> expected = impl_->graph->runtime_inputs();
  GE_ASSIGN_OR_RETURN(std::vector<const RuntimeValue*> bound, bind_runtime_inputs(expected, inputs));
  std::vector<TensorDesc> descs;
  for (size_t i = 0; i < expected.size(); ++i) {
    // Sequences keep the declared element type.
    descs.push_back(bound[i]->holds_tensor() ? bound[i]->desc() : expected[i]->desc());
  }
  if (!impl_->plan || impl_->plan->input_descs != descs) {
    impl_->plan.reset();
    impl_->kernel_cache.clear();
    impl_->subgraph_orders.clear();
    GE_ASSIGN_OR_RETURN(impl_->plan, impl_->build_plan(descs));
  }
  std::vector<RuntimeValue> values;
  for (const RuntimeValue* v : bound) values.push_back(*v);
  return impl_->execute(*impl_->plan, std::move(values), outputs);
}

}  // namespace ge
