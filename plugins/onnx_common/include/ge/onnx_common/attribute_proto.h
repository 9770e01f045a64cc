#pragma once
/// Conversions between ONNX AttributeProto and ge::Attribute for every kind that does not
/// need a graph importer/exporter (graph-valued attributes are handled by the parser).

#include <filesystem>
#include <string>

#include <onnx/onnx_pb.h>

#include "ge/attribute.h"
#include "ge/status.h"

namespace ge::onnx_common {

/// The attribute's type; for old models that leave `type` unset (UNDEFINED) it is
/// deduced from which value field is present. UNDEFINED when nothing is set.
onnx::AttributeProto::AttributeType effective_attribute_type(const onnx::AttributeProto& proto);

/// AttributeProto → Attribute for int/float/string/tensor and their lists (tensors decoded
/// with tensor_from_proto against `base_dir`). GRAPH/GRAPHS, SPARSE_TENSOR(S),
/// TYPE_PROTO(S) and function attribute references give kUnsupported naming the attribute.
Result<Attribute> attribute_from_proto(const onnx::AttributeProto& proto,
                                       const std::filesystem::path& base_dir = {});

/// Attribute → AttributeProto named `name` (tensors as raw_data). Graph-valued attributes
/// give kUnsupported: exporting a Graph needs a graph exporter.
Result<onnx::AttributeProto> attribute_to_proto(const std::string& name, const Attribute& attribute);

}  // namespace ge::onnx_common
