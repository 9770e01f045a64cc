#pragma once
// Launch codes of the Cast kernels beyond kernel_library.h's KernelError.

namespace ge::cpu_kernels::math {

/// A string element of a Cast from string is not a number of the target type.
inline constexpr int kKernelCastUnparsableString = 100;

}  // namespace ge::cpu_kernels::math
