// The quantization family: quantising ops and the integer convolutions and matrix products.
#include "quantization/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_quantization_family_kernels(std::vector<OpKernel>& table) {
  add_nn_quantize_kernels(table);
  add_nn_quantized_conv_kernels(table);
  add_nn_quantized_matmul_kernels(table);
  add_nn_quantized_add_kernels(table);
}

}  // namespace ge::reference_kernels
