#include "ge/onnx_common/value_proto.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

#include "ge/atomic_file.h"
#include "ge/onnx_common/tensor_proto.h"

namespace ge::onnx_common {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLooksLikeTensor = "it looks like a TensorProto";

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

const char* kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kTensor: return "a tensor";
    case ValueKind::kSequence: return "a sequence";
    case ValueKind::kOptional: return "an optional tensor";
    case ValueKind::kOptionalSequence: return "an optional sequence";
  }
  return "a value";
}

const char* element_kind_name(int32_t elem_type) {
  switch (elem_type) {
    case onnx::SequenceProto::TENSOR: return "tensors";
    case onnx::SequenceProto::SPARSE_TENSOR: return "sparse tensors";
    case onnx::SequenceProto::SEQUENCE: return "sequences";
    case onnx::SequenceProto::MAP: return "maps";
    case onnx::SequenceProto::OPTIONAL: return "optionals";
    default: return "values of an unknown kind";
  }
}

/// Parses `bytes` as `Message`, refusing bytes that carry fields `Message` does not have:
/// protobuf parses one test-data message as another more often than not, so a
/// SequenceProto read as a TensorProto shows up only as unknown fields.
template <typename Message>
bool parse_strictly(const std::string& bytes, Message& message) {
  return message.ParseFromString(bytes) && message.unknown_fields().empty();
}

/// What `bytes` seem to hold, for a message saying the file is not what the model declares.
std::string guess_contents(const std::string& bytes) {
  // Other messages parse as a TensorProto with a segment (their field 3): try them first then.
  onnx::TensorProto tensor;
  const bool tensor_parses = parse_strictly(bytes, tensor) && tensor.has_data_type();
  if (tensor_parses && !tensor.has_segment()) return kLooksLikeTensor;
  onnx::MapProto map;
  if (parse_strictly(bytes, map) && map.has_key_type() && map.has_values()) return "it holds a MapProto";
  onnx::SequenceProto sequence;
  if (parse_strictly(bytes, sequence) && sequence.has_elem_type()) return "it looks like a SequenceProto";
  onnx::OptionalProto optional;
  if (parse_strictly(bytes, optional) && optional.has_elem_type()) return "it looks like an OptionalProto";
  if (tensor_parses) return kLooksLikeTensor;
  return "it is none of TensorProto, SequenceProto, OptionalProto, MapProto";
}

Status not_the_declared_kind(const std::string& bytes, const fs::path& path, const std::string& message,
                             const TensorDesc& declared) {
  std::string guess = guess_contents(bytes);
  if (guess == "it holds a MapProto") guess += " (GE's runtime holds no maps)";
  return parse_error(quoted(path) + " is not a serialized ONNX " + message + " (" + guess + "); the model declares " +
                     kind_name(declared.kind) + " " + declared.to_string());
}

Result<Tensor> tensor_from(const onnx::TensorProto& proto, const fs::path& base_dir, DataType declared) {
  GE_ASSIGN_OR_RETURN(Tensor tensor, tensor_from_proto(proto, base_dir));
  return as_declared_bfloat16(std::move(tensor), declared);
}

Result<std::vector<Tensor>> sequence_items(const onnx::SequenceProto& proto, const fs::path& base_dir,
                                           DataType declared) {
  GE_ASSIGN_OR_RETURN(std::vector<Tensor> items, tensors_from_sequence_proto(proto, base_dir));
  for (Tensor& item : items) item = as_declared_bfloat16(std::move(item), declared);
  return items;
}

Result<std::string> read_bytes(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error))
    return not_found("file " + quoted(path) + " does not exist or is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open " + quoted(path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return invalid_argument("error while reading " + quoted(path));
  return bytes;
}

Status write_message(const google::protobuf::MessageLite& message, const fs::path& path) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) return invalid_argument("cannot serialise the value for " + quoted(path));
  return write_file_atomically(path, bytes);
}

}  // namespace

Tensor as_declared_bfloat16(Tensor tensor, DataType declared) {
  if (declared != DataType::kBFloat16 || tensor.dtype() != DataType::kUInt16) return tensor;
  Tensor relabelled = Tensor::zeros(DataType::kBFloat16, tensor.shape());
  std::copy_n(tensor.data<uint16_t>(), tensor.element_count(), relabelled.data<uint16_t>());
  return relabelled;
}

Tensor bfloat16_as_uint16(Tensor tensor) {
  if (tensor.dtype() != DataType::kBFloat16) return tensor;
  Tensor relabelled = Tensor::zeros(DataType::kUInt16, tensor.shape());
  std::copy_n(tensor.data<uint16_t>(), tensor.element_count(), relabelled.data<uint16_t>());
  return relabelled;
}

