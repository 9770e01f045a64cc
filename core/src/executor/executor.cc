// The simple executor (ge/executor.h): runs a graph node by node on one backend.
#include "ge/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <new>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/memory_limit.h"
#include "ge/runtime/model_runner.h"
#include "ge/shape_arithmetic.h"
#include "ge/specialisation_cache.h"
#include "../ir/graph_cluster.h"
#include "../memory/held_bytes.h"
#include "../ops/host_ops.h"
#include "../plugin_host/plugin_call.h"
#include "output_binding.h"
#include "runtime_input_binding.h"

namespace ge {
namespace {

/// One node of a plan: its kernel when shapes were static at plan time; otherwise the
/// node is inferred and prepared at run time (per-op mode). Host ops have no kernel.
struct Step {
  Node* node = nullptr;
  bool host = false;
  bool dynamic = false;
  bool prepared = false;      // `kernel` holds the node's kernel; else it is prepared per op
  std::vector<std::vector<int64_t>> prepared_shapes;  // the input shapes `kernel` was prepared for
  std::vector<const Value*> implicit;  // a host op's values read through its subgraphs' captures
  int cluster = -1;           // index into Plan::clusters when the node runs inside one
  bool cluster_head = false;  // the cluster's first step: it runs the whole cluster
  /// A top-level plan's node: its position among the executor graph's nodes (the key of
  /// the kernels shared between plans); -1 in a subgraph body.
  std::ptrdiff_t position = -1;
  std::string description;  // node->describe(), for the task trace
  /// Every output was computed when the plan was made (a shape value): the step never runs.
  bool folded = false;
  PreparedKernel kernel;
};

/// A kernel prepared for one node of the executor's graph in some plan, with the input
/// and output descs it was prepared for.
struct SharedKernel {
  std::vector<TensorDesc> descs;
  size_t key = 0;  // descs_key of descs: compared first
  PreparedKernel kernel;
};

/// A hash of the input and output descs of `node` (dtype, kind, dims, formats), for
/// SharedKernel lookups to compare whole descs only when it agrees.
size_t descs_key(const Node& node) {
  size_t key = node.input_count() * 31 + node.output_count();
  auto mix = [&key](size_t v) { key ^= v + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2); };
  auto add = [&](const Value* value) {
    if (value == nullptr) return mix(0x51u);
    const TensorDesc& desc = value->desc();
    mix(static_cast<size_t>(desc.dtype) * 8 + static_cast<size_t>(desc.kind));
    mix(desc.shape ? desc.shape->size() : size_t{0xffff});
    if (desc.shape) {
      for (const Dim& dim : *desc.shape) mix(dim.is_static() ? static_cast<size_t>(dim.value) : std::hash<std::string>{}(dim.symbol));
    }
    if (!desc.format.empty()) mix(std::hash<std::string>{}(desc.format));
  };
  for (const Value* in : node.inputs()) add(in);
  for (const Value* out : node.outputs()) add(out);
  return key;
}

/// Consecutive steps run as one task-sink execute: static ones compiled with the plan,
/// dynamic ones (downstream of a data-dependent shape) per signature of their inputs once
/// seen twice.
struct Cluster {
  std::vector<const Value*> inputs, outputs;  // of the plan's graph, in the runner's order
  std::vector<TensorDesc> input_descs;          // static: what the runner was compiled for
  size_t steps = 0;
  std::unique_ptr<ModelRunner> runner;          // static
  std::unique_ptr<Graph> graph;                 // dynamic: the cut, copied per compile
  std::unique_ptr<SpecialisationCache> cache;   // dynamic
};

/// A graph specialised to one set of input types, with its kernels; or a subgraph body
/// partitioned in place (no kernels prepared: its nodes run per op outside clusters).
struct Plan {
  std::vector<TensorDesc> input_descs;
  std::unique_ptr<Graph> owned;  // the specialised clone, for a top-level plan
  Graph* graph = nullptr;
  std::vector<Step> steps;
  std::vector<Cluster> clusters;
  // Per step: the values whose last data use it is (inputs and a host op's captures),
  // released from the frame once it ran; not graph outputs, inputs or initializers.
  std::vector<std::vector<const Value*>> release_after;
  /// A top-level plan without clusters: its initializers and the values computed when it
  /// was made (Step::folded); else the graph's initializers are the constants.
  std::optional<std::unordered_map<const Value*, RuntimeValue>> constants;
};

/// An If/Loop/Scan body: without host ops, sunk whole per signature of its inputs
/// (runtime inputs and captures); else partitioned like a top-level plan.
struct Body {
  std::unique_ptr<Plan> plan;  // when it holds host ops
  // Otherwise (when it can be cut out): sunk whole per signature.
  GraphCluster cut;  // the whole body: inputs, outputs, and the graph copied per compile
  std::vector<int> input_index;  // per cut input: its index among the body's runtime inputs, or -1 (a capture)
  std::unique_ptr<SpecialisationCache> cache;  // null: the body runs node by node
};

/// The values of one graph activation (the top-level graph, or one run of a subgraph).
struct Frame {
  const Graph* graph = nullptr;
  const Frame* parent = nullptr;
  std::unordered_map<const Value*, RuntimeValue> values;
  /// The graph's initializers as values (shared by every activation of the graph); a
  /// value in `values` (an overridden initializer) comes first.
  const std::unordered_map<const Value*, RuntimeValue>* constants = nullptr;

