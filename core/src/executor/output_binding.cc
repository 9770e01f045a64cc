// Caller-bound outputs: see output_binding.h.
#include "output_binding.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ge {
namespace {

struct Span {
  std::string what;
  const char* begin;
  const char* end;
};

bool overlap(const Span& a, const Span& b) { return a.begin < b.end && b.begin < a.end; }

}  // namespace

Result<std::vector<const Tensor*>> bind_outputs(const std::vector<Value*>& graph_outputs, const NamedTensors& bound,
                                                const NamedTensors& inputs) {
  std::vector<const Tensor*> bindings(graph_outputs.size(), nullptr);
  std::vector<Span> spans;
  for (const auto& [name, tensor] : inputs) {
    const auto* data = static_cast<const char*>(tensor.raw_data());
    if (data != nullptr && tensor.byte_size() > 0) spans.push_back({"input '" + name + "'", data, data + tensor.byte_size()});
  }
  const size_t input_spans = spans.size();
  for (const auto& binding : bound) {
    const std::string& name = binding.first;  // named, not a structured binding: clang 14 captures none
    const Tensor& tensor = binding.second;
    auto at = std::find_if(graph_outputs.begin(), graph_outputs.end(), [&](const Value* v) { return v->name() == name; });
    if (at == graph_outputs.end()) {
      std::string names;
      for (const Value* v : graph_outputs) names += (names.empty() ? "'" : ", '") + v->name() + "'";
      return invalid_argument("bound output '" + name + "' is not an output of the model (its outputs: " + names + ")");
    }
    const auto index = static_cast<size_t>(at - graph_outputs.begin());
    if (bindings[index] != nullptr) return invalid_argument("output '" + name + "' is bound twice");
    if (tensor.dtype() == DataType::kString) {
      return invalid_argument("output '" + name + "' cannot be bound: string tensors are not written in place");
    }
    if (tensor.raw_data() == nullptr && tensor.element_count() > 0) {
      return invalid_argument("output '" + name + "' is bound to a tensor without storage");
    }
    const auto* data = static_cast<const char*>(tensor.raw_data());
    const Span span{"output '" + name + "'", data, data + tensor.byte_size()};
    for (size_t s = 0; s < spans.size() && span.begin != span.end; ++s) {
      if (overlap(span, spans[s])) {
        return invalid_argument("bound " + span.what + " overlaps the memory of " +
                                (s < input_spans ? spans[s].what : "bound " + spans[s].what) +
                                ": a run may read what it already overwrote; bind a buffer of its own");
      }
    }
    spans.push_back(span);
    bindings[index] = &tensor;
  }
  return bindings;
}

Status check_bound_output(const std::string& name, const Tensor& bound, DataType dtype,
                          const std::vector<int64_t>& shape) {
  if (bound.dtype() == dtype && bound.shape() == shape) return Status::ok();
  return invalid_argument("output '" + name + "' is bound to " + TensorDesc::of(bound.dtype(), bound.shape()).to_string() +
                          ", but this run computes " + TensorDesc::of(dtype, shape).to_string());
}

Status deliver_bound_outputs(const std::vector<Value*>& graph_outputs, const std::vector<const Tensor*>& bindings,
                             std::vector<Tensor>& outputs) {
  for (size_t i = 0; i < bindings.size() && i < outputs.size(); ++i) {
    const Tensor* bound = bindings[i];
    if (bound == nullptr) continue;
    Tensor& produced = outputs[i];
    if (produced.raw_data() != bound->raw_data() || produced.dtype() != bound->dtype() ||
        produced.shape() != bound->shape()) {
      GE_RETURN_IF_ERROR(check_bound_output(graph_outputs[i]->name(), *bound, produced.dtype(), produced.shape()));
      if (produced.byte_size() > 0) std::memmove(const_cast<void*>(bound->raw_data()), produced.raw_data(), produced.byte_size());
    }
    produced = *bound;
  }
  return Status::ok();
}

}  // namespace ge
