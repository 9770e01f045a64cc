#pragma once
/// Element types. The numbering is ONNX's TensorProto.DataType so that parsers and model
/// files convert by value.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ge {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  // Held one element per byte (float4/int4 in the low bits, int4 sign-extended); ONNX
  // files pack the 4-bit types two to a byte, and the ONNX reader/writer (un)packs them.
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
};

/// Bytes per element; 0 for kUndefined. kString reports sizeof(std::string): string
/// tensors hold constructed std::string objects.
size_t element_size(DataType type);

/// Lower-case name as used in text IR and messages: "float32", "int64", "bool", ...
std::string_view data_type_name(DataType type);

/// Inverse of data_type_name; nullopt for an unknown name.
std::optional<DataType> data_type_from_name(std::string_view name);

/// True when `value` is one of the enumerators above.
bool is_valid_data_type(int32_t value);

template <typename T>
constexpr DataType data_type_of();
template <> constexpr DataType data_type_of<float>() { return DataType::kFloat32; }
template <> constexpr DataType data_type_of<double>() { return DataType::kFloat64; }
template <> constexpr DataType data_type_of<int8_t>() { return DataType::kInt8; }
template <> constexpr DataType data_type_of<int16_t>() { return DataType::kInt16; }
template <> constexpr DataType data_type_of<int32_t>() { return DataType::kInt32; }
template <> constexpr DataType data_type_of<int64_t>() { return DataType::kInt64; }
template <> constexpr DataType data_type_of<uint8_t>() { return DataType::kUInt8; }
template <> constexpr DataType data_type_of<uint16_t>() { return DataType::kUInt16; }
template <> constexpr DataType data_type_of<uint32_t>() { return DataType::kUInt32; }
template <> constexpr DataType data_type_of<uint64_t>() { return DataType::kUInt64; }
template <> constexpr DataType data_type_of<bool>() { return DataType::kBool; }

}  // namespace ge
