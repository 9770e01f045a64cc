// The sequence kernel family: registers its ops (see op_kernels.h).
#include "op_kernels.h"

namespace ge::cpu_kernels {

void add_sequence_family_kernels(std::vector<OpKernel>& table) { (void)table; }

}  // namespace ge::cpu_kernels
