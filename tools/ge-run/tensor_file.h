#pragma once
/// Tensors in files, as ge-run reads inputs and writes outputs: .npy (NumPy) and .pb (an
/// ONNX TensorProto, the format of ONNX test data's input_K.pb / output_K.pb).

#include <filesystem>
#include <string>

#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::tools {

/// Reads a tensor from `path`, chosen by extension (.npy or .pb, any case). kNotFound when
/// the file is missing, kInvalidArgument for another extension, the decoder's error
/// (naming the file) when the contents are bad.
Result<Tensor> read_tensor_file(const std::filesystem::path& path);

/// Reads an ONNX TensorProto file; external data resolves against the file's folder.
Result<Tensor> read_tensor_proto_file(const std::filesystem::path& path);

/// Writes `tensor` as an ONNX TensorProto named `name` to `path`.
Status write_tensor_proto_file(const std::filesystem::path& path, const Tensor& tensor, const std::string& name);

}  // namespace ge::tools