  const RuntimeValue* find(const Value* value) const {
    auto it = values.find(value);
    if (it != values.end()) return &it->second;
    if (constants == nullptr) return nullptr;
    auto constant = constants->find(value);
    return constant == constants->end() ? nullptr : &constant->second;
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

/// Whether an attribute of `node` holds a subgraph (If branches, Loop/Scan bodies), null
/// or not.
bool has_subgraph_attribute(const Node& node) {
  for (const auto& [key, attribute] : node.attributes()) {
    if (attribute.holds<Attribute::GraphPtr>() || attribute.holds<std::vector<Attribute::GraphPtr>>()) return true;
  }
  return false;
}

/// The launch of `kernel` on these addresses.
KernelTask kernel_task(const PreparedKernel& kernel, const std::vector<const void*>& inputs,
                       const std::vector<void*>& outputs, void* workspace) {
  KernelTask task;
  task.function = kernel.function;
  task.args.inputs = inputs.data();
  task.args.outputs = outputs.data();
  task.args.workspace = workspace;
  task.args.params = kernel.params.get();
  task.name = kernel.name.c_str();
  return task;
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
  ExecutorOptions options;
  std::shared_ptr<TensorPool> pool;
  std::list<std::unique_ptr<Plan>> plans;  // most recently used first
  std::unordered_map<const Graph*, Body> bodies;
  std::unordered_map<const Graph*, std::unordered_map<const Value*, RuntimeValue>> constant_values;
  PartitionStatistics partition;
  std::string partition_text;  // describe_partition()
  // Per-op mode caches: a node's kernel for the input descs it was last prepared with,
  // and the order of each subgraph.
  std::unordered_map<const Node*, std::pair<std::vector<TensorDesc>, PreparedKernel>> kernel_cache;
  std::unordered_map<const Graph*, std::vector<Node*>> subgraph_orders;
  // Kernels shared between top-level plans, per node position in `graph`: a plan for a new
  // input signature reuses the kernel (prepacked weights, primitives) of every node whose
  // input and output descs an earlier plan prepared it for. Most recent first, at most
  // options.cache_size per node; they outlive the plans they were prepared for.
  std::vector<std::list<SharedKernel>> shared_kernels;
  KernelStatistics kernel_statistics;
  std::vector<const Node*> template_nodes;  // `graph`'s nodes by position, for retarget_plan
  // The token the current run watches (RunOptions::cancellation), else null.
  const CancellationToken* cancellation = nullptr;
  // The current run's caller-bound outputs per graph output (Executor::run), and per
  // value of the plan it runs: a kernel producing one writes into the caller's buffer.
  std::vector<const Tensor*> bindings;
  std::unordered_map<const Value*, const Tensor*> bound_values;

  /// kCancelled naming where the run stopped once its token is tripped; one atomic load
  /// otherwise.
  template <typename Where>
  Status check_cancelled(Where&& where) const {
    if (cancellation == nullptr || !cancellation->cancelled()) return Status::ok();
    return cancelled("the run was cancelled (its CancellationToken was tripped) before " + where());
  }

  Result<std::unique_ptr<Plan>> build_plan(const std::vector<TensorDesc>& descs) {
    const auto start = std::chrono::steady_clock::now();
    const KernelStatistics before = kernel_statistics;
    auto plan = std::make_unique<Plan>();
    plan->input_descs = descs;
    plan->owned = graph->clone();
    plan->graph = plan->owned.get();
    Graph& g = *plan->graph;
    std::vector<Value*> inputs = g.runtime_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i]->set_desc(descs[i]);
    std::unordered_map<const Node*, std::ptrdiff_t> positions;
    for (const auto& node : g.nodes()) positions.emplace(node.get(), static_cast<std::ptrdiff_t>(positions.size()));
    std::unordered_map<const Value*, Tensor> known;
    GE_RETURN_IF_ERROR(infer_plan(g, positions, known).with_context("specialising to the given input shapes"));
    GE_RETURN_IF_ERROR(add_steps(*plan));
    for (Step& step : plan->steps) step.position = positions.at(step.node);
    if (!options.sink) {
      // Without clusters, the shape values computed for the plan are its constants, and
      // the steps that made them do not run again (with clusters, the compile folds them).
      auto& constants = plan->constants.emplace();
      for (const Value* init : g.initializers()) constants.emplace(init, RuntimeValue::of(*init->constant()));
      for (Step& step : plan->steps) {
        step.folded = !step.node->outputs().empty() &&
                      std::all_of(step.node->outputs().begin(), step.node->outputs().end(),
                                  [&](const Value* out) { return known.count(out) != 0; });
        kernel_statistics.folded += step.folded ? 1 : 0;
      }
      for (auto& [value, tensor] : known) constants.emplace(value, RuntimeValue::of(std::move(tensor)));
    }
    if (options.sink) GE_RETURN_IF_ERROR(partition_plan(*plan, /*top_level=*/true));
    GE_RETURN_IF_ERROR(prepare_steps(*plan));
    ++kernel_statistics.plans_built;
    if (logger().should_log(spdlog::level::info)) {
      std::string shapes;
      for (const TensorDesc& desc : descs) shapes += (shapes.empty() ? "" : ", ") + desc.to_string();
      GE_LOG_INFO("planned '{}' for ({}) per op in {:.1f} ms: {} kernel(s) prepared, {} reused",
                  graph->name(), shapes, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                  kernel_statistics.prepared - before.prepared, kernel_statistics.reused - before.reused);
    }
    return plan;
  }

  /// Prepares the kernels of the static steps outside clusters, noting the input shapes
  /// they are for (a body's static inference can disagree with a run).
  Status prepare_steps(Plan& plan) {
    for (Step& step : plan.steps) GE_RETURN_IF_ERROR(prepare_step(step));
    return Status::ok();
  }

  Status prepare_step(Step& step) {
    step.prepared = false;
    step.prepared_shapes.clear();
    if (step.host || step.dynamic || step.cluster >= 0 || step.folded) return Status::ok();
    // The hint is there while the backend prepares the kernel only: ONNX inference (of a
    // step run per op) refuses attributes its schema does not declare.
    const bool hint = options.transient_plans && step.position >= 0;
    if (hint) step.node->set_attribute(kTransientPlanAttribute, Attribute(int64_t{1}));
    Result<PreparedKernel> kernel = shared_kernel(*step.node, step.position);
    if (hint) step.node->remove_attribute(kTransientPlanAttribute);
    GE_ASSIGN_OR_RETURN(step.kernel, std::move(kernel));
    step.prepared = true;
    for (const Value* in : step.node->inputs()) {
      step.prepared_shapes.push_back(in != nullptr ? in->desc().static_dims() : std::vector<int64_t>{});
    }
    return Status::ok();
  }

  /// Whether `plan` may be retargeted in place (retarget_plan): a top-level plan of its
  /// own graph, without clusters, host ops, subgraphs or steps whose shapes come from data
  /// (those change its graph's descs while it runs).
  bool retargetable(const Plan& plan) const {
    if (options.sink || plan.owned == nullptr || !plan.constants || !plan.clusters.empty()) return false;
    return std::none_of(plan.steps.begin(), plan.steps.end(), [](const Step& step) {
      return step.host || step.dynamic || step.position < 0 || has_subgraph_attribute(*step.node);
    });
  }

  /// Makes `plan` the plan of the input `descs` in place, without cloning the graph: a
  /// node none of whose inputs changed (desc, or the value computed ahead for it) keeps
  /// its output descs, shape values and kernel; only the nodes downstream of a changed
  /// input are inferred again, have their shape values computed again and take their
  /// kernel from the shared ones (or a fresh one), exactly as build_plan would give them.
  /// What a decode loop's step pays for its new cache length is then the attention's
  /// nodes, not the graph. On an error the plan is left half retargeted: drop it.
  Status retarget_plan(Plan& plan, const std::vector<TensorDesc>& descs) {
    const auto start = std::chrono::steady_clock::now();
    const KernelStatistics before = kernel_statistics;
    Graph& g = *plan.graph;
    std::unordered_map<const Value*, RuntimeValue>& constants = *plan.constants;
    if (template_nodes.empty()) {
      for (const auto& node : graph->nodes()) template_nodes.push_back(node.get());
    }
    std::string from;  // for the log line only: not made on the hot path otherwise
    if (logger().should_log(spdlog::level::info)) {
      for (const TensorDesc& desc : plan.input_descs) from += (from.empty() ? "" : ", ") + desc.to_string();
    }
    std::unordered_set<const Value*> changed;
    const std::vector<Value*> inputs = g.runtime_inputs();
    for (size_t i = 0; i < inputs.size() && i < descs.size(); ++i) {
      if (inputs[i]->desc() == descs[i]) continue;
      inputs[i]->set_desc(descs[i]);
      changed.insert(inputs[i]);
    }
    plan.input_descs = descs;
    const InputDataProvider provider = [&constants](const Node& node, size_t index) -> const Tensor* {
      const Value* in = node.input(index);
      if (in == nullptr) return nullptr;
      if (const Tensor* constant = in->constant()) return constant;
      auto found = constants.find(in);
      return found == constants.end() || !found->second.holds_tensor() ? nullptr : &found->second.tensor;
    };
    for (Step& step : plan.steps) {
      Node& node = *step.node;
      const bool dirty = std::any_of(node.inputs().begin(), node.inputs().end(),
                                     [&changed](const Value* in) { return in != nullptr && changed.count(in) != 0; });
      if (!dirty) {
        ++kernel_statistics.nodes_kept;
        kernel_statistics.reused += step.prepared ? 1 : 0;
        continue;
      }
      ++kernel_statistics.nodes_reinferred;
      const Node& source = *template_nodes.at(static_cast<size_t>(step.position));
      std::vector<TensorDesc> old_descs;
      std::vector<std::optional<RuntimeValue>> old_values(node.output_count());
      for (size_t i = 0; i < node.output_count(); ++i) {
        Value* out = node.output(i);
        old_descs.push_back(out->desc());
        out->set_desc(source.output(i)->desc());  // as the clone build_plan infers starts
        if (auto found = constants.find(out); found != constants.end()) {
          old_values[i] = std::move(found->second);
          constants.erase(found);
        }
      }
      GE_RETURN_IF_ERROR(ops->infer_node(node, provider)
                             .with_context("shape inference in graph '" + g.name() + "'")
                             .with_context("specialising to the given input shapes"));
      if (is_shape_value(node)) {
        GE_ASSIGN_OR_RETURN(std::optional<std::vector<Tensor>> values, shape_values(node, provider, step.position));
        if (values) {
          for (size_t i = 0; i < values->size(); ++i) constants.emplace(node.output(i), RuntimeValue::of(std::move((*values)[i])));
        }
      }
      for (size_t i = 0; i < node.output_count(); ++i) {
        const Value* out = node.output(i);
        auto found = constants.find(out);
        const bool same_value = found == constants.end()
                                    ? !old_values[i].has_value()
                                    : old_values[i].has_value() && same_tensor(found->second.tensor, old_values[i]->tensor);
        if (!(out->desc() == old_descs[i]) || !same_value) changed.insert(out);
      }
      // No Backend::supports here (build_plan asks it of every node): a step prepared now
      // fails in prepare with the backend's reason, a dynamic one asks it per op.
      step.dynamic = is_dynamic_step(g, node);
      step.folded = !node.outputs().empty() && std::all_of(node.outputs().begin(), node.outputs().end(),
                                                           [&](const Value* out) { return constants.count(out) != 0; });
      kernel_statistics.folded += step.folded ? 1 : 0;
      step.kernel = PreparedKernel{};
      GE_RETURN_IF_ERROR(prepare_step(step));
    }
    ++kernel_statistics.plans_retargeted;
    if (logger().should_log(spdlog::level::info)) {
      std::string to;
      for (const TensorDesc& desc : descs) to += (to.empty() ? "" : ", ") + desc.to_string();
      GE_LOG_INFO("retargeted the plan of '{}' for ({}) to ({}) per op in {:.2f} ms: {} of {} node(s) inferred again, {} "
                  "kernel(s) prepared, {} reused",
                  graph->name(), from, to, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                  kernel_statistics.nodes_reinferred - before.nodes_reinferred, plan.steps.size(),
                  kernel_statistics.prepared - before.prepared, kernel_statistics.reused - before.reused);
    }
    return Status::ok();
  }

  static bool same_tensor(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.dtype() != DataType::kString &&
           std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
  }

  /// Whether `node` of `g` runs per op with shapes inferred at run time: an output whose
  /// shape is not static (data-dependent), or an input whose shape is only known then.
  static bool is_dynamic_step(const Graph& g, const Node& node) {
    for (const Value* out : node.outputs()) {
      if (!out->desc().is_static() && !is_omitted_output(g, out)) return true;
    }
    // A static output can still depend on an input whose shape is only known at run
    // time (e.g. a declared graph output fed by a data-dependent value).
    for (const Value* in : node.inputs()) {
      if (in != nullptr && in->desc().kind == ValueKind::kTensor && !in->desc().is_static()) return true;
    }
    return false;
  }

  /// Infers a plan's graph for its input descs, computing on the way the small integer
  /// values that shapes are made of (Shape, Size, and the Gather/Concat/Unsqueeze/Slice/
  /// arithmetic over them that exporters write before a Reshape, Expand or Slice), so that
  /// the values those shapes feed get static dims at plan time: their kernels are then
  /// prepared with the plan (and shared between plans) instead of per op at every run.
  Status infer_plan(Graph& g, const std::unordered_map<const Node*, std::ptrdiff_t>& positions,
                    std::unordered_map<const Value*, Tensor>& known) {
    const InputDataProvider provider = [&known](const Node& node, size_t index) -> const Tensor* {
      const Value* in = node.input(index);
      if (in == nullptr) return nullptr;
      if (const Tensor* constant = in->constant()) return constant;
      auto found = known.find(in);
      return found == known.end() ? nullptr : &found->second;
    };
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, g.topological_order());
    for (Node* node : order) {
      GE_RETURN_IF_ERROR(ops->infer_node(*node, provider).with_context("shape inference in graph '" + g.name() + "'"));
      if (!is_shape_value(*node)) continue;
      GE_ASSIGN_OR_RETURN(std::optional<std::vector<Tensor>> values, shape_values(*node, provider, positions.at(node)));
      if (!values) continue;
      for (size_t i = 0; i < values->size(); ++i) known.emplace(node->output(i), std::move((*values)[i]));
    }
    return Status::ok();
  }

