#pragma once
// The 4- and 8-bit element types (float8 E4M3FN/E4M3FNUZ/E5M2/E5M2FNUZ, float4 E2M1,
// int4, uint4) as the kernels see them: one byte per element (ge/minifloat.h), read as a
// double and written from one by their dtype. Internal to the kernel library.

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "ge/data_type.h"
#include "ge/minifloat.h"

namespace ge::reference_kernels {

/// The dtypes whose elements are one-byte codes: copy kernels move them as uint8.
inline std::vector<DataType> narrow_types() {
  return {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ,
          DataType::kUInt4,        DataType::kInt4,           DataType::kFloat4E2M1};
}

inline bool is_narrow_type(DataType dtype) {
  return is_minifloat(dtype) || dtype == DataType::kInt4 || dtype == DataType::kUInt4;
}

/// Reads and writes the elements of one narrow dtype.
struct NarrowCodec {
  MinifloatFormat format{};
  bool is_float = false;   // float8/float4, else int4/uint4
  bool is_signed = false;  // int4
  bool saturate = true;    // float8 overflow: the largest finite value (else inf or NaN)

  /// `dtype` must be a narrow type; `saturate` is Cast's and QuantizeLinear's attribute.
  static NarrowCodec of(DataType dtype, bool saturate = true) {
    NarrowCodec codec;
    if (std::optional<MinifloatFormat> format = minifloat_format(dtype)) {
      codec.format = *format;
      codec.is_float = true;
    }
    codec.is_signed = dtype == DataType::kInt4;
    codec.saturate = saturate;
    return codec;
  }

  double decode(uint8_t code) const {
    if (is_float) return minifloat_to_float(code, format);
    return is_signed ? static_cast<double>(static_cast<int8_t>(code)) : static_cast<double>(code);
  }

  /// Floats round to nearest even (ONNX Cast); int4/uint4 clip to their range, then round
  /// half to even (ONNX's np.rint(np.clip(x, lo, hi))), NaN giving 0.
  uint8_t encode(double value) const {
    if (is_float) return float_to_minifloat(value, format, saturate);
    if (std::isnan(value)) return 0;
    const auto integer = static_cast<int>(std::nearbyint(int4_clip(value, is_signed)));
    return static_cast<uint8_t>(static_cast<int8_t>(integer));
  }
};

}  // namespace ge::reference_kernels
