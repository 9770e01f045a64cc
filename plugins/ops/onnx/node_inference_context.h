#pragma once
/// onnx::InferenceContext over a GE node, so libonnx's own type/shape inference functions
/// run on GE's IR unchanged.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "subgraph_inferencer.h"

namespace ge::onnx_ops {

/// Presents `node` (its attributes, with `schema`'s defaults for absent ones, its input
/// descs and, through `data`, known input contents) to an ONNX inference function and
/// collects the output types it writes.
/// Single-threaded; lives for one inference call. `node`, `data` and `registry` must
/// outlive it. The constructor throws StatusError when an attribute cannot be converted.
class NodeInferenceContext final : public onnx::InferenceContext {
 public:
  NodeInferenceContext(Node& node, const onnx::OpSchema& schema, const InputDataProvider& data,
                       const OpRegistry& registry);

  const onnx::AttributeProto* getAttribute(const std::string& name) const override;
  size_t getNumInputs() const override;
  /// Null for an omitted optional input.
  const onnx::TypeProto* getInputType(size_t index) const override;
  /// The content `data` offers for input `index`, or null.
  const onnx::TensorProto* getInputData(size_t index) const override;
  size_t getNumOutputs() const override;
  onnx::TypeProto* getOutputType(size_t index) override;
  /// An inferencer for a graph-valued attribute, or null when there is none.
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string& attribute_name) override;
  const onnx::SparseTensorProto* getInputSparseData(size_t index) const override;
  const onnx::TensorShapeProto* getSymbolicInput(size_t index) const override;

  /// The output types as the inference function left them (VALUE_NOT_SET where it said
  /// nothing).
  const std::vector<onnx::TypeProto>& output_types() const { return output_types_; }

 private:
  Node& node_;
  const InputDataProvider& data_;
  const OpRegistry& registry_;
  // Graph attributes are left out: the standard inference functions reach subgraphs
  // only through getGraphAttributeInferencer. Absent attributes that have a default in
  // the schema are filled in, since an absent attribute means its default and some
  // libonnx 1.12 inference functions assume another one (STFT's onesided).
  std::map<std::string, onnx::AttributeProto> attributes_;
  std::vector<std::unique_ptr<onnx::TypeProto>> input_types_;  // null for omitted inputs
  // Converted lazily (most ops never ask) and kept alive for the whole call.
  mutable std::vector<std::unique_ptr<onnx::TensorProto>> input_data_;
  mutable std::vector<bool> input_data_queried_;
  std::vector<onnx::TypeProto> output_types_;
  std::map<std::string, std::unique_ptr<SubgraphInferencer>> graph_inferencers_;
};

}  // namespace ge::onnx_ops
