#pragma once
/// Compares a computed tensor (or runtime value) with an expected one, numpy.allclose
/// style. One comparison for every checker: the pass manager's check mode, ge-run's
/// --expected and the ONNX conformance runner.

#include <cstdint>
#include <string>

#include "ge/runtime_value.h"
#include "ge/tensor.h"

namespace ge {

/// An element matches when |actual - expected| <= atol + rtol * |expected|.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

struct TensorComparison {
  bool matches = false;
  /// Elements that differ (a complex element differs when either part does); for values,
  /// summed over the sequence.
  int64_t mismatched_elements = 0;
  /// Flat index of the first differing element; -1 when none differs, when dtype or shape
  /// already differ, and for values.
  int64_t first_mismatch = -1;
  /// Largest |actual - expected| over the elements (infinite where a NaN or an infinity
  /// meets a different value); 0 for strings and when dtype or shape differ.
  double max_abs_error = 0;
  /// Why it does not match: the dtype, the shape, or "N of M elements differ; first at
  /// [i,j]: got X, expected Y ..."; empty when it matches.
  std::string detail;
};

/// dtype and shape must be equal. Floating types (float16, bfloat16, float32, float64,
/// float8, float4 and both parts of complex64/128) match within `tolerance`, NaN matching
/// NaN and an infinity only the same infinity. Integers (int4 too) must be equal exactly,
/// compared in their own type so that int64/uint64 lose nothing; bools by truth value;
/// strings byte for byte. Never fails: a dtype it cannot compare is a mismatch that says so.
TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance);

/// compare_tensors over runtime values: an empty optional matches only an empty one, a
/// sequence only a sequence of the same length whose elements all match (`detail` names
/// the first differing element: "sequence element 2: ...").
TensorComparison compare_values(const RuntimeValue& actual, const RuntimeValue& expected, const Tolerance& tolerance);

}  // namespace ge
