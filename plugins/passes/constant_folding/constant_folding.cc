#include "constant_folding.h"

#include <algorithm>
#include <set>

#include "ge/executor.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::passes {
namespace {

bool has_subgraphs(const Node& node) {
  for (const auto& [name, attribute] : node.attributes()) {
    if (attribute.holds<Attribute::GraphPtr>() || attribute.holds<std::vector<Attribute::GraphPtr>>()) return true;
  }
  return false;
}

/// The tensor of a Constant node's value attribute, or nullopt for forms it cannot read.
std::optional<Tensor> constant_node_value(const Node& node) {
  if (const Attribute* a = node.attribute("value"); a != nullptr && a->holds<Tensor>()) return a->get<Tensor>();
  if (const Attribute* a = node.attribute("value_float"); a != nullptr && a->holds<float>()) {
    return Tensor::from_vector<float>({}, {a->get<float>()});
  }
  if (const Attribute* a = node.attribute("value_floats"); a != nullptr && a->holds<std::vector<float>>()) {
    const auto& v = a->get<std::vector<float>>();
    return Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v);
  }
  if (const Attribute* a = node.attribute("value_int"); a != nullptr && a->holds<int64_t>()) {
    return Tensor::from_vector<int64_t>({}, {a->get<int64_t>()});
  }
  if (const Attribute* a = node.attribute("value_ints"); a != nullptr && a->holds<std::vector<int64_t>>()) {
    const auto& v = a->get<std::vector<int64_t>>();
    return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
  }
  return std::nullopt;
}

/// Shape (with opset-15 start/end) and Size of a static-shape input.
std::optional<Tensor> static_shape_value(const Node& node) {
  const Value* x = node.input(0);
  if (x == nullptr || x->desc().kind != ValueKind::kTensor || !x->desc().is_static()) return std::nullopt;
  const std::vector<int64_t> dims = x->desc().static_dims();
  if (node.op_type() == "Size") return Tensor::from_vector<int64_t>({}, {element_count(dims)});
  const int64_t rank = static_cast<int64_t>(dims.size());
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  const int64_t start = clamp(node.get_int("start", 0));
  const int64_t end = node.has_attribute("end") ? clamp(node.get_int("end", rank)) : rank;
  std::vector<int64_t> slice;
  for (int64_t i = start; i < end; ++i) slice.push_back(dims[static_cast<size_t>(i)]);
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(slice.size())}, slice);
}

/// The constant a value stands for: its own data, or for a subgraph's capture, the
/// data of the enclosing-scope initializer it names (a body slicing the outer weights).
const Tensor* constant_data(const Value* value) {
  while (value != nullptr && value->is_capture()) {
    const Graph* outer = value->graph() != nullptr ? value->graph()->parent() : nullptr;
    value = outer != nullptr ? outer->resolve_name(value->name()) : nullptr;
  }
  return is_constant_value(value) ? value->constant() : nullptr;
}

class Folder {
 public:
  Folder(Graph& graph, PassContext& context, int64_t cap) : graph_(graph), context_(context), cap_(cap) {}

  Status run(bool& changed) {
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph_.topological_order());
    for (Node* node : order) {
      GE_ASSIGN_OR_RETURN(bool folded, fold(*node));
      changed = changed || folded;
    }
    for (const auto& node : graph_.nodes()) {
      for (Graph* sub : node->subgraphs()) {
        Folder inner(*sub, context_, cap_);
        GE_RETURN_IF_ERROR(inner.run(changed));
      }
    }
    return Status::ok();
  }

 private:
  bool over_cap(const TensorDesc& desc) const {
    const int64_t count = desc.element_count();
    return count >= 0 && desc.dtype != DataType::kUndefined &&
           count * static_cast<int64_t>(element_size(desc.dtype)) > cap_;
  }

  Result<bool> fold(Node& node) {
    if (node.output_count() == 0 || is_random_op(node) || has_subgraphs(node) || is_host_op(node)) return false;
    for (const Value* out : node.outputs()) {
      if (!out->name().empty() && (out->desc().kind != ValueKind::kTensor || over_cap(out->desc()))) return false;
    }
    std::vector<Tensor> results;
    if (is_onnx_domain(node) && node.op_type() == "Constant" && node.input_count() == 0) {
      std::optional<Tensor> value = constant_node_value(node);
      if (!value) return false;
      results.push_back(*value);
    } else if (is_onnx_domain(node) && (node.op_type() == "Shape" || node.op_type() == "Size")) {
      std::optional<Tensor> value = static_shape_value(node);
      if (!value) return false;
      results.push_back(*value);
    } else {
      if (node.input_count() == 0 || context_.reference_backend == nullptr || context_.ops == nullptr) return false;
      std::vector<Tensor> inputs;
      for (const Value* in : node.inputs()) {
        if (in == nullptr) {
          inputs.emplace_back();
          continue;
        }
        const Tensor* data = constant_data(in);
        if (data == nullptr) return false;
        inputs.push_back(*data);
      }
      Result<std::vector<Tensor>> evaluated = evaluate_node(node, inputs, *context_.reference_backend, *context_.ops);
      if (!evaluated.is_ok()) {
        GE_LOG_DEBUG("constant_folding: {} stays: {}", node.describe(), evaluated.status().message());
        return false;
      }
      // evaluate_node returns the named outputs only; give omitted ones an empty slot.
      size_t next = 0;
      for (const Value* out : node.outputs()) {
        results.push_back(out->name().empty() ? Tensor() : evaluated->at(next++));
      }
    }
    if (results.size() != node.output_count()) return false;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!node.output(i)->name().empty() && static_cast<int64_t>(results[i].byte_size()) > cap_) return false;
    }
    // Each initializer takes its output's name (shared until the node is removed), so
    // graph outputs and captures keep naming the same data.
    for (size_t i = 0; i < results.size(); ++i) {
      Value* out = node.output(i);
      if (out->name().empty()) continue;
      Value* folded = graph_.add_initializer(out->name(), results[i]);
      graph_.replace_all_uses(out, folded);
    }
    for (size_t i = 0; i < node.input_count(); ++i) node.set_input(i, nullptr);
    GE_RETURN_IF_ERROR(graph_.remove_node(&node));
    return true;
  }

  Graph& graph_;
  PassContext& context_;
  int64_t cap_;
};

}  // namespace

Status ConstantFolding::run(Graph& graph, PassContext& context, bool& changed) {
  Folder folder(graph, context, max_folded_bytes_);
  return folder.run(changed);
}

}  // namespace ge::passes
