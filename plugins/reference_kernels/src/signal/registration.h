#pragma once
// The signal family's registration functions, one per source file that adds ops to the
// kernel table; signal/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

void add_fourier_kernels(std::vector<OpKernel>& table);  // DFT STFT
void add_window_kernels(std::vector<OpKernel>& table);   // HannWindow HammingWindow BlackmanWindow MelWeightMatrix

}  // namespace ge::reference_kernels::special
