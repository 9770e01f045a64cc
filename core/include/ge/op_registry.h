#pragma once
/// The op registry: a session's op libraries (ge/plugin_api/op_library.h), looked up by (domain, op
/// type, opset version), and shape/type inference dispatched through them.

#include <memory>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_api/op_library.h"
#include "ge/op_schema.h"
#include "ge/status.h"

namespace ge {

/// All op libraries of a session. Not thread-safe for mutation; const use is.
class OpRegistry {
 public:
  /// Adds a library. Later libraries are consulted first, so a custom library can
  /// override a standard op.
  void add_library(std::shared_ptr<const OpLibrary> library);
  const std::vector<std::shared_ptr<const OpLibrary>>& libraries() const { return libraries_; }

  /// The library and schema for `node` under its graph's opset imports, or null.
  const OpLibrary* library_for(const Node& node) const;
  const OpSchemaInfo* find_schema(const Node& node) const;

  /// Infers one node. Unknown ops are kUnsupported errors naming op and domain.
  Status infer_node(Node& node, const InputDataProvider& data = {}) const;
  /// Infers every node of `graph` in topological order; initializer contents are
  /// offered as input data.
  Status infer_graph(Graph& graph, const InputDataProvider& data = {}) const;

 private:
  std::vector<std::shared_ptr<const OpLibrary>> libraries_;
};

}  // namespace ge
