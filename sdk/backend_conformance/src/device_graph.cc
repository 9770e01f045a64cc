#include "device_graph.h"

#include <cstring>
#include <span>

#include "ge/graph_queries.h"
#include "ge/graph_text.h"

namespace ge::backend_conformance {
namespace {

size_t byte_size_of(const Value& value) {
  return static_cast<size_t>(element_count(value.desc().static_dims())) * element_size(value.desc().dtype);
}

}  // namespace

Result<std::unique_ptr<Graph>> parse_and_infer(std::string_view text, const OpRegistry& ops) {
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
  GE_RETURN_IF_ERROR(ops.infer_graph(*graph).with_context("inferring test graph '" + graph->name() + "'"));
  return graph;
}

std::string unsupported_nodes(const Backend& backend, const Graph& graph) {
  std::string text;
  for (const auto& node : graph.nodes()) {
    std::string reason;
    if (!backend.supports(*node, &reason)) {
      text += (text.empty() ? "" : "; ") + node->describe() + (reason.empty() ? "" : ": " + reason);
    }
  }
  return text;
}

DeviceGraph::~DeviceGraph() {
  // Free every buffer before the kernels: their params may be the backend's to release.
  tasks_.clear();
  buffers_.clear();
  workspaces_.clear();
  kernels_.clear();
}

Result<std::unique_ptr<DeviceGraph>> DeviceGraph::load(std::unique_ptr<Graph> graph, Backend& backend) {
  std::unique_ptr<DeviceGraph> loaded(new DeviceGraph(std::move(graph), backend));
  DeviceGraph& g = *loaded;
  Device& device = backend.device();
  const std::string where = "graph '" + g.graph_->name() + "' on backend '" + backend.name() + "'";
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, g.graph_->topological_order());
  auto buffer_for = [&](const Value* value) -> Status {
    if (is_omitted_output(*g.graph_, value) || g.buffers_.count(value) > 0) return Status::ok();
    if (!value->desc().is_static()) {
      return unsupported(where + ": value '" + value->name() + "' has no static shape (" + value->desc().to_string() + ")");
    }
    const size_t bytes = byte_size_of(*value);
    GE_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::allocate(device, bytes + kGuardBytes));
    GE_RETURN_IF_ERROR(buffer.fill(kPoison).with_context(where + ": filling the buffer of '" + value->name() + "'"));
    if (const Tensor* constant = value->constant(); constant != nullptr && bytes > 0) {
      GE_RETURN_IF_ERROR(
          buffer.write(std::span(static_cast<const std::byte*>(constant->raw_data()), constant->byte_size()))
              .with_context(where + ": copying initializer '" + value->name() + "'"));
    }
    g.buffers_.emplace(value, std::move(buffer));
    return Status::ok();
  };
  for (const Value* value : g.graph_->inputs()) GE_RETURN_IF_ERROR(buffer_for(value));
  for (const Value* value : g.graph_->initializers()) GE_RETURN_IF_ERROR(buffer_for(value));
  for (Node* node : order) {
    for (const Value* value : node->inputs()) GE_RETURN_IF_ERROR(buffer_for(value));
    for (const Value* value : node->outputs()) GE_RETURN_IF_ERROR(buffer_for(value));
  }
  for (Node* node : order) {
    Result<PreparedKernel> kernel = backend.prepare(*node);
    if (!kernel.is_ok()) return kernel.status().with_context(where + ": preparing " + node->describe());
    if (kernel->function == nullptr) {
      return internal_error(where + ": prepare(" + node->describe() + ") returned a kernel without a function");
    }
    DeviceBuffer workspace;
    if (kernel->workspace_bytes > 0) {
      GE_ASSIGN_OR_RETURN(workspace, DeviceBuffer::allocate(device, kernel->workspace_bytes));
    }
    std::vector<const void*> inputs;
    for (const Value* value : node->inputs()) inputs.push_back(value == nullptr ? nullptr : g.address(value->name()));
    std::vector<void*> outputs;
    std::vector<MemsetTask> zeroing;
    for (size_t k = 0; k < node->output_count(); ++k) {
      const Value* value = node->output(k);
      auto it = g.buffers_.find(value);
      outputs.push_back(is_omitted_output(*g.graph_, value) || it == g.buffers_.end() ? nullptr : it->second.get());
      if (kernel->zeroed.output(k) && outputs.back() != nullptr) {
        zeroing.push_back({outputs.back(), byte_size_of(*value), 0});
      }
    }
    if (kernel->zeroed.workspace && workspace.get() != nullptr) {
      zeroing.push_back({workspace.get(), kernel->workspace_bytes, 0});
    }
    g.zeroing_.push_back(std::move(zeroing));
    g.order_.push_back(node);
    g.kernels_.push_back(std::move(kernel).value());
    g.workspaces_.push_back(std::move(workspace));
    g.inputs_.push_back(std::move(inputs));
    g.outputs_.push_back(std::move(outputs));
    g.descriptions_.push_back(node->describe());
  }
  // The arrays are complete: now their addresses are stable.
  for (size_t i = 0; i < g.order_.size(); ++i) {
    KernelTask task;
    task.function = g.kernels_[i].function;
    task.args.inputs = g.inputs_[i].data();
    task.args.outputs = g.outputs_[i].data();
    task.args.workspace = g.workspaces_[i].get();
    task.args.params = g.kernels_[i].params.get();
    task.name = g.kernels_[i].name.c_str();
    task.node = g.descriptions_[i].c_str();
    g.tasks_.push_back(task);
  }
  return loaded;
}