  /// Whether every output of `node` is a static integer tensor of a few elements, the
  /// kind of value a shape is computed from; never a host op or a node with a subgraph.
  static bool is_shape_value(const Node& node) {
    constexpr int64_t kMaxElements = 64;
    if (is_host_op(node) || is_random_op(node) || node.output_count() == 0 || has_subgraph_attribute(node)) return false;
    for (const Value* out : node.outputs()) {
      const TensorDesc& desc = out->desc();
      if (desc.kind != ValueKind::kTensor || !desc.is_static() || !desc.is_plain()) return false;
      if (desc.dtype != DataType::kInt64 && desc.dtype != DataType::kInt32) return false;
      if (desc.element_count() > kMaxElements) return false;
    }
    return true;
  }

  /// The outputs of a shape-value node whose inputs are known (constants or values
  /// computed here; a Shape or Size needs only its input's static dims), computed with
  /// its kernel; nullopt when an input is not known.
  Result<std::optional<std::vector<Tensor>>> shape_values(const Node& node, const InputDataProvider& known,
                                                          std::ptrdiff_t position) {
    using Values = std::optional<std::vector<Tensor>>;
    if (node.domain().empty() && (node.op_type() == "Shape" || node.op_type() == "Size") && node.input_count() == 1 &&
        node.input(0) != nullptr && node.input(0)->desc().is_static() && node.output(0)->desc().dtype == DataType::kInt64) {
      const std::vector<int64_t> dims = node.input(0)->desc().static_dims();
      const auto rank = static_cast<int64_t>(dims.size());
      if (node.op_type() == "Size") {
        int64_t count = 1;
        for (int64_t d : dims) count *= d;
        return Values(std::vector<Tensor>{Tensor::from_vector<int64_t>({}, {count})});
      }
      // ONNX Shape: dims[start:end], negative bounds from the back, clamped to [0, rank].
      auto bound = [rank](int64_t b) { return std::clamp(b < 0 ? b + rank : b, int64_t{0}, rank); };
      const int64_t start = bound(node.get_int("start", 0)), end = bound(node.get_int("end", rank));
      std::vector<int64_t> slice(dims.begin() + start, dims.begin() + std::max(start, end));
      if (node.output(0)->desc().element_count() != static_cast<int64_t>(slice.size())) return Values();
      const auto count = static_cast<int64_t>(slice.size());
      return Values(std::vector<Tensor>{Tensor::from_vector<int64_t>({count}, std::move(slice))});
    }
    std::vector<const void*> input_addresses(node.input_count(), nullptr);
    for (size_t i = 0; i < node.input_count(); ++i) {
      if (node.input(i) == nullptr) continue;
      const Tensor* data = known(node, i);
      if (data == nullptr) return Values();
      input_addresses[i] = data->raw_data();
    }
    GE_ASSIGN_OR_RETURN(PreparedKernel kernel, shared_kernel(node, position));
    std::vector<Tensor> outputs;
    std::vector<void*> output_addresses;
    for (const Value* out : node.outputs()) {
      outputs.push_back(Tensor::zeros(out->desc().dtype, out->desc().static_dims()));
      output_addresses.push_back(outputs.back().raw_data());
    }
    std::shared_ptr<void> workspace;
    if (kernel.workspace_bytes > 0) workspace = pool->allocate_bytes(kernel.workspace_bytes);
    if (workspace != nullptr && kernel.zeroed.workspace) std::memset(workspace.get(), 0, kernel.workspace_bytes);
    const Task tasks[] = {kernel_task(kernel, input_addresses, output_addresses, workspace.get())};
    GE_RETURN_IF_ERROR(stream->run(tasks).with_context("computing " + node.describe() + " at plan time"));
    GE_RETURN_IF_ERROR(stream->synchronize());
    return Values(std::move(outputs));
  }

