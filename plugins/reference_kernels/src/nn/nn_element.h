#pragma once
// Element types of the nn kernel family: float16/bfloat16 as bit-pattern structs computed
// in float, loads and stores that convert every element type through double, and the
// family's type lists (dispatched with dtype_dispatch.h). Internal to the kernel library.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ge/data_type.h"
#include "ge/plugin_api/kernel.h"
#include "ge/reference_kernels/half_float.h"
#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::nn {

using Half = reference_kernels::Float16;
using reference_kernels::float16_from_float;
using reference_kernels::float16_to_float;
using reference_kernels::BFloat16;
using reference_kernels::bfloat16_from_float;
using reference_kernels::bfloat16_to_float;

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
/// Floating point in the ONNX sense: float16, bfloat16, float32, float64.
template <typename T>
inline constexpr bool is_floating_v = is_half_v<T> || std::is_floating_point_v<T>;

using element::load;

/// `value` as an element of T: floating types round (float16/bfloat16 through float);
/// integers round half to even and saturate (NaN gives 0).
template <typename T>
inline T store(double value) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{float16_from_float(static_cast<float>(value))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{bfloat16_from_float(static_cast<float>(value))};
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return value != 0.0;
  } else {
    if (std::isnan(value)) return T(0);
    const double rounded = std::nearbyint(value);
    if (rounded <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(rounded);
  }
}

/// Reads element `index` of a buffer of any numeric dtype as double (parameter inputs
/// whose dtype may differ from X's: a float16 scale on a float32 BatchNormalization).
double load_as_double(const void* data, DataType dtype, int64_t index);
/// Writes `value` to element `index` of a buffer of any numeric dtype (as store<T>).
void store_from_double(void* data, DataType dtype, int64_t index, double value);

// The nn family lists the 16-bit floats first (the order its messages name dtypes in).
using FloatingTypes = TypeList<Half, BFloat16, float, double>;
using AllNumericTypes =
    TypeList<Half, BFloat16, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

/// Whether `dtype` is one of float16, bfloat16, float32, float64.
bool is_floating_dtype(DataType dtype);

}  // namespace ge::reference_kernels::nn
