#pragma once
/// Compares a computed output with the expected one of an ONNX test case.

#include <string>

#include "ge/tensor.h"

namespace ge::conformance {

/// numpy.allclose-style tolerance for floating-point outputs.
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-5;
};

struct TensorComparison {
  bool matches = false;
  /// Why not (dtype, shape, or how many elements differ and the first one); empty if it matches.
  std::string detail;
};

/// dtype and shape must be equal. Floating types (float16, bfloat16, float32, float64 and
/// the parts of complex64/128) match when |actual - expected| <= atol + rtol * |expected|,
/// NaN matching NaN and an infinity only the same infinity. Integers and bools must be
/// equal exactly (compared in their own type, so int64/uint64 lose nothing), strings
/// byte for byte.
TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance);

/// binary16 bits → float (exact).
float half_to_float(uint16_t bits);
/// bfloat16 bits → float (exact).
float bfloat16_to_float(uint16_t bits);

}  // namespace ge::conformance
