#include "tensor/tensor_common.h"

#include <limits>
#include <string>

#include "common/narrow_element.h"

namespace ge::reference_kernels::tensor {

std::vector<DataType> copy_types() {
  std::vector<DataType> types = all_fixed_size_types();
  // The 4- and 8-bit types are one byte per element: select_copy moves them as Bytes<1>.
  for (DataType narrow : narrow_types()) types.push_back(narrow);
  types.push_back(DataType::kString);
  return types;
}

namespace {

template <typename T>
void put(unsigned char* out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

}  // namespace

bool encode_scalar(DataType dtype, double value, unsigned char* out) {
  // Integers go through int64 so that a negative value wraps into an unsigned type
  // instead of being an undefined float-to-unsigned conversion.
  const int64_t whole = std::isfinite(value) && std::fabs(value) < 9.2e18 ? static_cast<int64_t>(value) : 0;
  if (is_narrow_type(dtype)) {
    put(out, NarrowCodec::of(dtype).encode(value));  // float8/float4 saturate; int4/uint4 clip
    return true;
  }
  switch (dtype) {
    case DataType::kFloat32:
      put(out, static_cast<float>(value));
      return true;
    case DataType::kFloat64:
      put(out, value);
      return true;
    case DataType::kFloat16:
      put(out, float16_from_float(static_cast<float>(value)));
      return true;
    case DataType::kBFloat16:
      put(out, bfloat16_from_float(static_cast<float>(value)));
      return true;
    case DataType::kInt8:
      put(out, static_cast<int8_t>(whole));
      return true;
    case DataType::kInt16:
      put(out, static_cast<int16_t>(whole));
      return true;
    case DataType::kInt32:
      put(out, static_cast<int32_t>(whole));
      return true;
    case DataType::kInt64:
      put(out, whole);
      return true;
    case DataType::kUInt8:
      put(out, static_cast<uint8_t>(whole));
      return true;
    case DataType::kUInt16:
      put(out, static_cast<uint16_t>(whole));
      return true;
    case DataType::kUInt32:
      put(out, static_cast<uint32_t>(whole));
      return true;
    case DataType::kUInt64:
      put(out, static_cast<uint64_t>(whole));
      return true;
    case DataType::kBool:
      put(out, static_cast<uint8_t>(value != 0.0 ? 1 : 0));
      return true;
    default:
      return false;
  }
}

Status check_index_dtype(const KernelContext& context, size_t index, std::string_view role) {
  const DataType dtype = input_dtype(context, index);
  if (dtype == DataType::kInt32 || dtype == DataType::kInt64) return Status::ok();
  return unsupported_feature(context, "input " + std::to_string(index) + " (" + std::string(role) + ") of dtype " +
                                          std::string(data_type_name(dtype)) + " (supported: int32, int64)");
}

Result<int64_t> input_element_count(const KernelContext& context, size_t index) {
  if (!has_input(context, index)) return int64_t{0};
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, index));
  return product(dims);
}

std::optional<std::vector<int64_t>> constant_ints(const KernelContext& context, size_t index) {
  const Value* value = context.node.input(index);
  if (value == nullptr || value->constant() == nullptr) return std::nullopt;
  Result<std::vector<int64_t>> values = value->constant()->to_int64_vector();
  if (!values.is_ok()) return std::nullopt;
  return std::move(values).value();
}

namespace {

template <typename F>
int64_t float_to_int64(F value) {
  if (std::isnan(value)) return 0;
  const double truncated = std::trunc(static_cast<double>(value));
  if (truncated <= static_cast<double>(std::numeric_limits<int64_t>::lowest())) {
    return std::numeric_limits<int64_t>::lowest();
  }
  if (truncated >= static_cast<double>(std::numeric_limits<int64_t>::max())) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(truncated);
}

}  // namespace

int64_t read_as_int64(const void* data, DataType dtype, int64_t i) {
  switch (dtype) {
    case DataType::kFloat32:
      return float_to_int64(static_cast<const float*>(data)[i]);
    case DataType::kFloat64:
      return float_to_int64(static_cast<const double*>(data)[i]);
    case DataType::kFloat16:
      return float_to_int64(float16_to_float(static_cast<const uint16_t*>(data)[i]));
    case DataType::kBFloat16:
      return float_to_int64(bfloat16_to_float(static_cast<const uint16_t*>(data)[i]));
    case DataType::kInt8:
      return static_cast<const int8_t*>(data)[i];
    case DataType::kInt16:
      return static_cast<const int16_t*>(data)[i];
    case DataType::kInt32:
      return static_cast<const int32_t*>(data)[i];
    case DataType::kInt64:
      return static_cast<const int64_t*>(data)[i];
    case DataType::kUInt8:
    case DataType::kBool:
      return static_cast<const uint8_t*>(data)[i];
    case DataType::kUInt16:
      return static_cast<const uint16_t*>(data)[i];
    case DataType::kUInt32:
      return static_cast<const uint32_t*>(data)[i];
    case DataType::kUInt64: {
      const uint64_t value = static_cast<const uint64_t*>(data)[i];
      return value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                                : static_cast<int64_t>(value);
    }
    default:
      return 0;
  }
}

bool is_readable_as_int64(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUInt8:
    case DataType::kBool:
    case DataType::kUInt16:
    case DataType::kUInt32:
    case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

Status check_rank(const KernelContext& context, size_t rank, std::string_view what) {
  if (rank <= static_cast<size_t>(kMaxRank)) return Status::ok();
  return unsupported_feature(
      context, std::string(what) + " of rank " + std::to_string(rank) + " (at most " + std::to_string(kMaxRank) + ")");
}

Index to_index(const std::vector<int64_t>& values) {
  Index index{};
  for (size_t i = 0; i < values.size() && i < index.size(); ++i) index[i] = values[i];
  return index;
}

Index strides_of(const std::vector<int64_t>& dims) {
  Index strides{};
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    if (i < strides.size()) strides[i] = stride;
    stride *= dims[i];
  }
  return strides;
}

StridedView coalesced(const StridedView& view) {
  StridedView out;
  out.offset = view.offset;
  for (int d = 0; d < view.rank; ++d) {
    if (view.dims[d] == 1) continue;
    if (out.rank > 0 && out.strides[out.rank - 1] == view.strides[d] * view.dims[d]) {
      out.dims[out.rank - 1] *= view.dims[d];  // the previous dim steps over exactly this one
      out.strides[out.rank - 1] = view.strides[d];
      continue;
    }
    out.dims[out.rank] = view.dims[d];
    out.strides[out.rank] = view.strides[d];
    ++out.rank;
  }
  return out;
}

}  // namespace ge::reference_kernels::tensor