  /// The kernel of `node` for its current descs: one that a plan prepared earlier for the
  /// node at `position` (>= 0) with the same input and output descs, else a fresh one.
  Result<PreparedKernel> shared_kernel(const Node& node, std::ptrdiff_t position) {
    std::list<SharedKernel>* variants = nullptr;
    size_t key = 0;
    if (position >= 0) {
      if (shared_kernels.size() <= static_cast<size_t>(position)) shared_kernels.resize(graph->node_count());
      variants = &shared_kernels.at(static_cast<size_t>(position));
      // Compared in place: descs are copied only for a kernel prepared here.
      key = descs_key(node);
      auto same_descs = [&node, key](const SharedKernel& k) {
        if (k.key != key || k.descs.size() != node.input_count() + node.output_count()) return false;
        size_t i = 0;
        for (const Value* in : node.inputs()) {
          if (in != nullptr ? !(k.descs[i++] == in->desc()) : !(k.descs[i++] == TensorDesc{})) return false;
        }
        for (const Value* out : node.outputs()) {
          if (!(k.descs[i++] == out->desc())) return false;
        }
        return true;
      };
      auto found = std::find_if(variants->begin(), variants->end(), same_descs);
      if (found != variants->end()) {
        ++kernel_statistics.reused;
        if (found != variants->begin()) variants->splice(variants->begin(), *variants, found);
        return variants->front().kernel;
      }
    }
    GE_ASSIGN_OR_RETURN(PreparedKernel kernel,
                        detail::guard_plugin_call([&] { return "backend '" + backend->name() + "' (preparing " +
                                                               node.describe() + ")"; },
                                                  [&] { return backend->prepare(node); }));
    GE_RETURN_IF_ERROR(detail::count_held_bytes(kernel, pool.get(), node.describe()));
    ++kernel_statistics.prepared;
    GE_LOG_DEBUG("executor: prepared {} ({}) for a plan", node.describe(), kernel.name);
    if (variants != nullptr) {
      std::vector<TensorDesc> descs;
      descs.reserve(node.input_count() + node.output_count());
      for (const Value* in : node.inputs()) descs.push_back(in != nullptr ? in->desc() : TensorDesc{});
      for (const Value* out : node.outputs()) descs.push_back(out->desc());
      variants->push_front(SharedKernel{std::move(descs), key, kernel});
      if (variants->size() > std::max<size_t>(options.cache_size, 1)) {
        variants->pop_back();
        ++kernel_statistics.evicted;
      }
    }
    return kernel;
  }

  /// The steps of `plan.graph` in topological order, classified by its current descs.
  Status add_steps(Plan& plan) {
    const Graph& g = *plan.graph;
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, g.topological_order());
    std::unordered_map<const Value*, size_t> last_use;
    for (Node* node : order) {
      Step step;
      step.node = node;
      step.description = node->describe();
      step.host = is_host_op(*node);
      for (const Value* in : node->inputs()) {
        if (in != nullptr) last_use[in] = plan.steps.size();
      }
      if (step.host) {
        for (const Value* in : g.implicit_inputs(*node)) {
          last_use[in] = plan.steps.size();
          step.implicit.push_back(in);
        }
      }
      step.dynamic = is_dynamic_step(g, *node);
      if (!step.host) {
        std::string reason;
        if (!backend->supports(*node, &reason)) return unsupported(unsupported_message(*node, *backend, reason));
      }
      plan.steps.push_back(std::move(step));
    }
    plan.release_after.assign(plan.steps.size(), {});
    for (const auto& [value, step] : last_use) {
      if (!g.is_output(value) && value->producer() != nullptr) plan.release_after[step].push_back(value);
    }
    return Status::ok();
  }

  enum class ClusterKind { kNone, kStatic, kDynamic };

  /// Which cluster `step` may join: a backend node with no subgraph, of static shapes or
  /// downstream of a dynamic shape. A node whose output shape is dynamic although its
  /// inputs are static (NonZero, a Reshape to computed dims) depends on data: it runs per
  /// op.
  static ClusterKind cluster_kind(const Step& step) {
    if (step.host || has_subgraph_attribute(*step.node)) return ClusterKind::kNone;
    bool dynamic_input = false;
    for (const Value* in : step.node->inputs()) {
      if (in == nullptr) continue;
      if (in->desc().kind != ValueKind::kTensor) return ClusterKind::kNone;
      dynamic_input = dynamic_input || !in->desc().is_static();
    }
    if (!step.dynamic) return ClusterKind::kStatic;
    return dynamic_input ? ClusterKind::kDynamic : ClusterKind::kNone;
  }

