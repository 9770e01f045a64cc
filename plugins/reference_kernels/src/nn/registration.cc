// The nn family: convolutions, matrix products, Softmax, Resize, attention and the other layers.
#include "nn/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_nn_family_kernels(std::vector<OpKernel>& table) {
  add_conv_kernels(table);
  add_gemm_kernels(table);
  add_matmul_kernels(table);
  add_softmax_kernels(table);
  add_nn_resize_kernels(table);
  add_nn_conv_transpose_kernels(table);
  add_nn_deform_conv_kernels(table);
  add_nn_col2im_kernels(table);
  add_nn_grid_sample_kernels(table);
  add_nn_affine_grid_kernels(table);
  add_nn_attention_kernels(table);
  add_nn_rotary_embedding_kernels(table);
  add_nn_dropout_kernels(table);
}

}  // namespace ge::reference_kernels
