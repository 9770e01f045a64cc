#include "ge/input_shapes.h"

#include <charconv>
#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge {
namespace {

Result<int64_t> parse_dim(const std::string& name, std::string_view text) {
  if (text == "?") return int64_t{-1};
  int64_t d = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || ptr != text.data() + text.size() || d < -1) {
    return invalid_argument("input '" + name + "': '" + std::string(text) + "' is not a dimension");
  }
  return d;
}

Result<InputShape> parse_entry(std::string_view entry) {
  const std::string entry_text(entry);
  // The name ends at the last ':' or '=' before any '[' (the dims of "int64[1,8]").
  const size_t bracket = entry.find('[');
  const size_t split = entry.substr(0, bracket).find_last_of(":=");
  if (split == std::string_view::npos || split == 0) {
    return invalid_argument("'" + entry_text + "' is not NAME:D0,D1,... or NAME=DTYPE[D0,D1,...]");
  }
  InputShape shape;
  shape.name = std::string(entry.substr(0, split));
  std::string_view dims = entry.substr(split + 1);
  if (bracket != std::string_view::npos) {
    const std::string_view dtype_text = entry.substr(split + 1, bracket - split - 1);
    if (entry.back() != ']') return invalid_argument("'" + entry_text + "': the dims' '[' is not closed by ']'");
    shape.dtype = data_type_from_name(dtype_text);
    if (!shape.dtype || *shape.dtype == DataType::kUndefined) {
      return invalid_argument("input '" + shape.name + "': '" + std::string(dtype_text) + "' is not a dtype");
    }
    dims = entry.substr(bracket + 1, entry.size() - bracket - 2);
  }
  while (!dims.empty()) {
    const size_t comma = std::min(dims.find(','), dims.size());
    GE_ASSIGN_OR_RETURN(int64_t d, parse_dim(shape.name, dims.substr(0, comma)));
    shape.dims.push_back(d);
    dims = comma < dims.size() ? dims.substr(comma + 1) : std::string_view{};
  }
  return shape;
}

std::string input_names(const Graph& graph) {
  std::string names;
  for (const Value* v : graph.runtime_inputs()) names += (names.empty() ? "'" : ", '") + v->name() + "'";
  return names.empty() ? "none" : names;
}

}  // namespace

Result<std::vector<InputShape>> parse_input_shapes(std::string_view spec) {
  std::vector<InputShape> shapes;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(';', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view entry = spec.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    GE_ASSIGN_OR_RETURN(InputShape shape, parse_entry(entry));
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

Status apply_input_shapes(Graph& graph, const std::vector<InputShape>& shapes) {
  for (const InputShape& shape : shapes) {
    const std::string& name = shape.name;
    Value* input = nullptr;
    for (Value* v : graph.runtime_inputs()) {
      if (v->name() == name) input = v;
    }
    if (input == nullptr) {
      return invalid_argument("the model has no runtime input '" + name + "' (its inputs: " + input_names(graph) + ")");
    }
    TensorDesc& desc = input->mutable_desc();
    if (shape.dtype && desc.dtype != DataType::kUndefined && desc.dtype != *shape.dtype) {
      return invalid_argument("input '" + name + "' is " + std::string(data_type_name(desc.dtype)) +
                              " in the model, not " + std::string(data_type_name(*shape.dtype)));
    }
    if (desc.has_rank() && desc.rank() != static_cast<int64_t>(shape.dims.size())) {
      return invalid_argument("input '" + name + "' has rank " + std::to_string(desc.rank()) + " but " +
                              std::to_string(shape.dims.size()) + " dims were given");
    }
    std::vector<Dim> dims;
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      const Dim old = desc.has_rank() ? (*desc.shape)[i] : Dim::unknown();
      if (shape.dims[i] < 0) {
        dims.push_back(old);
        continue;
      }
      if (old.is_static() && old.value != shape.dims[i]) {
        return invalid_argument("input '" + name + "' dim " + std::to_string(i) + " is " + std::to_string(old.value) +
                                " in the model, not " + std::to_string(shape.dims[i]));
      }
      dims.push_back(Dim::of(shape.dims[i]));
    }
    if (shape.dtype) desc.dtype = *shape.dtype;
    desc.shape = std::move(dims);
  }
  return Status::ok();
}

Status apply_input_shapes(Graph& graph, std::string_view spec) {
  GE_ASSIGN_OR_RETURN(std::vector<InputShape> shapes, parse_input_shapes(spec));
  return apply_input_shapes(graph, shapes);
}

}  // namespace ge
