// The fused family: gE's fused ops and autofusion's groups, interpreted.
#include "fused/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_fused_family_kernels(std::vector<OpKernel>& table) {
  add_fused_kernels(table);
  add_autofuse_kernels(table);
}

}  // namespace ge::reference_kernels
