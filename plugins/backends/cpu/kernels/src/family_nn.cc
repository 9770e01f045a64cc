// The nn kernel family: registers its ops (see op_kernels.h and nn_kernels.h).
#include "nn_kernels.h"
#include "op_kernels.h"

namespace ge::cpu_kernels {

void add_nn_family_kernels(std::vector<OpKernel>& table) {
  add_nn_resize_kernels(table);
  add_nn_conv_transpose_kernels(table);
  add_nn_quantized_conv_kernels(table);
  add_nn_quantized_matmul_kernels(table);
  add_nn_quantize_kernels(table);
  add_nn_quantized_add_kernels(table);
  add_nn_layer_normalization_kernels(table);
  add_nn_instance_normalization_kernels(table);
  add_nn_lrn_kernels(table);
  add_nn_mean_variance_normalization_kernels(table);
  add_nn_lp_normalization_kernels(table);
  add_nn_global_pool_kernels(table);
  add_nn_lp_pool_kernels(table);
  add_nn_max_unpool_kernels(table);
  add_nn_roi_align_kernels(table);
  add_nn_max_roi_pool_kernels(table);
  add_nn_grid_sample_kernels(table);
  add_nn_dropout_kernels(table);
  add_nn_col2im_kernels(table);
  add_nn_group_normalization_kernels(table);
  add_nn_rms_normalization_kernels(table);
  add_nn_rotary_embedding_kernels(table);
  add_nn_affine_grid_kernels(table);
  add_nn_attention_kernels(table);
  add_nn_deform_conv_kernels(table);
}

}  // namespace ge::cpu_kernels