  /// Makes every maximal run of two or more steps of one cluster kind a cluster: static
  /// ones are compiled into the task sink now.
  Status partition_plan(Plan& plan, bool top_level) {
    const Graph& g = *plan.graph;
    // Values that host ops read through their subgraphs' captures.
    std::unordered_set<const Value*> implicit;
    for (const Step& step : plan.steps) implicit.insert(step.implicit.begin(), step.implicit.end());
    size_t begin = 0;
    while (begin < plan.steps.size()) {
      const ClusterKind kind = cluster_kind(plan.steps[begin]);
      if (kind == ClusterKind::kNone) {
        ++begin;
        continue;
      }
      size_t end = begin;
      while (end < plan.steps.size()) {
        const ClusterKind next = cluster_kind(plan.steps[end]);
        if (next == kind) {
          ++end;
          continue;
        }
        // A single static step after a specialised run (a pooled result's product) would
        // run per op, one boundary more: it is specialised with the run instead.
        if (kind == ClusterKind::kDynamic && next == ClusterKind::kStatic &&
            (end + 1 == plan.steps.size() || cluster_kind(plan.steps[end + 1]) != ClusterKind::kStatic)) {
          ++end;
          continue;
        }
        break;
      }
      if (end - begin >= 2) GE_RETURN_IF_ERROR(make_cluster(plan, begin, end, kind, implicit));
      begin = end;
    }
    size_t clustered = 0, dynamic = 0;
    for (const Cluster& cluster : plan.clusters) {
      clustered += cluster.steps;
      dynamic += cluster.cache ? 1 : 0;
    }
    std::string per_op;
    for (const Step& step : plan.steps) {
      if (step.cluster < 0) {
        per_op += (per_op.empty() ? "" : ", ") + step.node->describe() +
                  (step.host ? " (host)" : step.dynamic ? " (dynamic shape)" : "");
      }
    }
    GE_LOG_DEBUG("graph '{}': runs per op: {}", g.name(), per_op.empty() ? "nothing" : per_op);
    if (top_level) partition_text.clear();  // the latest plan and the bodies partitioned since
    partition_text += "graph '" + g.name() + "'" + (top_level ? "" : " (a subgraph body)") + ":\n";
    for (size_t c = 0; c < plan.clusters.size(); ++c) {
      partition_text += "  cluster " + std::to_string(c + 1) +
                        (plan.clusters[c].cache ? " (specialised per input shapes at run time):" : " (static):");
      for (const Step& step : plan.steps) {
        if (step.cluster == static_cast<int>(c)) partition_text += " " + step.node->describe() + ";";
      }
      partition_text += "\n";
    }
    partition_text += "  per op: " + (per_op.empty() ? std::string("nothing") : per_op) + "\n";
    if (!plan.clusters.empty()) {
      GE_LOG_INFO("graph '{}': {} cluster(s) of {} nodes run in the task sink ({} of them specialised at run time); {} "
                  "nodes run per op", g.name(), plan.clusters.size(), clustered, dynamic, plan.steps.size() - clustered);
    }
    if (top_level) {  // the latest top-level plan's shape; bodies count apart
      partition.clusters = plan.clusters.size();
      partition.clustered_nodes = clustered;
      partition.dynamic_clusters = dynamic;
      partition.per_op_nodes = plan.steps.size() - clustered;
    } else {
      partition.body_clusters += plan.clusters.size();
    }
    return Status::ok();
  }

  Status make_cluster(Plan& plan, size_t begin, size_t end, ClusterKind kind,
                      const std::unordered_set<const Value*>& implicit) {
    const Graph& g = *plan.graph;
    std::vector<Node*> nodes;
    std::unordered_set<const Node*> members;
    for (size_t i = begin; i < end; ++i) {
      nodes.push_back(plan.steps[i].node);
      members.insert(plan.steps[i].node);
    }
    std::vector<const Value*> outputs;
    for (const Node* node : nodes) {
      for (const Value* out : node->outputs()) {
        bool needed = g.is_output(out) || implicit.count(out) > 0;
        for (const Use& use : out->uses()) needed = needed || members.count(use.user) == 0;
        if (needed) outputs.push_back(out);
      }
    }
    GE_ASSIGN_OR_RETURN(GraphCluster cut, extract_cluster(nodes, outputs));
    // A cluster's inputs and outputs are plain tensors: a compiled cluster (or its
    // specialisation, keyed by plain shapes) would read a blocked value as plain. The
    // session hands over graphs from before the layout phase; a graph that still has one
    // (a model file compiled by an older GE) runs those steps per op, which is right.
    for (const auto* boundary : {&cut.inputs, &cut.outputs}) {
      for (const Value* value : *boundary) {
        if (!value->desc().is_plain()) {
          GE_LOG_INFO("cluster from {} runs per op: '{}' crosses its boundary in format {}", nodes.front()->describe(),
                      value->name(), value->desc().format);
          return Status::ok();
        }
      }
    }
    Cluster cluster;
    cluster.steps = end - begin;
    if (kind == ClusterKind::kDynamic) {
      cluster.graph = std::move(cut.graph);
      const Graph* templ = cluster.graph.get();
      auto compile = sink_for_signature(templ);
      cluster.cache = std::make_unique<SpecialisationCache>(options.cache_size, std::move(compile), /*min_sightings=*/2);
    }
    Result<std::unique_ptr<ModelRunner>> runner =
        kind == ClusterKind::kDynamic ? Result<std::unique_ptr<ModelRunner>>(nullptr) : options.sink(std::move(cut.graph));
    if (!runner.is_ok()) {
      if (runner.status().code() != StatusCode::kUnsupported) {
        return runner.status().with_context("sinking the static cluster from " + nodes.front()->describe());
      }
      GE_LOG_INFO("static cluster from {} ({} nodes) runs per op: {}", nodes.front()->describe(), nodes.size(),
                  runner.status().message());
      return Status::ok();
    }
    const int index = static_cast<int>(plan.clusters.size());
    cluster.inputs = std::move(cut.inputs);
    cluster.outputs = std::move(cut.outputs);
    cluster.runner = std::move(runner).value();
    if (cluster.runner) {
      for (const Value* in : cluster.runner->graph().runtime_inputs()) cluster.input_descs.push_back(in->desc());
    }
    plan.clusters.push_back(std::move(cluster));
    for (size_t i = begin; i < end; ++i) plan.steps[i].cluster = index;
    plan.steps[begin].cluster_head = true;
    return Status::ok();
  }

  /// Checks before allocating that `values` (static descs) and `workspace_bytes` have a
  /// byte size that does not overflow and fits the pool's memory limit; errors name `who`.
  Status check_allocation(const std::string& who, const std::vector<const Value*>& values, size_t workspace_bytes) {
    size_t needed = workspace_bytes;
    for (const Value* value : values) {
      Result<size_t> bytes = checked_byte_size(value->desc().dtype, value->desc().static_dims());
      if (!bytes.is_ok()) return bytes.status().with_context(who + ": output '" + value->name() + "'");
      needed = *bytes > SIZE_MAX - needed ? SIZE_MAX : needed + *bytes;
    }
    return pool->fits(who, needed);
  }

  /// The error for a std::bad_alloc while allocating what check_allocation passed: the
  /// system had less memory than the limit assumed.
  Status out_of_memory(const std::string& who, const std::vector<const Value*>& values, size_t workspace_bytes) {
    std::string what;
    for (const Value* value : values) what += (what.empty() ? "" : ", ") + ("'" + value->name() + "' " + value->desc().to_string());
    if (workspace_bytes > 0) what += (what.empty() ? "" : ", ") + ("a workspace of " + format_bytes(workspace_bytes));
    const size_t limit = pool->memory_limit();
    return invalid_argument(who + ": out of memory allocating " + what + "; the system has less free memory than " +
                            (limit > 0 ? "the memory limit (" + format_bytes(limit) + ") allows" : "that") +
                            ": set a lower one with --memory-limit");
  }

