#include "input_shapes.h"

#include <charconv>
#include <string>
#include <vector>

namespace ge::tools {

Status apply_input_shapes(Graph& graph, std::string_view spec) {
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(';', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view entry = spec.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    const size_t colon = entry.find_last_of(":=");
    const std::string entry_text(entry);
    if (colon == std::string_view::npos || colon == 0)
      return invalid_argument("'" + entry_text + "' is not name=d0,d1,... (or name:d0,d1,...)");
    const std::string name(entry.substr(0, colon));
    std::vector<Dim> dims;
    std::string_view rest = entry.substr(colon + 1);
    while (!rest.empty()) {
      const size_t comma = std::min(rest.find(','), rest.size());
      const std::string_view text = rest.substr(0, comma);
      int64_t d = -1;
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      if (ec != std::errc() || ptr != text.data() + text.size() || d < 0) {
        const std::string dim_text(text);
        return invalid_argument("input '" + name + "': '" + dim_text + "' is not a dimension");
      }
      dims.push_back(Dim::of(d));
      rest = comma < rest.size() ? rest.substr(comma + 1) : std::string_view{};
    }
    Value* input = nullptr;
    for (Value* v : graph.runtime_inputs()) {
      if (v->name() == name) input = v;
    }
    if (input == nullptr) return invalid_argument("the model has no runtime input '" + name + "'");
    TensorDesc& desc = input->mutable_desc();
    if (desc.has_rank() && desc.rank() != static_cast<int64_t>(dims.size())) {
      return invalid_argument("input '" + name + "' has rank " + std::to_string(desc.rank()) + " but " +
                              std::to_string(dims.size()) + " dims were given");
    }
    if (desc.has_rank()) {
      for (size_t i = 0; i < dims.size(); ++i) {
        const Dim& old = (*desc.shape)[i];
        if (old.is_static() && old.value != dims[i].value) {
          return invalid_argument("input '" + name + "' dim " + std::to_string(i) + " is " +
                                  std::to_string(old.value) + " in the model, not " + std::to_string(dims[i].value));
        }
      }
    }
    desc.shape = std::move(dims);
  }
  return Status::ok();
}

}  // namespace ge::tools
