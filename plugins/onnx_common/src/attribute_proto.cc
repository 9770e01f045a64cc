#include "ge/onnx_common/attribute_proto.h"

#include "ge/onnx_common/tensor_proto.h"

namespace ge::onnx_common {

using AttrType = onnx::AttributeProto::AttributeType;

AttrType effective_attribute_type(const onnx::AttributeProto& proto) {
  if (proto.type() != onnx::AttributeProto::UNDEFINED) return proto.type();
  // Pre-IR-3 models may omit `type`; the set field says what it is.
  if (proto.has_f()) return onnx::AttributeProto::FLOAT;
  if (proto.has_i()) return onnx::AttributeProto::INT;
  if (proto.has_s()) return onnx::AttributeProto::STRING;
  if (proto.has_t()) return onnx::AttributeProto::TENSOR;
  if (proto.has_g()) return onnx::AttributeProto::GRAPH;
  if (proto.has_sparse_tensor()) return onnx::AttributeProto::SPARSE_TENSOR;
  if (proto.has_tp()) return onnx::AttributeProto::TYPE_PROTO;
  if (proto.floats_size() > 0) return onnx::AttributeProto::FLOATS;
  if (proto.ints_size() > 0) return onnx::AttributeProto::INTS;
  if (proto.strings_size() > 0) return onnx::AttributeProto::STRINGS;
  if (proto.tensors_size() > 0) return onnx::AttributeProto::TENSORS;
  if (proto.graphs_size() > 0) return onnx::AttributeProto::GRAPHS;
  if (proto.sparse_tensors_size() > 0) return onnx::AttributeProto::SPARSE_TENSORS;
  if (proto.type_protos_size() > 0) return onnx::AttributeProto::TYPE_PROTOS;
  return onnx::AttributeProto::UNDEFINED;
}

Result<Attribute> attribute_from_proto(const onnx::AttributeProto& proto,
                                       const std::filesystem::path& base_dir) {
  const std::string label = "attribute '" + proto.name() + "'";
  if (!proto.ref_attr_name().empty()) {
    return unsupported(label + " refers to function attribute '" + proto.ref_attr_name() +
                       "'; only function bodies may do that");
  }
  switch (effective_attribute_type(proto)) {
    case onnx::AttributeProto::FLOAT: return Attribute(proto.f());
    case onnx::AttributeProto::INT: return Attribute(static_cast<int64_t>(proto.i()));
    case onnx::AttributeProto::STRING: return Attribute(proto.s());
    case onnx::AttributeProto::TENSOR: {
      auto tensor = tensor_from_proto(proto.t(), base_dir);
      if (!tensor.is_ok()) return tensor.status().with_context(label);
      return Attribute(std::move(tensor).value());
    }
    case onnx::AttributeProto::FLOATS:
      return Attribute(std::vector<float>(proto.floats().begin(), proto.floats().end()));
    case onnx::AttributeProto::INTS:
      return Attribute(std::vector<int64_t>(proto.ints().begin(), proto.ints().end()));
    case onnx::AttributeProto::STRINGS:
      return Attribute(std::vector<std::string>(proto.strings().begin(), proto.strings().end()));
    case onnx::AttributeProto::TENSORS: {
      std::vector<Tensor> tensors;
      tensors.reserve(proto.tensors_size());
      for (const auto& t : proto.tensors()) {
        auto tensor = tensor_from_proto(t, base_dir);
        if (!tensor.is_ok()) return tensor.status().with_context(label);
        tensors.push_back(std::move(tensor).value());
      }
      return Attribute(std::move(tensors));
    }
    case onnx::AttributeProto::GRAPH:
    case onnx::AttributeProto::GRAPHS:
      return unsupported(label + " holds a graph; graph attributes need the model importer");
    case onnx::AttributeProto::SPARSE_TENSOR:
    case onnx::AttributeProto::SPARSE_TENSORS:
      return unsupported(label + " holds a sparse tensor; sparse tensors are not supported");
    case onnx::AttributeProto::TYPE_PROTO: {
      if (proto.tp().value_case() == onnx::TypeProto::VALUE_NOT_SET) return invalid_argument(label + " holds an empty type proto");
      auto desc = desc_from_type_proto(proto.tp());
      if (!desc.is_ok()) return desc.status().with_context(label);
      return Attribute(std::move(desc).value());
    }
    case onnx::AttributeProto::TYPE_PROTOS: {
      std::vector<TensorDesc> descs;
      for (const auto& tp : proto.type_protos()) {
        auto desc = desc_from_type_proto(tp);
        if (!desc.is_ok()) return desc.status().with_context(label);
        descs.push_back(std::move(desc).value());
      }
      return Attribute(std::move(descs));
    }
    case onnx::AttributeProto::UNDEFINED:
      break;
  }
  if (proto.type() == onnx::AttributeProto::UNDEFINED) {
    // An empty list with no type: the only value it can be is an empty list.
    return Attribute(std::vector<int64_t>{});
  }
  return unsupported(label + " has unknown attribute type " + std::to_string(proto.type()));
}

Result<onnx::AttributeProto> attribute_to_proto(const std::string& name, const Attribute& attribute) {
  onnx::AttributeProto proto;
  proto.set_name(name);
  switch (attribute.type()) {
    case AttributeType::kInt:
      proto.set_type(onnx::AttributeProto::INT);
      proto.set_i(attribute.get<int64_t>());
      break;
    case AttributeType::kFloat:
      proto.set_type(onnx::AttributeProto::FLOAT);
      proto.set_f(attribute.get<float>());
      break;
    case AttributeType::kString:
      proto.set_type(onnx::AttributeProto::STRING);
      proto.set_s(attribute.get<std::string>());
      break;
    case AttributeType::kTensor:
      proto.set_type(onnx::AttributeProto::TENSOR);
      *proto.mutable_t() = tensor_to_proto(attribute.get<Tensor>());
      break;
    case AttributeType::kInts:
      proto.set_type(onnx::AttributeProto::INTS);
      for (int64_t v : attribute.get<std::vector<int64_t>>()) proto.add_ints(v);
      break;
    case AttributeType::kFloats:
      proto.set_type(onnx::AttributeProto::FLOATS);
      for (float v : attribute.get<std::vector<float>>()) proto.add_floats(v);
      break;
    case AttributeType::kStrings:
      proto.set_type(onnx::AttributeProto::STRINGS);
      for (const std::string& v : attribute.get<std::vector<std::string>>()) proto.add_strings(v);
      break;
    case AttributeType::kTensors:
      proto.set_type(onnx::AttributeProto::TENSORS);
      for (const Tensor& t : attribute.get<std::vector<Tensor>>()) *proto.add_tensors() = tensor_to_proto(t);
      break;
    case AttributeType::kType:
      proto.set_type(onnx::AttributeProto::TYPE_PROTO);
      *proto.mutable_tp() = desc_to_type_proto(attribute.get<TensorDesc>());
      break;
    case AttributeType::kTypes:
      proto.set_type(onnx::AttributeProto::TYPE_PROTOS);
      for (const TensorDesc& d : attribute.get<std::vector<TensorDesc>>()) *proto.add_type_protos() = desc_to_type_proto(d);
      break;
    case AttributeType::kGraph:
    case AttributeType::kGraphs:
      return unsupported("attribute '" + name + "' holds a graph; converting graphs to ONNX is not supported");
  }
  return proto;
}

}  // namespace ge::onnx_common
