#pragma once
/// Compares a computed output with an expected one the way numpy.allclose does.

#include <string>

#include "ge/runtime_value.h"
#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::tools {

struct TensorComparison {
  bool matches = false;
  /// Largest |actual - expected| over all elements (infinite when a NaN or an infinity
  /// meets a different value); 0 for empty, string or mismatched-type tensors.
  double max_abs_error = 0;
  int64_t mismatched_elements = 0;
  /// Why it does not match (dtype, shape, or the first differing element); empty if it does.
  std::string detail;
};

/// Element-wise |actual - expected| <= atol + rtol * |expected|, with NaN equal to NaN and
/// infinities equal to the same infinity; integers and bools compare as numbers, strings
/// exactly. dtype and shape must be equal. kUnsupported for complex types.
Result<TensorComparison> compare_tensors(const Tensor& actual, const Tensor& expected, double rtol, double atol);

/// compare_tensors over values: the kinds must agree (an empty optional matches only an
/// empty one), sequences element by element (the same length, each element compared;
/// the errors and counts summed, `detail` naming the first differing element).
Result<TensorComparison> compare_values(const RuntimeValue& actual, const RuntimeValue& expected, double rtol,
                                        double atol);

}  // namespace ge::tools
