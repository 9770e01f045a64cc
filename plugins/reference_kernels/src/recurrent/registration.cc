// The recurrent family: recurrent layers.
#include "recurrent/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_recurrent_family_kernels(std::vector<OpKernel>& table) { special::add_recurrent_kernels(table); }

}  // namespace ge::reference_kernels
