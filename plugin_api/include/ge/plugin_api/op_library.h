#pragma once
/// An op library: the schemas (ge/op_schema.h) and shape/type inference of a set of ops.
/// Implemented by op_library plugins; the registry (ge/op_registry.h) consults them.

#include <functional>
#include <string>

#include "ge/graph.h"
#include "ge/op_schema.h"
#include "ge/status.h"

namespace ge {

/// Data the inference of one node may look at besides static descs: the content of an
/// input when it is known (an initializer, or a run-time value in per-op execution).
/// Returns null when unknown.
using InputDataProvider = std::function<const Tensor*(const Node& node, size_t input_index)>;

class OpRegistry;

/// An op library: schemas plus inference. Implemented by op_library plugins.
class OpLibrary {
 public:
  virtual ~OpLibrary() = default;
  virtual std::string name() const = 0;
  /// The schema this library has for `op_type` in `domain` at `opset_version`, or null.
  virtual const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type,
                                          int64_t opset_version) const = 0;
  /// Infers output descs of `node` from its input descs and attributes and writes them
  /// into node.outputs(). Subgraphs are inferred through `registry`.
  virtual Status infer(Node& node, int64_t opset_version, const InputDataProvider& data,
                       const OpRegistry& registry) const = 0;
};

}  // namespace ge
