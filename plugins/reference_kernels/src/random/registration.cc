// The random family: random generators.
#include "random/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_random_family_kernels(std::vector<OpKernel>& table) { special::add_random_kernels(table); }

}  // namespace ge::reference_kernels