void* DeviceGraph::address(const std::string& name) const {
  const Value* value = graph_->find_value(name);
  auto it = value != nullptr ? buffers_.find(value) : buffers_.end();
  return it == buffers_.end() ? nullptr : it->second.get();
}

Status DeviceGraph::write(const std::string& name, const Tensor& data) {
  const Value* value = graph_->find_value(name);
  auto it = value != nullptr ? buffers_.find(value) : buffers_.end();
  if (it == buffers_.end()) return not_found("conformance kit: graph '" + graph_->name() + "' has no value '" + name + "'");
  if (data.dtype() != value->desc().dtype || data.byte_size() != byte_size_of(*value)) {
    return internal_error("conformance kit: data for '" + name + "' is " + data.to_string(0) + ", the value is " +
                          value->desc().to_string());
  }
  return it->second.write(std::span(static_cast<const std::byte*>(data.raw_data()), data.byte_size()));
}

Result<Tensor> DeviceGraph::read(const std::string& name) const {
  const Value* value = graph_->find_value(name);
  auto it = value != nullptr ? buffers_.find(value) : buffers_.end();
  if (it == buffers_.end()) return not_found("conformance kit: graph '" + graph_->name() + "' has no value '" + name + "'");
  Tensor tensor = Tensor::zeros(value->desc().dtype, value->desc().static_dims());
  if (tensor.byte_size() > 0) {
    GE_RETURN_IF_ERROR(
        backend_.device().copy_to_host(tensor.raw_data(), it->second.get(), tensor.byte_size()).with_context(
            "device '" + backend_.device().name() + "': copy_to_host of '" + name + "'"));
  }
  return tensor;
}

std::vector<Task> DeviceGraph::tasks() const {
  std::vector<Task> all;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    all.insert(all.end(), zeroing_[i].begin(), zeroing_[i].end());
    all.push_back(tasks_[i]);
  }
  return all;
}

Status DeviceGraph::run(Stream& stream) const {
  const std::vector<Task> all = tasks();
  GE_RETURN_IF_ERROR(stream.submit(all));
  return stream.synchronize();
}

Status DeviceGraph::check_guards() const {
  for (const auto& [value, buffer] : buffers_) {
    const size_t bytes = byte_size_of(*value);
    GE_ASSIGN_OR_RETURN(std::vector<std::byte> guard, buffer.read(kGuardBytes, bytes));
    for (size_t i = 0; i < guard.size(); ++i) {
      if (guard[i] != kPoison) {
        return internal_error("a kernel wrote past the end of value '" + value->name() + "' (" +
                              value->desc().to_string() + ", " + std::to_string(bytes) + " bytes): byte " +
                              std::to_string(bytes + i) + " changed");
      }
    }
  }
  return Status::ok();
}

}  // namespace ge::backend_conformance
