#pragma once
/// ONNX test-data values beyond a single tensor: SequenceProto, OptionalProto and MapProto
/// files (the input_K.pb / output_K.pb of ONNX test cases), read as the kind of value a
/// model declares and written back in the same format. Shared by ge-run and ge-conformance.

#include <filesystem>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>
// After onnx_pb.h, which defines ONNX_API.
#include <onnx/onnx-data.pb.h>

#include "ge/runtime_value.h"
#include "ge/status.h"
#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge::onnx_common {

/// The ONNX test generator stores bfloat16 data as uint16 bit patterns (numpy has no
/// bfloat16): where `declared` is bfloat16, a uint16 tensor is relabelled bfloat16 (same
/// bits). Any other tensor is returned unchanged.
Tensor as_declared_bfloat16(Tensor tensor, DataType declared);

/// The inverse, for writing data the way the test data stores it: a bfloat16 tensor
/// becomes uint16 with the same bits; any other tensor is returned unchanged.
Tensor bfloat16_as_uint16(Tensor tensor);

/// A SequenceProto of tensors → its elements (external data resolved against `base_dir`).
/// kUnsupported for sequences of sequences, maps or optionals.
Result<std::vector<Tensor>> tensors_from_sequence_proto(const onnx::SequenceProto& proto,
                                                        const std::filesystem::path& base_dir = {});
/// Elements → a SequenceProto of tensors named `name`.
onnx::SequenceProto sequence_to_proto(const std::vector<Tensor>& items, const std::string& name = {});

/// An OptionalProto → a RuntimeValue of kind kOptional (a tensor, or empty) or
/// kOptionalSequence. An empty one takes its kind from `declared` (an OptionalProto
/// without a value need not say what it would hold). kUnsupported for optional maps and
/// nested optionals; kInvalidArgument when the held kind contradicts a declared one.
Result<RuntimeValue> value_from_optional_proto(const onnx::OptionalProto& proto, const TensorDesc& declared,
                                               const std::filesystem::path& base_dir = {});
/// A kOptional / kOptionalSequence value → an OptionalProto named `name`.
onnx::OptionalProto optional_to_proto(const RuntimeValue& value, const std::string& name = {});

/// A map from a MapProto: its keys (an int64/int32/... tensor, or strings) and one
/// tensor per key. GE's runtime holds no maps; this is for reading and writing files.
struct MapValue {
  Tensor keys;                 ///< rank 1, one element per entry
  std::vector<Tensor> values;  ///< values[i] belongs to keys[i]
};
/// kParseError when keys and values differ in count or the key type is not an integer
/// or string type; kUnsupported for values that are not tensors.
Result<MapValue> map_from_proto(const onnx::MapProto& proto, const std::filesystem::path& base_dir = {});
onnx::MapProto map_to_proto(const MapValue& map, const std::string& name = {});

/// Reads a test-data file as the kind of value `declared` describes: a TensorProto for a
/// tensor, a SequenceProto for a sequence, an OptionalProto for an optional. A uint16
/// tensor where bfloat16 is declared is read as bfloat16. Errors name the file; a file
/// that is not the expected message is kParseError saying what it seems to hold instead
/// (protobuf would often parse one message as another: bytes with fields the expected
/// message lacks are refused).
Result<RuntimeValue> read_value_file(const std::filesystem::path& path, const TensorDesc& declared);

/// Parses `bytes` (the contents of `path`, used for messages and external data) as
/// read_value_file does.
Result<RuntimeValue> parse_value(const std::string& bytes, const std::filesystem::path& path,
                                 const TensorDesc& declared);

/// Writes `value` in the format read_value_file reads: a TensorProto, a SequenceProto or
/// an OptionalProto named `name`. bfloat16 tensors are written as uint16 bit patterns,
/// as the ONNX test data stores them.
Status write_value_file(const RuntimeValue& value, const std::filesystem::path& path, const std::string& name = {});

}  // namespace ge::onnx_common
