#pragma once
// The normalization family's registration functions, one per source file that adds ops to the
// kernel table; normalization/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_batch_normalization_kernels(std::vector<OpKernel>& table);             // BatchNormalization
void add_nn_layer_normalization_kernels(std::vector<OpKernel>& table);          // LayerNormalization
void add_nn_instance_normalization_kernels(std::vector<OpKernel>& table);       // InstanceNormalization
void add_nn_group_normalization_kernels(std::vector<OpKernel>& table);          // GroupNormalization
void add_nn_rms_normalization_kernels(std::vector<OpKernel>& table);            // RMSNormalization
void add_nn_mean_variance_normalization_kernels(std::vector<OpKernel>& table);  // MeanVarianceNormalization
void add_nn_lp_normalization_kernels(std::vector<OpKernel>& table);             // LpNormalization
void add_nn_lrn_kernels(std::vector<OpKernel>& table);                          // LRN

}  // namespace ge::reference_kernels
