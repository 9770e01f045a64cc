#include "output_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "ge/tensor_desc.h"

namespace ge::tools {
namespace {

// Every numeric dtype as double (float8/float4 decoded, int4 as its value); NaN for strings.
double element(const Tensor& tensor, int64_t i) { return tensor.scalar_as_double(i); }

/// "[0,3]" for flat index 3 of shape [1,10].
std::string multi_index(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
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

}  // namespace

Result<TensorComparison> compare_tensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  TensorComparison result;
  if (actual.dtype() != expected.dtype()) {
    result.detail = "dtype " + std::string(data_type_name(actual.dtype())) + " but expected " +
                    std::string(data_type_name(expected.dtype()));
    return result;
  }
  if (actual.shape() != expected.shape()) {
    result.detail = "shape " + shape_to_string(actual.shape()) + " but expected " + shape_to_string(expected.shape());
    return result;
  }
  const DataType type = actual.dtype();
  if (type == DataType::kComplex64 || type == DataType::kComplex128 || type == DataType::kUndefined) {
    return unsupported("cannot compare " + std::string(data_type_name(type)) + " tensors");
  }
  const int64_t count = actual.element_count();
  if (type == DataType::kString) {
    for (int64_t i = 0; i < count; ++i) {
      if (actual.data<std::string>()[i] == expected.data<std::string>()[i]) continue;
      if (result.mismatched_elements++ == 0) {
        result.detail = "first at " + multi_index(actual.shape(), i) + ": got \"" + actual.data<std::string>()[i] +
                        "\", expected \"" + expected.data<std::string>()[i] + "\"";
      }
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      const double got = element(actual, i);
      const double want = element(expected, i);
      double error = 0;
      bool close = true;
      if (std::isnan(got) || std::isnan(want)) {
        close = std::isnan(got) && std::isnan(want);
        error = close ? 0 : std::numeric_limits<double>::infinity();
      } else if (std::isinf(got) || std::isinf(want)) {
        close = got == want;
        error = close ? 0 : std::numeric_limits<double>::infinity();
      } else {
        error = std::fabs(got - want);
        close = error <= atol + rtol * std::fabs(want);
      }
      if (error > result.max_abs_error) result.max_abs_error = error;
      if (close) continue;
      if (result.mismatched_elements++ == 0) {
        result.detail = "first at " + multi_index(actual.shape(), i) + ": got " + number(got) + ", expected " +
                        number(want) + " (|diff| " + number(error) + " > " + number(atol + rtol * std::fabs(want)) +
                        ")";
      }
    }
  }
  result.matches = result.mismatched_elements == 0;
  if (!result.matches) {
    result.detail = std::to_string(result.mismatched_elements) + " of " + std::to_string(count) + " elements differ; " +
                    result.detail;
  }
  return result;
}

Result<TensorComparison> compare_values(const RuntimeValue& actual, const RuntimeValue& expected, double rtol,
                                        double atol) {
  TensorComparison comparison;
  if (actual.holds_sequence() != expected.holds_sequence() || actual.has_element != expected.has_element ||
      (actual.kind == ValueKind::kTensor) != (expected.kind == ValueKind::kTensor)) {
    comparison.detail = "got " + actual.to_string() + ", expected " + expected.to_string();
    return comparison;
  }
  if (!expected.has_element) {
    comparison.matches = true;
    return comparison;
  }
  if (!expected.holds_sequence()) return compare_tensors(actual.tensor, expected.tensor, rtol, atol);
  if (actual.sequence.size() != expected.sequence.size()) {
    comparison.detail = "the sequence has " + std::to_string(actual.sequence.size()) + " elements, expected " +
                        std::to_string(expected.sequence.size());
    return comparison;
  }
  comparison.matches = true;
  for (size_t i = 0; i < expected.sequence.size(); ++i) {
    GE_ASSIGN_OR_RETURN(TensorComparison element,
                        compare_tensors(actual.sequence[i], expected.sequence[i], rtol, atol));
    comparison.max_abs_error = std::max(comparison.max_abs_error, element.max_abs_error);
    comparison.mismatched_elements += element.mismatched_elements;
    if (!element.matches && comparison.matches) {
      comparison.detail = "sequence element " + std::to_string(i) + ": " + element.detail;
    }
    comparison.matches = comparison.matches && element.matches;
  }
  return comparison;
}

}  // namespace ge::tools
