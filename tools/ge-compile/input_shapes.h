#pragma once
/// --input-shape "name:1,3,224,224;other:8": fixes the shapes of graph inputs.
#include <string_view>

#include "ge/graph.h"
#include "ge/status.h"

namespace ge::tools {

/// Sets each named runtime input's shape to the given static dims (dtype kept). Errors
/// name an unknown input, a malformed entry or a rank that contradicts the model.
Status apply_input_shapes(Graph& graph, std::string_view spec);

}  // namespace ge::tools
