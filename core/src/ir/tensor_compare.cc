// Comparing a computed tensor with an expected one (ge/tensor_compare.h).
#include "ge/tensor_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include "ge/tensor_desc.h"

namespace ge {
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

/// One element's verdict: whether it matches, and its |difference|.
struct ElementCheck {
  bool close = true;
  double error = 0;
};

ElementCheck check_floating(double got, double want, const Tolerance& tolerance) {
  const double infinity = std::numeric_limits<double>::infinity();
  if (std::isnan(got) || std::isnan(want)) {
    const bool close = std::isnan(got) && std::isnan(want);
    return {close, close ? 0 : infinity};
  }
  if (std::isinf(got) || std::isinf(want)) return {got == want, got == want ? 0 : infinity};
  const double error = std::fabs(got - want);
  return {error <= tolerance.atol + tolerance.rtol * std::fabs(want), error};
}

/// Walks the `count` elements of two equally shaped tensors: `check(i)` gives an
/// ElementCheck, `describe(i)` explains the first element that does not match.
template <typename Check, typename Describe>
TensorComparison compare_elements(const Tensor& expected, int64_t count, Check check, Describe describe) {
  TensorComparison result;
  for (int64_t i = 0; i < count; ++i) {
    const ElementCheck element = check(i);
    result.max_abs_error = std::max(result.max_abs_error, element.error);
    if (element.close) continue;
    if (result.mismatched_elements++ == 0) result.first_mismatch = i;
  }
  result.matches = result.mismatched_elements == 0;
  if (!result.matches) {
    result.detail = std::to_string(result.mismatched_elements) + " of " + std::to_string(count) +
                    " elements differ; first at " + multi_index(expected.shape(), result.first_mismatch) + ": " +
                    describe(result.first_mismatch);
  }
  return result;
}

/// Part `part` (0 real, 1 imaginary) of complex element `i`; element `i` as double otherwise.
double floating_part(const Tensor& tensor, int64_t i, int part) {
  switch (tensor.dtype()) {
    case DataType::kComplex64: return tensor.data<float>()[2 * i + part];
    case DataType::kComplex128: return tensor.data<double>()[2 * i + part];
    default: return tensor.scalar_as_double(i);
  }
}

TensorComparison compare_floating(const Tensor& actual, const Tensor& expected, int64_t count,
                                  const Tolerance& tolerance) {
  const bool complex = expected.dtype() == DataType::kComplex64 || expected.dtype() == DataType::kComplex128;
  const int parts = complex ? 2 : 1;
  auto check_part = [&](int64_t i, int part) {
    return check_floating(floating_part(actual, i, part), floating_part(expected, i, part), tolerance);
  };
  return compare_elements(
      expected, count,
      [&](int64_t i) {
        ElementCheck element;
        for (int part = 0; part < parts; ++part) {
          const ElementCheck one = check_part(i, part);
          element.close = element.close && one.close;
          element.error = std::max(element.error, one.error);
        }
        return element;
      },
      [&](int64_t i) {
        int part = 0;
        while (part + 1 < parts && check_part(i, part).close) ++part;
        const double got = floating_part(actual, i, part);
        const double want = floating_part(expected, i, part);
        std::string text = "got " + number(got) + ", expected " + number(want);
        if (complex) text += part == 0 ? " (real part)" : " (imaginary part)";
        return text + " (|diff| " + number(check_part(i, part).error) + " > " +
               number(tolerance.atol + tolerance.rtol * std::fabs(want)) + ")";
      });
}

template <typename T>
TensorComparison compare_exact(const Tensor& actual, const Tensor& expected, int64_t count) {
  const T* got = actual.data<T>();
  const T* want = expected.data<T>();
  return compare_elements(
      expected, count,
      [&](int64_t i) -> ElementCheck {
        if constexpr (std::is_same_v<T, std::string>) {
          return {got[i] == want[i], 0};
        } else {
          return {got[i] == want[i], std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]))};
        }
      },
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
  return compare_elements(
      expected, count,
      [&](int64_t i) -> ElementCheck {
        const bool same = (got[i] != 0) == (want[i] != 0);
        return {same, same ? 0.0 : 1.0};
      },
      [&](int64_t i) { return "got " + name(got[i]) + ", expected " + name(want[i]); });
}

}  // namespace

TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance) {
  TensorComparison mismatch;
  if (actual.dtype() != expected.dtype()) {
    mismatch.detail = "dtype " + std::string(data_type_name(actual.dtype())) + " but expected " +
                      std::string(data_type_name(expected.dtype()));
    return mismatch;
  }
  if (actual.shape() != expected.shape()) {
    mismatch.detail =
        "shape " + shape_to_string(actual.shape()) + " but expected " + shape_to_string(expected.shape());
    return mismatch;
  }
  const int64_t count = expected.element_count();
  if (count > 0 && (actual.raw_data() == nullptr || expected.raw_data() == nullptr)) {
    mismatch.detail = "a non-empty tensor has no data";
    return mismatch;
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
    case DataType::kFloat4E2M1: return compare_floating(actual, expected, count, tolerance);
    case DataType::kInt4:
    case DataType::kInt8: return compare_exact<int8_t>(actual, expected, count);
    case DataType::kInt16: return compare_exact<int16_t>(actual, expected, count);
    case DataType::kInt32: return compare_exact<int32_t>(actual, expected, count);
    case DataType::kInt64: return compare_exact<int64_t>(actual, expected, count);
    case DataType::kUInt4:
    case DataType::kUInt8: return compare_exact<uint8_t>(actual, expected, count);
    case DataType::kUInt16: return compare_exact<uint16_t>(actual, expected, count);
    case DataType::kUInt32: return compare_exact<uint32_t>(actual, expected, count);
    case DataType::kUInt64: return compare_exact<uint64_t>(actual, expected, count);
    case DataType::kBool: return compare_bool(actual, expected, count);
    case DataType::kString: return compare_exact<std::string>(actual, expected, count);
    case DataType::kUndefined: break;
  }
  mismatch.detail = "cannot compare tensors of dtype " + std::string(data_type_name(expected.dtype()));
  return mismatch;
}

TensorComparison compare_values(const RuntimeValue& actual, const RuntimeValue& expected, const Tolerance& tolerance) {
  TensorComparison comparison;
  if (actual.has_element != expected.has_element) {
    comparison.detail = std::string("optional is ") + (actual.has_element ? "present" : "empty") + ", expected " +
                        (expected.has_element ? "present" : "empty");
    return comparison;
  }
  if (actual.holds_sequence() != expected.holds_sequence()) {
    comparison.detail = "got " + actual.to_string() + ", expected " + expected.to_string();
    return comparison;
  }
  if (!expected.has_element) {
    comparison.matches = true;
    return comparison;
  }
  if (!expected.holds_sequence()) return compare_tensors(actual.tensor, expected.tensor, tolerance);
  if (actual.sequence.size() != expected.sequence.size()) {
    comparison.detail = "the sequence has " + std::to_string(actual.sequence.size()) + " elements, expected " +
                        std::to_string(expected.sequence.size());
    return comparison;
  }
  comparison.matches = true;
  for (size_t i = 0; i < expected.sequence.size(); ++i) {
    const TensorComparison element = compare_tensors(actual.sequence[i], expected.sequence[i], tolerance);
    comparison.max_abs_error = std::max(comparison.max_abs_error, element.max_abs_error);
    comparison.mismatched_elements += element.mismatched_elements;
    if (!element.matches && comparison.matches) {
      comparison.detail = "sequence element " + std::to_string(i) + ": " + element.detail;
    }
    comparison.matches = comparison.matches && element.matches;
  }
  return comparison;
}

}  // namespace ge
