#pragma once
// The recurrent family's registration functions, one per source file that adds ops to the
// kernel table; recurrent/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

void add_recurrent_kernels(std::vector<OpKernel>& table);  // RNN GRU LSTM

}  // namespace ge::reference_kernels::special
