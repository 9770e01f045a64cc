// The signal family: signal processing.
#include "signal/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_signal_family_kernels(std::vector<OpKernel>& table) {
  special::add_fourier_kernels(table);
  special::add_window_kernels(table);
}

}  // namespace ge::reference_kernels