Result<std::vector<Tensor>> tensors_from_sequence_proto(const onnx::SequenceProto& proto, const fs::path& base_dir) {
  const int32_t elem_type = proto.elem_type();
  if (elem_type != onnx::SequenceProto::TENSOR && elem_type != onnx::SequenceProto::UNDEFINED) {
    return unsupported("a sequence of " + std::string(element_kind_name(elem_type)) +
                       " is not supported (GE's sequences hold tensors)");
  }
  if (proto.sparse_tensor_values_size() + proto.sequence_values_size() + proto.map_values_size() +
          proto.optional_values_size() >
      0) {
    return unsupported("the sequence holds non-tensor elements (GE's sequences hold tensors)");
  }
  std::vector<Tensor> items;
  items.reserve(static_cast<size_t>(proto.tensor_values_size()));
  for (int i = 0; i < proto.tensor_values_size(); ++i) {
    Result<Tensor> item = tensor_from_proto(proto.tensor_values(i), base_dir);
    if (!item.is_ok()) return item.status().with_context("sequence element " + std::to_string(i));
    if (!items.empty() && item->dtype() != items.front().dtype()) {
      return parse_error("sequence element " + std::to_string(i) + " is " + std::string(data_type_name(item->dtype())) +
                         " but element 0 is " + std::string(data_type_name(items.front().dtype())) +
                         " (a sequence's elements share one type)");
    }
    items.push_back(std::move(item).value());
  }
  return items;
}

onnx::SequenceProto sequence_to_proto(const std::vector<Tensor>& items, const std::string& name) {
  onnx::SequenceProto proto;
  if (!name.empty()) proto.set_name(name);
  proto.set_elem_type(onnx::SequenceProto::TENSOR);
  for (const Tensor& item : items) *proto.add_tensor_values() = tensor_to_proto(item);
  return proto;
}

Result<RuntimeValue> value_from_optional_proto(const onnx::OptionalProto& proto, const TensorDesc& declared,
                                               const fs::path& base_dir) {
  const int32_t elem_type = proto.elem_type();
  if (proto.has_sparse_tensor_value() || proto.has_map_value() || proto.has_optional_value() ||
      elem_type == onnx::OptionalProto::SPARSE_TENSOR || elem_type == onnx::OptionalProto::MAP ||
      elem_type == onnx::OptionalProto::OPTIONAL) {
    return unsupported("an optional of " + std::string(element_kind_name(elem_type)) +
                       " is not supported (GE's optionals hold a tensor or a sequence)");
  }
  const bool declared_optional = declared.kind == ValueKind::kOptional || declared.kind == ValueKind::kOptionalSequence;
  auto contradicts = [&](ValueKind held) {
    return declared_optional && declared.kind != held
               ? invalid_argument(std::string("the optional holds ") +
                                  (held == ValueKind::kOptional ? "a tensor" : "a sequence") +
                                  " but the model declares " + declared.to_string())
               : Status::ok();
  };
  if (proto.has_tensor_value()) {
    GE_RETURN_IF_ERROR(contradicts(ValueKind::kOptional));
    GE_ASSIGN_OR_RETURN(Tensor tensor, tensor_from(proto.tensor_value(), base_dir, declared.dtype));
    RuntimeValue value = RuntimeValue::of(std::move(tensor));
    value.kind = ValueKind::kOptional;
    return value;
  }
  if (proto.has_sequence_value()) {
    GE_RETURN_IF_ERROR(contradicts(ValueKind::kOptionalSequence));
    GE_ASSIGN_OR_RETURN(std::vector<Tensor> items, sequence_items(proto.sequence_value(), base_dir, declared.dtype));
    const DataType element_type = items.empty() ? declared.dtype : items.front().dtype();
    RuntimeValue value = RuntimeValue::of_sequence(std::move(items), element_type);
    value.kind = ValueKind::kOptionalSequence;
    return value;
  }
  // Empty: the declared kind, else what elem_type says (a tensor when it says nothing).
  ValueKind kind = elem_type == onnx::OptionalProto::SEQUENCE ? ValueKind::kOptionalSequence : ValueKind::kOptional;
  if (declared_optional) kind = declared.kind;
  return RuntimeValue::empty_optional(kind, declared.dtype);
}

onnx::OptionalProto optional_to_proto(const RuntimeValue& value, const std::string& name) {
  onnx::OptionalProto proto;
  if (!name.empty()) proto.set_name(name);
  const bool sequence = value.kind == ValueKind::kOptionalSequence || value.kind == ValueKind::kSequence;
  proto.set_elem_type(sequence ? onnx::OptionalProto::SEQUENCE : onnx::OptionalProto::TENSOR);
  if (!value.has_element) return proto;
  if (sequence) {
    std::vector<Tensor> items;
    for (const Tensor& item : value.sequence) items.push_back(bfloat16_as_uint16(item));
    *proto.mutable_sequence_value() = sequence_to_proto(items);
  } else {
    *proto.mutable_tensor_value() = tensor_to_proto(bfloat16_as_uint16(value.tensor));
  }
  return proto;
}

