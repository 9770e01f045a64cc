#pragma once
/// Input shapes a caller gives a model: `--input-shape "x:1,3,224,224;ids:int64[1,8]"`.
/// They fix the dims (and, where the file does not say, the dtype) of runtime graph
/// inputs: a model exported with dynamic dims is compiled static, and a format that stores
/// no input shapes (TorchScript) learns them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/data_type.h"
#include "ge/status.h"
#include "ge/tensor_desc.h"

namespace ge {

class Graph;

struct InputShape {
  std::string name;
  std::optional<DataType> dtype;  ///< nullopt: the model's dtype
  std::vector<int64_t> dims;      ///< static; -1 keeps the model's dim
  bool operator==(const InputShape&) const = default;
};

/// What a parser is told besides the file. Shapes a parser needs to import the model at
/// all (TorchScript) it takes itself; the rest apply to the imported graph.
struct ParseOptions {
  std::vector<InputShape> input_shapes;
};

/// Parses "NAME:D0,D1,...;NAME=DTYPE[D0,D1]..." (':' or '=' after the name; a dim of -1 or
/// '?' keeps the model's dim; an empty list is a scalar). Errors quote the bad entry.
Result<std::vector<InputShape>> parse_input_shapes(std::string_view spec);

/// Sets each named runtime input's dims (and dtype) from `shapes`. Errors name an unknown
/// input (listing the inputs there are), a rank or a static dim that contradicts the model,
/// or a dtype the model gives otherwise.
Status apply_input_shapes(Graph& graph, const std::vector<InputShape>& shapes);

/// parse_input_shapes then apply_input_shapes.
Status apply_input_shapes(Graph& graph, std::string_view spec);

}  // namespace ge