  /// Runs a sunk runner on `inputs` (one per runtime input) into fresh pooled outputs.
  Status run_sunk(ModelRunner& runner, const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) {
    GE_RETURN_IF_ERROR(stream->synchronize());
    std::vector<const void*> in_addresses(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) in_addresses[i] = inputs[i]->raw_data();
    const std::vector<Value*>& outs = runner.graph().outputs();
    outputs.clear();
    const std::vector<const Value*> allocated(outs.begin(), outs.end());
    GE_RETURN_IF_ERROR(check_allocation("the outputs of a cluster", allocated, 0));
    std::vector<void*> out_addresses(outs.size());
    try {
      for (size_t i = 0; i < outs.size(); ++i) {
        outputs.push_back(pool->allocate(outs[i]->desc().dtype, outs[i]->desc().static_dims()));
        out_addresses[i] = outputs.back().raw_data();
      }
    } catch (const std::bad_alloc&) {
      return out_of_memory("the outputs of a cluster", allocated, 0);
    }
    return runner.execute_bound(in_addresses, out_addresses);
  }

  /// Runs the cluster in the task sink; false when its steps must run per op this time
  /// (a dynamic cluster whose signature is new or stays dynamic).
  Result<bool> run_cluster(Cluster& cluster, Frame& frame) {
    std::vector<const Tensor*> inputs;
    inputs.reserve(cluster.inputs.size());
    for (const Value* v : cluster.inputs) {
      const RuntimeValue* value = frame.find(v);
      if (value == nullptr || !value->holds_tensor()) {
        return internal_error("executor: input '" + v->name() + "' of a cluster has no tensor value");
      }
      inputs.push_back(&value->tensor);
    }
    ModelRunner* runner = cluster.runner.get();
    if (runner != nullptr) {
      // A body's static inference can disagree with a run (a loop-carried value that
      // changes shape): such a run goes per op.
      for (size_t i = 0; i < inputs.size(); ++i) {
        const TensorDesc& expected = cluster.input_descs[i];
        if (inputs[i]->dtype() != expected.dtype || inputs[i]->shape() != expected.static_dims()) return false;
      }
    }
    if (cluster.cache) {
      GE_ASSIGN_OR_RETURN(runner, cluster.cache->find_or_compile(inputs));
      if (runner == nullptr) return false;
    }
    std::vector<Tensor> outputs;
    GE_RETURN_IF_ERROR(run_sunk(*runner, inputs, outputs).with_context("cluster of graph '" + frame.graph->name() + "'"));
    for (size_t i = 0; i < outputs.size(); ++i) frame.values[cluster.outputs[i]] = RuntimeValue::of(std::move(outputs[i]));
    ++partition.cluster_runs;
    return true;
  }

  /// Compiles a copy of `templ` (not owned) with the given runtime-input descs.
  SpecialisationCache::Compile sink_for_signature(const Graph* templ) {
    return [this, templ](const std::vector<TensorDesc>& descs) -> Result<Specialisation> {
      std::unique_ptr<Graph> graph = templ->clone();
      const std::vector<Value*> graph_inputs = graph->runtime_inputs();
      for (size_t i = 0; i < graph_inputs.size() && i < descs.size(); ++i) graph_inputs[i]->set_desc(descs[i]);
      GE_ASSIGN_OR_RETURN(std::unique_ptr<ModelRunner> runner, options.sink(std::move(graph)));
      return Specialisation{std::move(runner), nullptr, Status::ok()};
    };
  }

  /// The body's sunk runner for these values, or null when it runs node by node (then
  /// `plan` is set when the body is partitioned).
  Result<ModelRunner*> body_runner(Graph& body, const Frame& frame, const std::vector<RuntimeValue>& values,
                                   std::vector<const Tensor*>& inputs, Plan*& plan) {
    auto [it, fresh] = bodies.try_emplace(&body);
    Body& entry = it->second;
    if (fresh) {
      bool has_host_op = false;
      for (const auto& node : body.nodes()) has_host_op = has_host_op || is_host_op(*node);
      if (has_host_op) {
        // Partitioned in place: its descs are those the enclosing plan's inference gave.
        entry.plan = std::make_unique<Plan>();
        entry.plan->graph = &body;
        GE_RETURN_IF_ERROR(add_steps(*entry.plan));
        GE_RETURN_IF_ERROR(partition_plan(*entry.plan, /*top_level=*/false));
        GE_RETURN_IF_ERROR(prepare_steps(*entry.plan));
      } else if (body.node_count() > 0) {
        GE_ASSIGN_OR_RETURN(std::vector<Node*> order, body.topological_order());
        Result<GraphCluster> cut = extract_cluster(order, {body.outputs().begin(), body.outputs().end()});
        if (cut.is_ok()) {
          entry.cut = std::move(cut).value();
          const std::vector<Value*> body_inputs = body.runtime_inputs();
          for (const Value* v : entry.cut.inputs) {
            auto at = std::find(body_inputs.begin(), body_inputs.end(), v);
            entry.input_index.push_back(at == body_inputs.end() ? -1 : static_cast<int>(at - body_inputs.begin()));
          }
          auto compile = sink_for_signature(entry.cut.graph.get());
          entry.cache = std::make_unique<SpecialisationCache>(options.cache_size, std::move(compile), /*min_sightings=*/2);
        }
      }
    }
    plan = entry.plan.get();
    if (!entry.cache) return static_cast<ModelRunner*>(nullptr);
    inputs.reserve(entry.cut.inputs.size());
    for (size_t i = 0; i < entry.cut.inputs.size(); ++i) {
      const int index = entry.input_index[i];
      const RuntimeValue* value = nullptr;
      if (index >= 0 && static_cast<size_t>(index) < values.size()) {
        value = &values[static_cast<size_t>(index)];
      } else if (index < 0) {
        value = frame.find_outer(entry.cut.inputs[i]->name());
      }
      if (value == nullptr || !value->is_tensor()) return static_cast<ModelRunner*>(nullptr);
      inputs.push_back(&value->tensor);
    }
    return entry.cache->find_or_compile(inputs);
  }

