#pragma once
/// Dead code elimination: removes nodes none of whose outputs reach a graph output
/// (directly, through control edges, or through values captured by subgraphs), in the
/// graph and recursively in its subgraphs, then drops unused initializers.

#include "ge/plugin_api/pass.h"

namespace ge::passes {

class DeadCodeElimination final : public Pass {
 public:
  std::string name() const override { return "dce"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::passes
