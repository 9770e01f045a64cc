#pragma once
// The detection family's registration functions, one per source file that adds ops to the
// kernel table; detection/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

void add_non_max_suppression_kernels(std::vector<OpKernel>& table);  // NonMaxSuppression

}  // namespace ge::reference_kernels::special

namespace ge::reference_kernels {

void add_nn_roi_align_kernels(std::vector<OpKernel>& table);     // RoiAlign
void add_nn_max_roi_pool_kernels(std::vector<OpKernel>& table);  // MaxRoiPool

}  // namespace ge::reference_kernels