  Status run_subgraph(Graph& body, const Frame& parent, const std::vector<RuntimeValue>& inputs,
                      std::vector<RuntimeValue>& outputs) {
    GE_RETURN_IF_ERROR(check_cancelled([&] { return "a run of subgraph '" + body.name() + "'"; }));
    Frame frame;
    frame.graph = &body;
    frame.parent = &parent;
    Plan* body_plan = nullptr;
    if (options.sink) {
      // Sunk whole: the values go straight to the runner, no frame is filled.
      std::vector<const Tensor*> sunk_inputs;
      GE_ASSIGN_OR_RETURN(ModelRunner * runner, body_runner(body, frame, inputs, sunk_inputs, body_plan));
      if (runner != nullptr) {
        std::vector<Tensor> results;
        GE_RETURN_IF_ERROR(run_sunk(*runner, sunk_inputs, results).with_context("subgraph '" + body.name() + "'"));
        outputs.clear();
        for (Tensor& t : results) outputs.push_back(RuntimeValue::of(std::move(t)));
        ++partition.body_runs;
        return Status::ok();
      }
      ++partition.per_op_body_runs;
    }
    const std::vector<Value*> body_inputs = body.runtime_inputs();
    if (body_inputs.size() != inputs.size()) {
      return invalid_argument("subgraph '" + body.name() + "' takes " + std::to_string(body_inputs.size()) + " inputs, got " +
                              std::to_string(inputs.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) frame.values[body_inputs[i]] = inputs[i];
    frame.constants = &constants_of(body);
    for (const Value* capture : body.captures()) {
      const RuntimeValue* outer = frame.find_outer(capture->name());
      if (outer == nullptr) return internal_error("subgraph '" + body.name() + "': captured value '" + capture->name() + "' has no value");
      frame.values[capture] = *outer;
    }
    if (body_plan != nullptr) {
      GE_RETURN_IF_ERROR(run_steps(*body_plan, frame));
      return collect_outputs(body, frame, outputs);
    }
    auto cached = subgraph_orders.find(&body);
    if (cached == subgraph_orders.end()) {
      GE_ASSIGN_OR_RETURN(std::vector<Node*> order, body.topological_order());
      cached = subgraph_orders.emplace(&body, std::move(order)).first;
    }
    for (Node* node : cached->second) {
      GE_RETURN_IF_ERROR(check_cancelled([&] { return node->describe(); }));
      GE_RETURN_IF_ERROR(run_node(*node, frame, nullptr));
    }
    return collect_outputs(body, frame, outputs);
  }

  static Status collect_outputs(const Graph& body, const Frame& frame, std::vector<RuntimeValue>& outputs) {
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
      if (Status status = detail::run_host_op(node, inputs, results, runner); !status.is_ok()) {
        return status.code() == StatusCode::kCancelled ? status.with_context(node.describe()) : status;
      }
      if (results.size() < node.output_count()) return internal_error(node.describe() + ": host op produced too few outputs");
      for (size_t i = 0; i < node.output_count(); ++i) {
        Value* out = node.output(i);
        if (is_omitted_output(g, out)) continue;
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
    PreparedKernel* kernel = step != nullptr && step->prepared ? &step->kernel : nullptr;
    for (size_t i = 0; kernel != nullptr && i < inputs.size(); ++i) {
      if (inputs[i] != nullptr && inputs[i]->tensor.shape() != step->prepared_shapes[i]) kernel = nullptr;  // per op
    }
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
        if (is_omitted_output(g, out)) continue;
        TensorDesc relaxed = out->desc();
        relaxed.shape.reset();
        out->set_desc(std::move(relaxed));
      }
      const InputDataProvider data = [&inputs](const Node&, size_t index) -> const Tensor* {
        return index < inputs.size() && inputs[index] != nullptr ? &inputs[index]->tensor : nullptr;
      };
      GE_RETURN_IF_ERROR(ops->infer_node(node, data).with_context("run-time shape inference"));
      for (const Value* out : node.outputs()) {
        if (!out->desc().is_static() && !is_omitted_output(g, out)) {
          return unsupported("cannot determine the shape of '" + out->name() + "' (output of " + node.describe() +
                             ") even at run time: got " + out->desc().to_string());
        }
      }
      auto& [cached_descs, cached_kernel] = kernel_cache[&node];
      for (const Value* out : node.outputs()) descs.push_back(out->desc());
      if (cached_kernel.function == nullptr || cached_descs != descs) {
        std::string reason;
        if (!backend->supports(node, &reason)) return unsupported(unsupported_message(node, *backend, reason));
        // A top-level plan's node shares kernels with the other plans (another signature's
        // run may have prepared it for these shapes); a body's is prepared here.
        GE_ASSIGN_OR_RETURN(cached_kernel, shared_kernel(node, step != nullptr ? step->position : -1));
        cached_descs = descs;
      }
      kernel = &cached_kernel;
    }
    std::vector<const void*> input_addresses(node.input_count(), nullptr);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] != nullptr) input_addresses[i] = inputs[i]->tensor.raw_data();
    }
    std::vector<const Value*> allocated;
    for (const Value* out : node.outputs()) {
      if (!is_omitted_output(g, out)) allocated.push_back(out);
    }
    GE_RETURN_IF_ERROR(check_allocation(node.describe(), allocated, kernel->workspace_bytes));
    std::vector<void*> output_addresses(node.output_count(), nullptr);
    std::shared_ptr<void> workspace;
    try {
      for (size_t i = 0; i < node.output_count(); ++i) {
        const Value* out = node.output(i);
        if (is_omitted_output(g, out)) continue;
        if (const Tensor* bound = bound_tensor(frame, out)) {
          Tensor tensor = *bound;
          output_addresses[i] = tensor.raw_data();
          frame.values[out] = RuntimeValue::of(std::move(tensor));
          continue;
        }
        Tensor tensor = in_place_view(g, node, inputs) ? inputs[0]->tensor.reshaped(out->desc().static_dims()).value()
                                                       : pool->allocate(out->desc().dtype, out->desc().static_dims());
        output_addresses[i] = tensor.raw_data();
        frame.values[out] = RuntimeValue::of(std::move(tensor));
      }
      if (kernel->workspace_bytes > 0) workspace = pool->allocate_bytes(kernel->workspace_bytes);
    } catch (const std::bad_alloc&) {
      return out_of_memory(node.describe(), allocated, kernel->workspace_bytes);
    }
    KernelTask task = kernel_task(*kernel, input_addresses, output_addresses, workspace.get());
    // For the device's task trace and error messages; lives on this frame like the arrays.
    const std::string described = step != nullptr ? std::string() : node.describe();
    task.node = step != nullptr ? step->description.c_str() : described.c_str();
    // The argument arrays and workspace live on this frame: run and wait before they go.
    if (!kernel->zeroed.any()) {
      const Task tasks[] = {task};
      return stream->run(tasks).with_context(node.describe());
    }
    // Atomic clean: what the kernel accumulates into is zeroed first, in stream order
    // (pool memory is not zeroed).
    std::vector<Task> tasks;
    for (size_t i = 0; i < node.output_count(); ++i) {
      if (kernel->zeroed.output(i) && output_addresses[i] != nullptr) {
        tasks.push_back(MemsetTask{output_addresses[i], frame.values[node.output(i)].tensor.byte_size(), 0});
      }
    }
    if (kernel->zeroed.workspace && workspace != nullptr) {
      tasks.push_back(MemsetTask{workspace.get(), kernel->workspace_bytes, 0});
    }
    tasks.push_back(task);
    return stream->run(tasks).with_context(node.describe());
  }

  /// Whether `node` is a view (Reshape, Flatten, Squeeze, Unsqueeze, Identity) whose
  /// output may share its input's bytes: plain storage of one dtype and byte size, and
  /// an output that is not a graph output (nor bound to a caller's buffer). Values of a
  /// per-op run are never written after their kernel ran, and these kernels copy only
  /// between different addresses (as the memory plan's in-place outputs need): the view
  /// moves nothing. A decode step's Unsqueezes of the KV cache copied 1.6 MB a step.
  bool in_place_view(const Graph& g, const Node& node, const std::vector<const RuntimeValue*>& inputs) const {
    static const std::unordered_set<std::string> kViews{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
    if (!node.domain().empty() || node.output_count() != 1 || !kViews.count(node.op_type())) return false;
    if (inputs.empty() || inputs[0] == nullptr || !inputs[0]->holds_tensor()) return false;
    const Value* out = node.output(0);
    const Tensor& in = inputs[0]->tensor;
    const TensorDesc& desc = out->desc();
    if (g.is_output(out) || bound_values.count(out) || !desc.is_plain() || !node.input(0)->desc().is_plain()) {
      return false;
    }
    return in.dtype() == desc.dtype && in.dtype() != DataType::kString && desc.is_static() &&
           in.element_count() == desc.element_count() && in.raw_data() != nullptr;
  }

  /// The caller's tensor bound to `out` when the top-level graph's run produces it with
  /// the bound dtype and shape (else it is computed in the pool and the binding check
  /// names the difference).
  const Tensor* bound_tensor(const Frame& frame, const Value* out) const {
    if (bound_values.empty() || frame.parent != nullptr) return nullptr;
    auto found = bound_values.find(out);
    if (found == bound_values.end()) return nullptr;
    const Tensor& bound = *found->second;
    const TensorDesc& desc = out->desc();
    if (bound.dtype() != desc.dtype || !desc.is_static() || bound.shape() != desc.static_dims()) return nullptr;
    return &bound;
  }

  void clear_per_op_caches() {
    kernel_cache.clear();
    subgraph_orders.clear();
    bodies.clear();
    constant_values.clear();
  }

  const std::unordered_map<const Value*, RuntimeValue>& constants_of(const Graph& g) {
    auto [it, fresh] = constant_values.try_emplace(&g);
    if (fresh) {
      for (const Value* init : g.initializers()) it->second.emplace(init, RuntimeValue::of(*init->constant()));
    }
    return it->second;
  }

  Status execute(Plan& plan, std::vector<RuntimeValue> bound, std::vector<RuntimeValue>& outputs) {
    Graph& g = *plan.graph;
    Frame frame;
    frame.graph = &g;
    const std::vector<Value*> inputs = g.runtime_inputs();
    frame.values.reserve(inputs.size() + plan.steps.size());  // no rehash while the steps run
    for (size_t i = 0; i < inputs.size(); ++i) frame.values[inputs[i]] = std::move(bound[i]);
    frame.constants = plan.constants ? &*plan.constants : &constants_of(g);
    bound_values.clear();
    for (size_t i = 0; i < bindings.size() && i < g.outputs().size(); ++i) {
      if (bindings[i] != nullptr) bound_values.try_emplace(g.outputs()[i], bindings[i]);
    }
    GE_RETURN_IF_ERROR(run_steps(plan, frame));
    GE_RETURN_IF_ERROR(stream->synchronize());
    outputs.clear();
    for (const Value* out : g.outputs()) {
      const RuntimeValue* v = frame.find(out);
      if (v == nullptr) return internal_error("executor: graph output '" + out->name() + "' was not produced");
      outputs.push_back(*v);
    }
    return Status::ok();
  }

  /// Runs the plan's steps on `frame`, its clusters in the task sink, releasing each value
  /// after its last use.
  Status run_steps(Plan& plan, Frame& frame) {
    size_t sunk_until = 0;  // steps before this ran inside a cluster
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      Step& step = plan.steps[s];
      GE_RETURN_IF_ERROR(check_cancelled([&] { return step.node->describe(); }));
      if (step.cluster_head) {
        Cluster& cluster = plan.clusters[static_cast<size_t>(step.cluster)];
        GE_ASSIGN_OR_RETURN(bool sunk, run_cluster(cluster, frame));
        if (sunk) sunk_until = s + cluster.steps;
      }
      if (s >= sunk_until && !step.folded) GE_RETURN_IF_ERROR(run_node(*step.node, frame, &step));
      for (const Value* value : plan.release_after[s]) frame.values.erase(value);
    }
    return Status::ok();
  }
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

