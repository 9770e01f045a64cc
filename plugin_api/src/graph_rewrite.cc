// Graph-editing helpers for pass plugins (ge/plugin_api/graph_rewrite.h).
#include "ge/plugin_api/graph_rewrite.h"

#include <cstring>
#include <functional>

namespace ge {

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (!a.defined()) return true;
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.element_count(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

size_t hash_tensor(const Tensor& tensor) {
  size_t h = std::hash<int>()(static_cast<int>(tensor.dtype()));
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (int64_t d : tensor.shape()) mix(std::hash<int64_t>()(d));
  if (!tensor.defined()) return h;
  if (tensor.dtype() == DataType::kString) {
    for (int64_t i = 0; i < tensor.element_count(); ++i) mix(std::hash<std::string>()(tensor.data<std::string>()[i]));
    return h;
  }
  mix(std::hash<std::string_view>()(
      std::string_view(static_cast<const char*>(tensor.raw_data()), tensor.byte_size())));
  return h;
}

bool attributes_equal(const Attribute& a, const Attribute& b) {
  if (a.type() != b.type()) {
    // An int written where a float was expected (or the reverse) compares by value.
    if (a.holds<int64_t>() && b.holds<float>()) return static_cast<float>(a.get<int64_t>()) == b.get<float>();
    if (a.holds<float>() && b.holds<int64_t>()) return a.get<float>() == static_cast<float>(b.get<int64_t>());
    return false;
  }
  if (a.holds<Tensor>()) return tensors_equal(a.get<Tensor>(), b.get<Tensor>());
  if (a.holds<std::vector<Tensor>>()) {
    const auto& x = a.get<std::vector<Tensor>>();
    const auto& y = b.get<std::vector<Tensor>>();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!tensors_equal(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.holds<float>()) {
    // Bitwise, so that NaN attributes compare equal to themselves.
    float x = a.get<float>(), y = b.get<float>();
    return std::memcmp(&x, &y, sizeof(float)) == 0;
  }
  if (a.holds<std::vector<float>>()) {
    const auto& x = a.get<std::vector<float>>();
    const auto& y = b.get<std::vector<float>>();
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
  }
  if (a.holds<int64_t>()) return a.get<int64_t>() == b.get<int64_t>();
  if (a.holds<std::string>()) return a.get<std::string>() == b.get<std::string>();
  if (a.holds<Attribute::GraphPtr>()) return a.get<Attribute::GraphPtr>() == b.get<Attribute::GraphPtr>();
  if (a.holds<std::vector<int64_t>>()) return a.get<std::vector<int64_t>>() == b.get<std::vector<int64_t>>();
  if (a.holds<std::vector<std::string>>()) return a.get<std::vector<std::string>>() == b.get<std::vector<std::string>>();
  if (a.holds<TensorDesc>()) return a.get<TensorDesc>() == b.get<TensorDesc>();
  if (a.holds<std::vector<TensorDesc>>()) return a.get<std::vector<TensorDesc>>() == b.get<std::vector<TensorDesc>>();
  // Graphs compare by identity: two bodies are only known to agree when they are one.
  return a.get<std::vector<Attribute::GraphPtr>>() == b.get<std::vector<Attribute::GraphPtr>>();
}

bool is_constant_value(const Value* value) {
  return value != nullptr && value->is_constant() && !value->is_graph_input();
}

std::optional<double> constant_scalar(const Value* value) {
  if (!is_constant_value(value)) return std::nullopt;
  const Tensor& t = *value->constant();
  switch (t.dtype()) {
    case DataType::kString: case DataType::kUndefined: case DataType::kComplex64: case DataType::kComplex128:
      return std::nullopt;
    default:
      break;
  }
  if (t.element_count() < 1) return std::nullopt;
  const double first = t.scalar_as_double(0);
  for (int64_t i = 1; i < t.element_count(); ++i) {
    if (t.scalar_as_double(i) != first) return std::nullopt;
  }
  return first;
}

std::optional<std::vector<int64_t>> constant_ints(const Value* value) {
  if (!is_constant_value(value)) return std::nullopt;
  Result<std::vector<int64_t>> ints = value->constant()->to_int64_vector();
  if (!ints.is_ok()) return std::nullopt;
  return *ints;
}

std::set<std::string> captured_names(const Graph& graph) {
  std::set<std::string> names;
  for (const auto& node : graph.nodes()) {
    for (Graph* sub : node->subgraphs()) {
      for (const std::string& name : sub->free_captured_names()) names.insert(name);
    }
  }
  return names;
}

Graph& root_graph(Graph& graph) {
  Graph* g = &graph;
  while (g->parent() != nullptr) g = g->parent();
  return *g;
}

void ensure_opset_import(Graph& graph, const std::string& domain, int64_t version) {
  if (graph.opset_version(domain) > 0) return;
  root_graph(graph).set_opset_import(domain, version);
}

Result<bool> bypass_output(Graph& graph, Node& node, size_t output_index, Value* replacement,
                           const std::set<std::string>* captured_names_of_graph) {
  Value* out = node.output(output_index);
  if (out == nullptr || replacement == nullptr || replacement == out) return false;
  std::set<std::string> computed;
  if (captured_names_of_graph == nullptr) computed = captured_names(graph);
  const std::set<std::string>& captured = captured_names_of_graph != nullptr ? *captured_names_of_graph : computed;
  const bool named_use = graph.is_output(out) || captured.count(out->name()) != 0;
  if (named_use) {
    // The replacement inherits the name: it must be free to change its own.
    const bool renamable = replacement->producer() != nullptr && replacement->graph() == &graph &&
                           !graph.is_output(replacement) && captured.count(replacement->name()) == 0;
    if (!renamable) return false;
  }
  const std::string name = out->name();
  // Take the name over first (briefly shared), so that captures renamed by
  // replace_all_uses keep naming the surviving value.
  if (named_use) replacement->set_name(name);
  graph.replace_all_uses(out, replacement);
  bool other_outputs_used = false;
  for (Value* o : node.outputs()) {
    if (o != out && (o->has_uses() || graph.is_output(o) || captured.count(o->name()))) other_outputs_used = true;
  }
  if (!other_outputs_used) {
    for (size_t i = 0; i < node.input_count(); ++i) node.set_input(i, nullptr);
    GE_RETURN_IF_ERROR(graph.remove_node(&node));
  } else if (named_use) {
    out->set_name(graph.unique_name(name + "_bypassed"));
  }
  return true;
}

std::optional<std::vector<int64_t>> node_axes(const Node& node, const std::string& attribute, size_t input_index,
                                              int64_t rank) {
  std::vector<int64_t> axes;
  if (const Attribute* a = node.attribute(attribute); a != nullptr && a->holds<std::vector<int64_t>>()) {
    axes = a->get<std::vector<int64_t>>();
  } else if (node.input(input_index) != nullptr) {
    std::optional<std::vector<int64_t>> ints = constant_ints(node.input(input_index));
    if (!ints) return std::nullopt;
    axes = *ints;
  } else {
    return std::nullopt;
  }
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
  }
  return axes;
}

}  // namespace ge
