#include "node_inference_context.h"

#include "ge/onnx_common/attribute_proto.h"
#include "ge/onnx_common/tensor_proto.h"
#include "status_error.h"

namespace ge::onnx_ops {

NodeInferenceContext::NodeInferenceContext(Node& node, const onnx::OpSchema& schema,
                                           const InputDataProvider& data,
                                           const OpRegistry& registry)
    : node_(node), data_(data), registry_(registry) {
  for (const auto& [name, attribute] : node.attributes()) {
    if (attribute.type() == AttributeType::kGraph || attribute.type() == AttributeType::kGraphs) {
      continue;
    }
    Result<onnx::AttributeProto> proto = onnx_common::attribute_to_proto(name, attribute);
    if (!proto.is_ok()) throw StatusError(proto.status().with_context("attribute '" + name + "'"));
    attributes_.emplace(name, std::move(proto).value());
  }
  for (const auto& [name, formal] : schema.attributes()) {
    if (formal.required || formal.default_value.type() == onnx::AttributeProto::UNDEFINED) continue;
    if (attributes_.count(name) != 0 || node.has_attribute(name)) continue;
    onnx::AttributeProto& proto = attributes_[name];
    proto = formal.default_value;
    proto.set_name(name);
  }
  input_types_.resize(node.input_count());
  for (size_t i = 0; i < node.input_count(); ++i) {
    if (const Value* input = node.input(i)) {
      input_types_[i] =
          std::make_unique<onnx::TypeProto>(onnx_common::desc_to_type_proto(input->desc()));
    }
  }
  input_data_.resize(node.input_count());
  input_data_queried_.assign(node.input_count(), false);
  output_types_.resize(node.output_count());
}

const onnx::AttributeProto* NodeInferenceContext::getAttribute(const std::string& name) const {
  auto it = attributes_.find(name);
  return it == attributes_.end() ? nullptr : &it->second;
}

size_t NodeInferenceContext::getNumInputs() const { return input_types_.size(); }

const onnx::TypeProto* NodeInferenceContext::getInputType(size_t index) const {
  return index < input_types_.size() ? input_types_[index].get() : nullptr;
}

const onnx::TensorProto* NodeInferenceContext::getInputData(size_t index) const {
  if (index >= input_data_.size() || node_.input(index) == nullptr || !data_) return nullptr;
  if (!input_data_queried_[index]) {
    input_data_queried_[index] = true;
    if (const Tensor* tensor = data_(node_, index); tensor != nullptr && tensor->defined()) {
      input_data_[index] = std::make_unique<onnx::TensorProto>(
          onnx_common::tensor_to_proto(*tensor, node_.input(index)->name()));
    }
  }
  return input_data_[index].get();
}

size_t NodeInferenceContext::getNumOutputs() const { return output_types_.size(); }

onnx::TypeProto* NodeInferenceContext::getOutputType(size_t index) {
  // Out-of-range is a bug in an inference function; an exception becomes an error status.
  if (index >= output_types_.size()) {
    fail_type_inference("output ", index, " requested but the node has ", output_types_.size(),
                        " outputs");
  }
  return &output_types_[index];
}

onnx::GraphInferencer* NodeInferenceContext::getGraphAttributeInferencer(
    const std::string& attribute_name) {
  if (auto it = graph_inferencers_.find(attribute_name); it != graph_inferencers_.end()) {
    return it->second.get();
  }
  const Attribute* attribute = node_.attribute(attribute_name);
  if (attribute == nullptr || !attribute->holds<Attribute::GraphPtr>()) return nullptr;
  const Attribute::GraphPtr& subgraph = attribute->get<Attribute::GraphPtr>();
  if (!subgraph) return nullptr;
  auto inferencer =
      std::make_unique<SubgraphInferencer>(node_, attribute_name, *subgraph, registry_);
  onnx::GraphInferencer* result = inferencer.get();
  graph_inferencers_.emplace(attribute_name, std::move(inferencer));
  return result;
}

const onnx::SparseTensorProto* NodeInferenceContext::getInputSparseData(size_t) const {
  return nullptr;
}

const onnx::TensorShapeProto* NodeInferenceContext::getSymbolicInput(size_t) const {
  return nullptr;
}

}  // namespace ge::onnx_ops
