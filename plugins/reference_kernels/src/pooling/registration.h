#pragma once
// The pooling family's registration functions, one per source file that adds ops to the
// kernel table; pooling/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_max_pool_kernels(std::vector<OpKernel>& table);       // MaxPool
void add_average_pool_kernels(std::vector<OpKernel>& table);   // AveragePool
void add_global_pool_kernels(std::vector<OpKernel>& table);    // GlobalAveragePool GlobalMaxPool GlobalLpPool
void add_nn_lp_pool_kernels(std::vector<OpKernel>& table);     // LpPool
void add_nn_max_unpool_kernels(std::vector<OpKernel>& table);  // MaxUnpool

}  // namespace ge::reference_kernels
