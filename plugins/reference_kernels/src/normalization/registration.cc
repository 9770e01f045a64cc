// The normalization family: the normalisations.
#include "normalization/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_normalization_family_kernels(std::vector<OpKernel>& table) {
  add_batch_normalization_kernels(table);
  add_nn_layer_normalization_kernels(table);
  add_nn_instance_normalization_kernels(table);
  add_nn_group_normalization_kernels(table);
  add_nn_rms_normalization_kernels(table);
  add_nn_mean_variance_normalization_kernels(table);
  add_nn_lp_normalization_kernels(table);
  add_nn_lrn_kernels(table);
}

}  // namespace ge::reference_kernels
