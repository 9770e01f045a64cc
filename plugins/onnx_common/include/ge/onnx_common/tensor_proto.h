#pragma once
/// Conversions between ONNX protobuf types and GE's Tensor / TensorDesc / Attribute.
/// A static library shared by the ONNX parser, the ONNX op library and the tools; it is
/// not a plugin, so linking it keeps the plugin-isolation rule.

#include <filesystem>
#include <string>

#include <onnx/onnx_pb.h>

#include "ge/attribute.h"
#include "ge/data_type.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge::onnx_common {

/// ONNX TensorProto.DataType → DataType; kUnsupported for types GE does not hold
/// (float8, complex in some paths, ...).
Result<DataType> data_type_from_onnx(int32_t onnx_type);

/// Decodes a TensorProto (raw_data or typed fields; external data resolved against
/// `base_dir`, refusing absolute paths and paths that escape it; empty base_dir refuses
/// external data). Checks that the payload size matches the shape.
Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto,
                                 const std::filesystem::path& base_dir = {});

/// Encodes a tensor as a TensorProto with raw_data (strings in string_data).
onnx::TensorProto tensor_to_proto(const Tensor& tensor, const std::string& name = {});

/// Reads a serialized TensorProto file (ONNX test data's input_K.pb / output_K.pb);
/// external data resolves against the file's folder. Errors name the file.
Result<Tensor> read_tensor_file(const std::filesystem::path& path);
/// Writes `tensor` as a serialized TensorProto named `name`.
Status write_tensor_file(const Tensor& tensor, const std::filesystem::path& path,
                         const std::string& name = {});

/// TypeProto (tensor, sequence, optional) → TensorDesc: static dims, named dims (dim_param)
/// and unknown dims preserved.
Result<TensorDesc> desc_from_type_proto(const onnx::TypeProto& type);
/// TensorDesc → TypeProto (inverse of desc_from_type_proto).
onnx::TypeProto desc_to_type_proto(const TensorDesc& desc);

}  // namespace ge::onnx_common
