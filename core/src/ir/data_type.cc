// Element types (ge/data_type.h): names, sizes and validity.
#include "ge/data_type.h"

#include <array>
#include <string>
#include <utility>

namespace ge {
namespace {

struct TypeEntry {
  DataType type;
  std::string_view name;
  size_t size;
};

constexpr std::array<TypeEntry, 24> kTypes = {{
    {DataType::kUndefined, "undefined", 0},
    {DataType::kFloat32, "float32", 4},
    {DataType::kUInt8, "uint8", 1},
    {DataType::kInt8, "int8", 1},
    {DataType::kUInt16, "uint16", 2},
    {DataType::kInt16, "int16", 2},
    {DataType::kInt32, "int32", 4},
    {DataType::kInt64, "int64", 8},
    {DataType::kString, "string", sizeof(std::string)},
    {DataType::kBool, "bool", 1},
    {DataType::kFloat16, "float16", 2},
    {DataType::kFloat64, "float64", 8},
    {DataType::kUInt32, "uint32", 4},
    {DataType::kUInt64, "uint64", 8},
    {DataType::kComplex64, "complex64", 8},
    {DataType::kComplex128, "complex128", 16},
    {DataType::kBFloat16, "bfloat16", 2},
    {DataType::kFloat8E4M3FN, "float8e4m3fn", 1},
    {DataType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 1},
    {DataType::kFloat8E5M2, "float8e5m2", 1},
    {DataType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 1},
    {DataType::kUInt4, "uint4", 1},
    {DataType::kInt4, "int4", 1},
    {DataType::kFloat4E2M1, "float4e2m1", 1},
}};

}  // namespace

bool is_valid_data_type(int32_t value) { return value >= 0 && value < static_cast<int32_t>(kTypes.size()); }

size_t element_size(DataType type) {
  auto index = static_cast<int32_t>(type);
  return is_valid_data_type(index) ? kTypes[index].size : 0;
}

std::string_view data_type_name(DataType type) {
  auto index = static_cast<int32_t>(type);
  return is_valid_data_type(index) ? kTypes[index].name : "invalid";
}

std::optional<DataType> data_type_from_name(std::string_view name) {
  for (const auto& entry : kTypes) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

}  // namespace ge
