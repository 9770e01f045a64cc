#pragma once
// Helpers the special-purpose families' kernels share (see special_kernels.h): element
// reading and writing over the float16/bfloat16 structs (half_float.h) and arithmetic
// types, the dtype lists they dispatch over, reading an integer scalar input at launch,
// and the families' launch error codes. Internal to the kernel library; the nested
// namespace keeps these names apart from other families' helpers.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ge/reference_kernels/half_float.h"
#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

// Float16, BFloat16 and their conversions come from the enclosing namespace (half_float.h).
using element::load;

/// Converts a double to one element of type T (float16/bfloat16 round to nearest even,
/// bool is value != 0, integers truncate as a C cast does).
template <typename T>
T store(double value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16{float16_from_float(static_cast<float>(value))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{bfloat16_from_float(static_cast<float>(value))};
  } else if constexpr (std::is_same_v<T, bool>) {
    return value != 0.0;
  } else {
    return static_cast<T>(value);
  }
}

using RealTypes = TypeList<Float16, float, double, BFloat16>;
using RealAndIntegerTypes = TypeList<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                                     uint16_t, uint32_t, uint64_t>;
using RealIntegerAndBoolTypes = TypeList<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t,
                                         uint8_t, uint16_t, uint32_t, uint64_t, bool>;

/// Reads element `index` of an int32 or int64 tensor at `data`.
inline int64_t load_index(const void* data, DataType dtype, int64_t index) {
  if (dtype == DataType::kInt32) return static_cast<const int32_t*>(data)[index];
  return static_cast<const int64_t*>(data)[index];
}

/// Address of input `index` at launch, or null when the node has no such input: the
/// argument block holds one slot per node input, so a trailing omitted optional input
/// has no slot at all. `count` is the node's input count, recorded at prepare.
inline const void* optional_input(const KernelArgs& args, size_t count, size_t index) {
  return index < count ? args.inputs[index] : nullptr;
}
/// Same for outputs.
inline void* optional_output(const KernelArgs& args, size_t count, size_t index) {
  return index < count ? args.outputs[index] : nullptr;
}

/// Launch error codes of the special-purpose families: the library's codes, by their family names.
constexpr int kSequenceLengthOutOfRange = kKernelSequenceLengthOutOfRange;
constexpr int kClassIndexOutOfRange = kKernelClassIndexOutOfRange;
constexpr int kRuntimeSizeMismatch = kKernelRuntimeSizeMismatch;
constexpr int kInvalidRuntimeValue = kKernelInvalidRuntimeValue;

}  // namespace ge::reference_kernels::special
