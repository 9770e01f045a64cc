// What a model runner checks and prepares before planning: every value a numeric tensor
// of static shape, every node a kernel of the backend, the graph's I/O (ModelRunner::Impl).
#include "model_runner_impl.h"

#include "ge/graph_queries.h"
#include "../memory/held_bytes.h"
#include "../plugin_host/plugin_call.h"

namespace ge {
namespace {

/// The task sink runs numeric tensors of static shape only.
Status check_sinkable(const Value* value, const std::string& role, const std::string& where) {
  const TensorDesc& desc = value->desc();
  if (desc.kind != ValueKind::kTensor || !desc.is_static() || desc.dtype == DataType::kUndefined ||
      desc.dtype == DataType::kString) {
    return unsupported(where + ": " + role + " '" + value->name() + "' is " + desc.to_string() +
                       "; task sink needs numeric tensors of static shape (use the per-op executor)");
  }
  return Status::ok();
}

size_t bytes_of(const Value* value) {
  return static_cast<size_t>(element_count(value->desc().static_dims())) * element_size(value->desc().dtype);
}

}  // namespace

Result<runner::PreparedKernels> runner::Compiled::prepare_kernels(const std::vector<Node*>& topological,
                                                                              const std::string& where) const {
  const Graph& g = *graph;
  PreparedKernels prepared;
  for (Node* node : topological) {
    if (is_host_op(*node) || !node->subgraphs().empty()) {
      return unsupported(where + ": " + node->describe() +
                         " runs on the host (control flow, sequence or optional); "
                         "task sink cannot run it (use the per-op executor)");
    }
    for (const Value* in : node->inputs()) {
      if (in != nullptr) GE_RETURN_IF_ERROR(check_sinkable(in, "input of " + node->describe(), where));
    }
    for (const Value* out : node->outputs()) {
      if (!is_omitted_output(g, out)) GE_RETURN_IF_ERROR(check_sinkable(out, "output of " + node->describe(), where));
    }
    std::string reason;
    if (!backend->supports(*node, &reason)) {
      return unsupported(where + ": backend cannot run " + node->describe() + (reason.empty() ? "" : ": " + reason));
    }
    GE_ASSIGN_OR_RETURN(PreparedKernel kernel, detail::guard_plugin_call("backend '" + backend->name() +
                                                                             "' (preparing " + node->describe() + ")",
                                                                         [&] { return backend->prepare(*node); }));
    if (kernel.function == nullptr)
      return internal_error(where + ": kernel for " + node->describe() + " has no function");
    GE_RETURN_IF_ERROR(detail::count_held_bytes(kernel, output_pool.get(), node->describe()).with_context(where));
    prepared[node] = std::move(kernel);
  }
  return prepared;
}

Result<runner::InputIndex> runner::Compiled::take_io(const std::string& where) {
  const Graph& g = *graph;
  runtime_inputs = g.runtime_inputs();
  InputIndex input_index;
  for (size_t i = 0; i < runtime_inputs.size(); ++i) {
    GE_RETURN_IF_ERROR(check_sinkable(runtime_inputs[i], "graph input", where));
    input_index[runtime_inputs[i]] = i;
    input_bytes.push_back(bytes_of(runtime_inputs[i]));
  }
  for (const Value* out : g.outputs()) {
    GE_RETURN_IF_ERROR(check_sinkable(out, "graph output", where));
    output_bytes.push_back(bytes_of(out));
  }
  for (const Value* init : g.initializers()) {
    if (!input_index.count(init) && init->constant()) GE_RETURN_IF_ERROR(check_sinkable(init, "initializer", where));
  }
  return input_index;
}

}  // namespace ge
