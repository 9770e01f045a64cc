#pragma once
// Launch codes of the Cast kernels: kernel_library.h's KernelError, by their family names.

#include "ge/reference_kernels/kernel_library.h"

namespace ge::reference_kernels::math {

/// A string element of a Cast from string is not a number of the target type.
inline constexpr int kKernelCastUnparsableString = reference_kernels::kKernelCastUnparsableString;

}  // namespace ge::reference_kernels::math
