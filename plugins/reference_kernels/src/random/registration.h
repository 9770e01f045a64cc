#pragma once
// The random family's registration functions, one per source file that adds ops to the
// kernel table; random/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

void add_random_kernels(std::vector<OpKernel>& table);  // RandomUniform(Like) RandomNormal(Like) Bernoulli Multinomial

}  // namespace ge::reference_kernels::special
