// The pooling family: every pooling op, windowed and global.
#include "pooling/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_pooling_family_kernels(std::vector<OpKernel>& table) {
  add_max_pool_kernels(table);
  add_average_pool_kernels(table);
  add_global_pool_kernels(table);
  add_nn_lp_pool_kernels(table);
  add_nn_max_unpool_kernels(table);
}

}  // namespace ge::reference_kernels
