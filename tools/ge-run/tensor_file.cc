#include "tensor_file.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "ge/atomic_file.h"
#include "ge/onnx_common/tensor_proto.h"
#include "ge/onnx_common/value_proto.h"
#include "npy.h"

namespace ge::tools {
namespace {

std::string lower_extension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

}  // namespace

Result<Tensor> read_tensor_file(const std::filesystem::path& path) {
  const std::string extension = lower_extension(path);
  if (extension != ".npy" && extension != ".pb") {
    return invalid_argument("cannot read tensor file '" + path.string() +
                            "': expected a .npy (NumPy) or .pb (ONNX TensorProto) file");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return not_found("tensor file '" + path.string() + "' does not exist or is not a regular file");
  }
  if (extension == ".npy") return read_npy(path);
  return read_tensor_proto_file(path);
}

Result<Tensor> read_tensor_proto_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open TensorProto file '" + path.string() + "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return parse_error("'" + path.string() + "' is not a serialized ONNX TensorProto");
  }
  Result<Tensor> tensor = onnx_common::tensor_from_proto(proto, path.parent_path());
  if (!tensor.is_ok()) return tensor.status().with_context("'" + path.string() + "'");
  return tensor;
}

Status write_tensor_proto_file(const std::filesystem::path& path, const Tensor& tensor, const std::string& name) {
  const onnx::TensorProto proto = onnx_common::tensor_to_proto(tensor, name);
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    return invalid_argument("cannot serialise the tensor for '" + path.string() + "'");
  return write_file_atomically(path, bytes);
}

Result<RuntimeValue> value_from_tensor(Tensor tensor, const TensorDesc& declared, const std::string& source) {
  if (declared.kind == ValueKind::kSequence || declared.kind == ValueKind::kOptionalSequence) {
    return invalid_argument(source + " holds one tensor but the model declares " + declared.to_string() +
                            "; give the sequence as an ONNX SequenceProto" +
                            (declared.kind == ValueKind::kOptionalSequence ? " inside an OptionalProto" : "") +
                            " .pb file");
  }
  RuntimeValue value = RuntimeValue::of(onnx_common::as_declared_bfloat16(std::move(tensor), declared.dtype));
  value.kind = declared.kind;  // a tensor, or a present optional tensor
  return value;
}

Result<RuntimeValue> read_value_file(const std::filesystem::path& path, const TensorDesc& declared) {
  const std::string extension = lower_extension(path);
  if (extension != ".npy" && extension != ".pb") {
    return invalid_argument("cannot read '" + path.string() +
                            "': expected a .npy (NumPy) file or a .pb (ONNX TensorProto, SequenceProto or "
                            "OptionalProto) file");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return not_found("file '" + path.string() + "' does not exist or is not a regular file");
  }
  if (extension == ".pb") return onnx_common::read_value_file(path, declared);
  GE_ASSIGN_OR_RETURN(Tensor tensor, read_npy(path));
  return value_from_tensor(std::move(tensor), declared, "'" + path.string() + "'");
}

Status write_value_file(const std::filesystem::path& path, const RuntimeValue& value, const std::string& name) {
  return onnx_common::write_value_file(value, path, name);
}

}  // namespace ge::tools