const Graph& Executor::graph() const { return *impl_->graph; }

const TensorPool& Executor::pool() const { return *impl_->pool; }

PartitionStatistics Executor::partition_statistics() const { return impl_->partition; }

KernelStatistics Executor::kernel_statistics() const { return impl_->kernel_statistics; }

std::string Executor::describe_partition() const { return impl_->partition_text; }

Result<std::unique_ptr<Executor>> Executor::create(std::unique_ptr<Graph> graph, Backend& backend, const OpRegistry& ops,
                                                   ExecutorOptions options) {
  if (!graph) return invalid_argument("Executor::create: no graph");
  if (!backend.device().host_accessible()) {
    return unsupported("the simple executor needs a host-accessible device; backend '" + backend.name() + "' is not");
  }
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->backend = &backend;
  impl->ops = &ops;
  impl->pool = options.pool ? options.pool : TensorPool::create();
  impl->options = std::move(options);
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
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Plan> plan, impl->build_plan(descs));
    impl->plans.push_back(std::move(plan));
  }
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Status Executor::run(const NamedTensors& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  struct Unbind {  // the bindings are this run's only
    Impl& impl;
    ~Unbind() {
      impl.bindings.clear();
      impl.bound_values.clear();
    }
  } unbind{*impl_};
  if (options.bound_outputs != nullptr && !options.bound_outputs->empty()) {
    GE_ASSIGN_OR_RETURN(impl_->bindings, bind_outputs(impl_->graph->outputs(), *options.bound_outputs, inputs));
  }
  NamedValues values;
  values.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) values.emplace_back(name, RuntimeValue::of(tensor));
  std::vector<RuntimeValue> results;
  GE_RETURN_IF_ERROR(run_values(values, results, options));
  outputs.clear();
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].is_tensor()) {
      return unsupported("output '" + impl_->graph->outputs()[i]->name() + "' is " + results[i].to_string() +
                         ", not a tensor; use run_values()");
    }
    outputs.push_back(std::move(results[i].tensor));
  }
  return impl_->bindings.empty() ? Status::ok() : deliver_bound_outputs(impl_->graph->outputs(), impl_->bindings, outputs);
}

Status Executor::run_values(const NamedValues& inputs, std::vector<RuntimeValue>& outputs, const RunOptions& options) {
  struct Watch {  // the token is this run's only
    Impl& impl;
    ~Watch() { impl.cancellation = nullptr; }
  } watch{*impl_};
  impl_->cancellation = options.cancellation;
  const std::vector<Value*> expected = impl_->graph->runtime_inputs();
  GE_ASSIGN_OR_RETURN(std::vector<const RuntimeValue*> bound, bind_runtime_inputs(expected, inputs));
  std::vector<TensorDesc> descs;
  for (size_t i = 0; i < expected.size(); ++i) {
    // Sequences keep the declared element type.
    descs.push_back(bound[i]->holds_tensor() ? bound[i]->desc() : expected[i]->desc());
  }
  std::list<std::unique_ptr<Plan>>& plans = impl_->plans;
  auto found = std::find_if(plans.begin(), plans.end(), [&](const auto& plan) { return plan->input_descs == descs; });
  if (found == plans.end()) {
    const bool full = plans.size() >= std::max<size_t>(impl_->options.cache_size, 1);
    if (full && impl_->retargetable(*plans.back())) {
      // The least recently used plan becomes this signature's: nodes, steps and per-op
      // caches stay (they key on nodes that live on).
      plans.splice(plans.begin(), plans, std::prev(plans.end()));
      if (Status status = impl_->retarget_plan(*plans.front(), descs); !status.is_ok()) {
        plans.pop_front();
        impl_->clear_per_op_caches();
        return status;
      }
    } else {
      if (full) {
        plans.pop_back();
        impl_->clear_per_op_caches();  // they key on the evicted plan's nodes and subgraphs
      }
      GE_ASSIGN_OR_RETURN(std::unique_ptr<Plan> plan, impl_->build_plan(descs));
      plans.push_front(std::move(plan));
    }
  } else if (found != plans.begin()) {
    plans.splice(plans.begin(), plans, found);
  }
  std::vector<RuntimeValue> values;
  for (const RuntimeValue* v : bound) values.push_back(*v);
  return impl_->execute(*plans.front(), std::move(values), outputs);
}

}  // namespace ge