Result<MapValue> map_from_proto(const onnx::MapProto& proto, const fs::path& base_dir) {
  const std::string label = proto.name().empty() ? std::string("map") : "map '" + proto.name() + "'";
  if (!proto.has_key_type()) return parse_error(label + " has no key_type");
  GE_ASSIGN_OR_RETURN(DataType key_type, data_type_from_onnx(proto.key_type()));
  MapValue map;
  size_t count = 0;
  if (key_type == DataType::kString) {
    if (proto.keys_size() > 0) return parse_error(label + " has string keys but holds integer keys too");
    std::vector<std::string> keys(proto.string_keys().begin(), proto.string_keys().end());
    count = keys.size();
    map.keys = Tensor::from_strings({static_cast<int64_t>(count)}, keys);
  } else {
    const bool integer = key_type == DataType::kInt8 || key_type == DataType::kInt16 || key_type == DataType::kInt32 ||
                         key_type == DataType::kInt64 || key_type == DataType::kUInt8 ||
                         key_type == DataType::kUInt16 || key_type == DataType::kUInt32 ||
                         key_type == DataType::kUInt64;
    if (!integer) {
      return parse_error(label + " has key_type " + std::string(data_type_name(key_type)) +
                         "; ONNX map keys are integers or strings");
    }
    if (proto.string_keys_size() > 0) return parse_error(label + " has integer keys but holds string keys too");
    count = static_cast<size_t>(proto.keys_size());
    Tensor keys = Tensor::zeros(DataType::kInt64, {static_cast<int64_t>(count)});
    std::copy(proto.keys().begin(), proto.keys().end(), keys.data<int64_t>());
    map.keys = std::move(keys);
  }
  Result<std::vector<Tensor>> values = tensors_from_sequence_proto(proto.values(), base_dir);
  if (!values.is_ok()) return values.status().with_context(label + " values");
  map.values = std::move(values).value();
  if (map.values.size() != count) {
    return parse_error(label + " has " + std::to_string(count) + " keys but " + std::to_string(map.values.size()) +
                       " values");
  }
  return map;
}

onnx::MapProto map_to_proto(const MapValue& map, const std::string& name) {
  onnx::MapProto proto;
  if (!name.empty()) proto.set_name(name);
  if (map.keys.dtype() == DataType::kString) {
    proto.set_key_type(onnx::TensorProto::STRING);
    for (const std::string& key : map.keys.values<std::string>()) proto.add_string_keys(key);
  } else {
    proto.set_key_type(onnx::TensorProto::INT64);
    for (int64_t i = 0; i < map.keys.element_count(); ++i) proto.add_keys(map.keys.scalar_as_int64(i));
  }
  *proto.mutable_values() = sequence_to_proto(map.values);
  return proto;
}

Result<RuntimeValue> parse_value(const std::string& bytes, const fs::path& path, const TensorDesc& declared) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  const fs::path base_dir = error ? path.parent_path() : absolute.parent_path();
  auto in_file = [&](const Status& status) { return status.with_context(quoted(path)); };

  if (declared.kind == ValueKind::kTensor) {
    onnx::TensorProto proto;
    if (!parse_strictly(bytes, proto) || (proto.has_segment() && guess_contents(bytes) != kLooksLikeTensor)) {
      return not_the_declared_kind(bytes, path, "TensorProto", declared);
    }
    Result<Tensor> tensor = tensor_from(proto, base_dir, declared.dtype);
    if (!tensor.is_ok()) return in_file(tensor.status());
    return RuntimeValue::of(std::move(tensor).value());
  }
  if (declared.kind == ValueKind::kSequence) {
    onnx::SequenceProto proto;
    if (!parse_strictly(bytes, proto)) return not_the_declared_kind(bytes, path, "SequenceProto", declared);
    Result<std::vector<Tensor>> items = sequence_items(proto, base_dir, declared.dtype);
    if (!items.is_ok()) return in_file(items.status());
    const DataType element_type = items->empty() ? declared.dtype : items->front().dtype();
    return RuntimeValue::of_sequence(std::move(items).value(), element_type);
  }
  onnx::OptionalProto proto;
  if (!parse_strictly(bytes, proto)) return not_the_declared_kind(bytes, path, "OptionalProto", declared);
  Result<RuntimeValue> value = value_from_optional_proto(proto, declared, base_dir);
  if (!value.is_ok()) return in_file(value.status());
  return value;
}

Result<RuntimeValue> read_value_file(const fs::path& path, const TensorDesc& declared) {
  GE_ASSIGN_OR_RETURN(std::string bytes, read_bytes(path));
  return parse_value(bytes, path, declared);
}

Status write_value_file(const RuntimeValue& value, const fs::path& path, const std::string& name) {
  switch (value.kind) {
    case ValueKind::kTensor: return write_message(tensor_to_proto(bfloat16_as_uint16(value.tensor), name), path);
    case ValueKind::kSequence: {
      std::vector<Tensor> items;
      items.reserve(value.sequence.size());
      for (const Tensor& item : value.sequence) items.push_back(bfloat16_as_uint16(item));
      return write_message(sequence_to_proto(items, name), path);
    }
    case ValueKind::kOptional:
    case ValueKind::kOptionalSequence: return write_message(optional_to_proto(value, name), path);
  }
  return internal_error("write_value_file: unknown value kind");
}

}  // namespace ge::onnx_common
