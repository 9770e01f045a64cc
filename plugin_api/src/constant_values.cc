// Reading the constants a pass may fold (ge/plugin_api/constant_values.h).
#include "ge/plugin_api/constant_values.h"

#include "ge/attribute.h"
#include "ge/tensor.h"

namespace ge {

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
