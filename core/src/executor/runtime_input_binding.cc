// Checking a caller's named inputs against a graph's runtime inputs (runtime_input_binding.h).
#include "runtime_input_binding.h"

#include <map>
#include <string>

namespace ge {

Result<std::vector<const RuntimeValue*>> bind_runtime_inputs(const std::vector<Value*>& expected,
                                                             const NamedValues& inputs) {
  auto expected_names = [&] {
    std::string names;
    for (const Value* v : expected) names += (names.empty() ? "" : ", ") + v->name();
    return names.empty() ? std::string("none") : names;
  };
  std::vector<const RuntimeValue*> bound(expected.size(), nullptr);
  for (const auto& [name, value] : inputs) {
    size_t index = expected.size();
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i]->name() == name) index = i;
    }
    if (index == expected.size()) {
      return invalid_argument("unknown input '" + name + "'; the model's inputs are: " + expected_names());
    }
    if (bound[index] != nullptr) return invalid_argument("input '" + name + "' is bound twice");
    bound[index] = &value;
  }
  std::map<std::string, int64_t> symbols;
  for (size_t i = 0; i < expected.size(); ++i) {
    const Value* v = expected[i];
    if (bound[i] == nullptr) {
      return invalid_argument("input '" + v->name() + "' is not bound; the model's inputs are: " + expected_names());
    }
    const RuntimeValue& rv = *bound[i];
    const TensorDesc& desc = v->desc();
    if (rv.kind != desc.kind && !(desc.kind == ValueKind::kOptional && rv.kind == ValueKind::kTensor)) {
      return invalid_argument("input '" + v->name() + "' is " + rv.to_string() + " but the model expects " + desc.to_string());
    }
    const DataType type = rv.holds_tensor() ? rv.tensor.dtype() : rv.element_type;
    if (desc.dtype != DataType::kUndefined && type != DataType::kUndefined && type != desc.dtype) {
      return invalid_argument("input '" + v->name() + "' has dtype " + std::string(data_type_name(type)) +
                              " but the model expects " + std::string(data_type_name(desc.dtype)));
    }
    if (rv.holds_tensor() && desc.shape && desc.kind == ValueKind::kTensor) {
      const std::vector<int64_t>& shape = rv.tensor.shape();
      bool ok = static_cast<int64_t>(shape.size()) == desc.rank();
      for (size_t d = 0; ok && d < shape.size(); ++d) {
        const Dim& dim = (*desc.shape)[d];
        if (dim.is_static()) {
          ok = dim.value == shape[d];
        } else if (!dim.symbol.empty()) {
          auto [it, inserted] = symbols.emplace(dim.symbol, shape[d]);
          ok = inserted || it->second == shape[d];
        }
      }
      if (!ok) {
        return invalid_argument("input '" + v->name() + "' has shape " + shape_to_string(shape) +
                                " but the model expects " + desc.to_string() +
                                (symbols.empty() ? "" : " (named dims must agree across inputs)"));
      }
    }
  }
  return bound;
}

bool has_dynamic_tensor_inputs(const Graph& graph) {
  bool dynamic = false;
  for (const Value* input : graph.runtime_inputs()) {
    if (input->desc().kind != ValueKind::kTensor) return false;
    dynamic = dynamic || !input->desc().is_static();
  }
  return dynamic;
}

}  // namespace ge
