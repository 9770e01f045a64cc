#pragma once
// Checks shared by the quantized Conv and MatMul kernels. Internal to the kernel library.

#include <cstdint>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

/// A quantization parameter input (scale or zero point): one element, or, when `extent`
/// > 0, `extent` elements in 1-D (per output channel, row or column). Absent (index < 0
/// or not given) is fine. Returns whether it holds `extent` elements; errors name the
/// input and the shapes it may have.
Result<bool> check_quantization_parameter(const KernelContext& context, int index, const char* name, DataType dtype,
                                          int64_t extent);

/// Where scale input `index` (float32, float16 or bfloat16) is a constant, every element
/// must be finite and > 0 (x / 0 and a negative or NaN scale quantize nothing sensible);
/// the error names the input, the element and its value. Runtime scales are not checked.
Status check_scale_values(const KernelContext& context, int index, const char* name);

}  // namespace ge::reference_kernels
