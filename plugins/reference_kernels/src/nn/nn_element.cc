#include "nn/nn_element.h"

namespace ge::reference_kernels::nn {

double load_as_double(const void* data, DataType dtype, int64_t index) {
  switch (dtype) {
    case DataType::kFloat16:
      return load(static_cast<const Half*>(data)[index]);
    case DataType::kBFloat16:
      return load(static_cast<const BFloat16*>(data)[index]);
    case DataType::kFloat32:
      return static_cast<const float*>(data)[index];
    case DataType::kFloat64:
      return static_cast<const double*>(data)[index];
    case DataType::kInt8:
      return static_cast<const int8_t*>(data)[index];
    case DataType::kInt16:
      return static_cast<const int16_t*>(data)[index];
    case DataType::kInt32:
      return static_cast<const int32_t*>(data)[index];
    case DataType::kInt64:
      return static_cast<double>(static_cast<const int64_t*>(data)[index]);
    case DataType::kUInt8:
      return static_cast<const uint8_t*>(data)[index];
    case DataType::kUInt16:
      return static_cast<const uint16_t*>(data)[index];
    case DataType::kUInt32:
      return static_cast<const uint32_t*>(data)[index];
    case DataType::kUInt64:
      return static_cast<double>(static_cast<const uint64_t*>(data)[index]);
    case DataType::kBool:
      return static_cast<const bool*>(data)[index] ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

void store_from_double(void* data, DataType dtype, int64_t index, double value) {
  switch (dtype) {
    case DataType::kFloat16:
      static_cast<Half*>(data)[index] = store<Half>(value);
      break;
    case DataType::kBFloat16:
      static_cast<BFloat16*>(data)[index] = store<BFloat16>(value);
      break;
    case DataType::kFloat32:
      static_cast<float*>(data)[index] = store<float>(value);
      break;
    case DataType::kFloat64:
      static_cast<double*>(data)[index] = value;
      break;
    case DataType::kInt8:
      static_cast<int8_t*>(data)[index] = store<int8_t>(value);
      break;
    case DataType::kInt16:
      static_cast<int16_t*>(data)[index] = store<int16_t>(value);
      break;
    case DataType::kInt32:
      static_cast<int32_t*>(data)[index] = store<int32_t>(value);
      break;
    case DataType::kInt64:
      static_cast<int64_t*>(data)[index] = store<int64_t>(value);
      break;
    case DataType::kUInt8:
      static_cast<uint8_t*>(data)[index] = store<uint8_t>(value);
      break;
    case DataType::kUInt16:
      static_cast<uint16_t*>(data)[index] = store<uint16_t>(value);
      break;
    case DataType::kUInt32:
      static_cast<uint32_t*>(data)[index] = store<uint32_t>(value);
      break;
    case DataType::kUInt64:
      static_cast<uint64_t*>(data)[index] = store<uint64_t>(value);
      break;
    case DataType::kBool:
      static_cast<bool*>(data)[index] = value != 0.0;
      break;
    default:
      break;
  }
}

bool is_floating_dtype(DataType dtype) {
  return dtype == DataType::kFloat16 || dtype == DataType::kBFloat16 || dtype == DataType::kFloat32 ||
         dtype == DataType::kFloat64;
}

}  // namespace ge::reference_kernels::nn
