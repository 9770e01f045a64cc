#include "tensor_compare.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ge/tensor_desc.h"

namespace ge::conformance {
namespace {

/// "[0,3]" for flat index 3 of shape [1,10].
std::string multi_index(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) break;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_to_string(index);
}

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

bool close_enough(double got, double want, const Tolerance& tolerance) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tolerance.atol + tolerance.rtol * std::fabs(want);
}

/// Counts differing elements of two equally shaped tensors; `describe(i)` explains the first.
template <typename Equal, typename Describe>
TensorComparison count_differences(const Tensor& expected, int64_t count, Equal equal, Describe describe) {
  TensorComparison result;
  int64_t differing = 0;
  std::string first;
  for (int64_t i = 0; i < count; ++i) {
    if (equal(i)) continue;
    if (differing++ == 0) first = "first at " + multi_index(expected.shape(), i) + ": " + describe(i);
  }
  result.matches = differing == 0;
  if (!result.matches) {
    result.detail = std::to_string(differing) + " of " + std::to_string(count) + " elements differ; " + first;
  }
  return result;
}

/// Floating-point element `i` (component `i` for complex types) as double.
double float_element(const Tensor& tensor, int64_t i) {
  switch (tensor.dtype()) {
    case DataType::kFloat16:
      return half_to_float(tensor.data<uint16_t>()[i]);
    case DataType::kBFloat16:
      return bfloat16_to_float(tensor.data<uint16_t>()[i]);
    case DataType::kFloat32:
    case DataType::kComplex64:
      return tensor.data<float>()[i];
    case DataType::kFloat64:
    case DataType::kComplex128:
      return tensor.data<double>()[i];
    default:  // float8, float4
      return tensor.scalar_as_double(i);
  }
}

template <typename T>
TensorComparison compare_exact(const Tensor& actual, const Tensor& expected, int64_t count) {
  const T* got = actual.data<T>();
  const T* want = expected.data<T>();
  return count_differences(
      expected, count, [&](int64_t i) { return got[i] == want[i]; },
      [&](int64_t i) {
        if constexpr (std::is_same_v<T, std::string>) {
          return "got \"" + got[i] + "\", expected \"" + want[i] + "\"";
        } else {
          return "got " + std::to_string(got[i]) + ", expected " + std::to_string(want[i]);
        }
      });
}

TensorComparison compare_bool(const Tensor& actual, const Tensor& expected, int64_t count) {
  // Read as bytes: any non-zero byte is true, whatever a kernel stored.
  const auto* got = static_cast<const uint8_t*>(actual.raw_data());
  const auto* want = static_cast<const uint8_t*>(expected.raw_data());
  auto name = [](uint8_t byte) { return std::string(byte != 0 ? "true" : "false"); };
  return count_differences(
      expected, count, [&](int64_t i) { return (got[i] != 0) == (want[i] != 0); },
      [&](int64_t i) { return "got " + name(got[i]) + ", expected " + name(want[i]); });
}

TensorComparison compare_floating(const Tensor& actual, const Tensor& expected, int64_t count,
                                  const Tolerance& tolerance) {
  const bool complex = expected.dtype() == DataType::kComplex64 || expected.dtype() == DataType::kComplex128;
  const int64_t components = complex ? 2 * count : count;
  return count_differences(
      expected, components,
      [&](int64_t i) { return close_enough(float_element(actual, i), float_element(expected, i), tolerance); },
      [&](int64_t i) {
        const double got = float_element(actual, i);
        const double want = float_element(expected, i);
        std::string text = "got " + number(got) + ", expected " + number(want);
        if (complex) text += i % 2 == 0 ? " (real part)" : " (imaginary part)";
        return text + " (tolerance " + number(tolerance.atol + tolerance.rtol * std::fabs(want)) + ")";
      });
}

}  // namespace

float half_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance) {
  if (actual.dtype() != expected.dtype()) {
    return {false, "dtype " + std::string(data_type_name(actual.dtype())) + " but expected " +
                       std::string(data_type_name(expected.dtype()))};
  }
  if (actual.shape() != expected.shape()) {
    return {false, "shape " + shape_to_string(actual.shape()) + " but expected " + shape_to_string(expected.shape())};
  }
  const int64_t count = expected.element_count();
  if (count > 0 && (actual.raw_data() == nullptr || expected.raw_data() == nullptr)) {
    return {false, "a non-empty tensor has no data"};
  }
  switch (expected.dtype()) {
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kComplex64:
    case DataType::kComplex128:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1:
      return compare_floating(actual, expected, count, tolerance);
    case DataType::kInt4:
      return compare_exact<int8_t>(actual, expected, count);
    case DataType::kUInt4:
      return compare_exact<uint8_t>(actual, expected, count);
    case DataType::kInt8:
      return compare_exact<int8_t>(actual, expected, count);
    case DataType::kInt16:
      return compare_exact<int16_t>(actual, expected, count);
    case DataType::kInt32:
      return compare_exact<int32_t>(actual, expected, count);
    case DataType::kInt64:
      return compare_exact<int64_t>(actual, expected, count);
    case DataType::kUInt8:
      return compare_exact<uint8_t>(actual, expected, count);
    case DataType::kUInt16:
      return compare_exact<uint16_t>(actual, expected, count);
    case DataType::kUInt32:
      return compare_exact<uint32_t>(actual, expected, count);
    case DataType::kUInt64:
      return compare_exact<uint64_t>(actual, expected, count);
    case DataType::kBool:
      return compare_bool(actual, expected, count);
    case DataType::kString:
      return compare_exact<std::string>(actual, expected, count);
    case DataType::kUndefined:
      break;
  }
  return {false, "cannot compare tensors of dtype " + std::string(data_type_name(expected.dtype()))};
}

}  // namespace ge::conformance
