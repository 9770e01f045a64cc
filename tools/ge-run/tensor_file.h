#pragma once
/// Values in files, as ge-run reads inputs and writes outputs: .npy (NumPy) and .pb (the
/// ONNX test-data formats of input_K.pb / output_K.pb: a TensorProto, or a SequenceProto or
/// OptionalProto where the model declares a sequence or an optional).

#include <filesystem>
#include <string>

#include "ge/runtime_value.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge::tools {

/// Reads a tensor from `path`, chosen by extension (.npy or .pb, any case). kNotFound when
/// the file is missing, kInvalidArgument for another extension, the decoder's error
/// (naming the file) when the contents are bad.
Result<Tensor> read_tensor_file(const std::filesystem::path& path);

/// Reads an ONNX TensorProto file; external data resolves against the file's folder.
Result<Tensor> read_tensor_proto_file(const std::filesystem::path& path);

/// Writes `tensor` as an ONNX TensorProto named `name` to `path`.
Status write_tensor_proto_file(const std::filesystem::path& path, const Tensor& tensor, const std::string& name);

/// `tensor` as a value of the kind `declared` describes: a tensor, or a present optional
/// tensor; uint16 data where bfloat16 is declared becomes bfloat16 (the ONNX test data's
/// and numpy's way of storing it). kInvalidArgument, naming the data as `source` says
/// ("'x.npy'", "--input a.npz (array 'x')"), for a sequence.
Result<RuntimeValue> value_from_tensor(Tensor tensor, const TensorDesc& declared, const std::string& source);

/// Reads a value of the kind `declared` describes from `path`: a .npy holds a tensor (see
/// value_from_tensor), a .pb the ONNX test-data message for that kind (see
/// onnx_common::read_value_file). kNotFound for a missing file, kInvalidArgument for
/// another extension, the decoder's error (naming the file) for bad contents.
Result<RuntimeValue> read_value_file(const std::filesystem::path& path, const TensorDesc& declared);

/// Writes `value` named `name` as the ONNX test data does: a TensorProto, a SequenceProto
/// or an OptionalProto, bfloat16 tensors as uint16 bit patterns.
Status write_value_file(const std::filesystem::path& path, const RuntimeValue& value, const std::string& name);

}  // namespace ge::tools
