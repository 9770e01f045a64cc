#pragma once
/// Lets libonnx's If/Loop/Scan inference functions infer a GE subgraph.

#include <string>
#include <vector>

#include <onnx/defs/shape_inference.h>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/status.h"
#include "status_error.h"

namespace ge::onnx_ops {

/// onnx::GraphInferencer over the subgraph held by attribute `attribute_name` of `owner`.
/// doInferencing refines the subgraph's runtime-input descs with the given types, infers
/// it through `registry` (which also refreshes its captures from the enclosing scope) and
/// returns its output types (owned by this object). GE errors are thrown as StatusError,
/// ONNX-level mismatches as onnx::InferenceError.
class SubgraphInferencer final : public onnx::GraphInferencer {
 public:
  SubgraphInferencer(const Node& owner, std::string attribute_name, Graph& subgraph,
                     const OpRegistry& registry);

  std::vector<const onnx::TypeProto*> doInferencing(
      const std::vector<const onnx::TypeProto*>& input_types,
      const std::vector<const onnx::TensorProto*>& input_data) override;

 private:
  Status bind_inputs(const std::vector<const onnx::TypeProto*>& input_types);

  const Node& owner_;
  std::string attribute_name_;
  Graph& subgraph_;
  const OpRegistry& registry_;
  std::vector<onnx::TypeProto> output_types_;
};

}  // namespace ge::onnx_ops
