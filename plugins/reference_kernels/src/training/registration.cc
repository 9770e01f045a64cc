// The training family: losses and training optimizers.
#include "training/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_training_family_kernels(std::vector<OpKernel>& table) {
  special::add_loss_kernels(table);
  special::add_optimizer_kernels(table);
}

}  // namespace ge::reference_kernels
