#include "half_widening.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ge/graph_queries.h"
#include "ge/minifloat.h"
#include "ge/plugin_api/backend.h"

namespace ge::passes {
namespace {

bool is_half(DataType type) { return type == DataType::kFloat16 || type == DataType::kBFloat16; }

bool is_half(const Value* value) { return value != nullptr && is_half(value->desc().dtype); }

// Whether `node` may compute in float32 in place of half precision: an ai.onnx op whose
// output types follow its inputs' (no attribute names a type or holds a typed tensor) and
// that owns no subgraph (a body's types are its own).
bool widenable_op(const Node& node) {
  if (!is_onnx_domain(node) || node.op_type() == "Cast" || node.op_type() == "CastLike") return false;
  for (const auto& [name, attribute] : node.attributes()) {
    if (name == "to" || name == "dtype" || name == "output_dtype") return false;
    if (attribute.holds<Tensor>() || attribute.holds<Attribute::GraphPtr>() ||
        attribute.holds<std::vector<Attribute::GraphPtr>>()) {
      return false;
    }
  }
  return true;
}

bool touches_half(const Node& node) {
  for (const Value* value : node.inputs()) {
    if (is_half(value)) return true;
  }
  for (const Value* value : node.outputs()) {
    if (is_half(value)) return true;
  }
  return false;
}

// `tensor` (float16 or bfloat16) as float32, exactly.
Tensor widened(const Tensor& tensor) {
  Tensor out = Tensor::zeros(DataType::kFloat32, tensor.shape());
  const std::span<const uint16_t> bits = tensor.values<uint16_t>();
  float* floats = out.data<float>();
  if (tensor.dtype() == DataType::kFloat16) {
    float16_to_float(bits, {floats, bits.size()});
  } else {
    for (size_t i = 0; i < bits.size(); ++i) floats[i] = bfloat16_to_float(bits[i]);
  }
  return out;
}

Node* add_cast(Graph& graph, Value* input, DataType to, const std::string& prefix) {
  const std::string name = graph.unique_name(prefix);
  Node* cast = graph.add_node("Cast", {input}, 1, name, {name});
  cast->set_attribute("to", Attribute(static_cast<int64_t>(to)));
  TensorDesc desc = input->desc();
  desc.dtype = to;
  cast->output(0)->set_desc(desc);
  return cast;
}

}  // namespace

Status HalfPrecisionWidening::run(Graph& graph, PassContext& context, bool& changed) {
  const Backend* backend = context.target_backend;
  if (backend == nullptr) return Status::ok();
  const bool widen_f16 = !backend->has_native_arithmetic(DataType::kFloat16);
  const bool widen_bf16 = !backend->has_native_arithmetic(DataType::kBFloat16);
  if (!widen_f16 && !widen_bf16) return Status::ok();
  auto widens = [&](const Value* value) {
    return value != nullptr && ((value->desc().dtype == DataType::kFloat16 && widen_f16) ||
                                (value->desc().dtype == DataType::kBFloat16 && widen_bf16));
  };

  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
  // Values a subgraph reads by name keep their type: the body was typed against it.
  std::unordered_set<const Value*> captured;
  for (Node* node : order) {
    if (node->subgraphs().empty()) continue;
    for (Value* value : graph.implicit_inputs(*node)) captured.insert(value);
  }
  std::unordered_set<const Node*> widened_nodes;
  for (Node* node : order) {
    if (!touches_half(*node) || !widenable_op(*node)) continue;
    bool all_widen = true, keeps_capture = false;
    for (const Value* value : node->inputs()) all_widen = all_widen && (!is_half(value) || widens(value));
    for (const Value* value : node->outputs()) {
      all_widen = all_widen && (!is_half(value) || widens(value));
      keeps_capture = keeps_capture || captured.count(value) != 0;
    }
    if (all_widen && !keeps_capture) widened_nodes.insert(node);
  }
  if (widened_nodes.empty()) return Status::ok();

  // Inputs: a widened node reads float32 (a widened constant, or one Cast per value).
  std::unordered_map<const Value*, Value*> as_float;
  for (Node* node : order) {
    if (!widened_nodes.count(node)) continue;
    for (size_t i = 0; i < node->input_count(); ++i) {
      Value* input = node->input(i);
      if (!is_half(input) || widened_nodes.count(input->producer())) continue;
      Value*& replacement = as_float[input];
      if (replacement == nullptr) {
        if (input->constant() != nullptr && !input->is_graph_input()) {
          replacement =
              graph.add_initializer(graph.unique_name(input->name() + "/float32"), widened(*input->constant()));
        } else {
          replacement = add_cast(graph, input, DataType::kFloat32, input->name() + "/float32")->output(0);
        }
      }
      node->set_input(i, replacement);
    }
  }
  // Outputs: float32; one Cast back for a graph output (which keeps its name) and for the
  // nodes that stay in half precision.
  for (Node* node : order) {
    if (!widened_nodes.count(node)) continue;
    for (Value* output : node->outputs()) {
      if (!is_half(output)) continue;
      const DataType type = output->desc().dtype;
      std::vector<Use> narrow_uses;
      for (const Use& use : output->uses()) {
        if (!widened_nodes.count(use.user)) narrow_uses.push_back(use);
      }
      std::vector<size_t> output_slots;
      for (size_t i = 0; i < graph.outputs().size(); ++i) {
        if (graph.outputs()[i] == output) output_slots.push_back(i);
      }
      output->mutable_desc().dtype = DataType::kFloat32;
      if (narrow_uses.empty() && output_slots.empty()) continue;
      const std::string name = output->name();
      if (!output_slots.empty()) output->set_name(graph.unique_name(name + "/float32"));
      Value* narrow = add_cast(graph, output, type, name + "/" + std::string(data_type_name(type)))->output(0);
      if (!output_slots.empty()) {
        narrow->set_name(name);
        for (size_t slot : output_slots) graph.set_output(slot, narrow);
      }
      for (const Use& use : narrow_uses) use.user->set_input(static_cast<size_t>(use.input_index), narrow);
    }
  }
  graph.remove_unused_values();
  changed = true;
  return Status::ok();
}

}  // namespace ge::passes
