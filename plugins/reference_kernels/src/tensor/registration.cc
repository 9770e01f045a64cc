// The tensor family: copies, layout, indexing, shapes, reductions, Pad, TopK, ....
#include "tensor/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_tensor_family_kernels(std::vector<OpKernel>& table) {
  add_copy_kernels(table);
  add_transpose_kernels(table);
  add_concat_kernels(table);
  add_trans_data_kernels(table);
  tensor::add_shape_kernels(table);
  tensor::add_slice_kernels(table);
  tensor::add_split_kernels(table);
  tensor::add_gather_kernels(table);
  tensor::add_scatter_kernels(table);
  tensor::add_broadcast_kernels(table);
  tensor::add_pad_kernels(table);
  tensor::add_one_hot_kernels(table);
  tensor::add_non_zero_kernels(table);
  tensor::add_compress_kernels(table);
  tensor::add_unique_kernels(table);
  tensor::add_top_k_kernels(table);
  tensor::add_arg_extreme_kernels(table);
  tensor::add_reduce_kernels(table);
  tensor::add_cum_sum_kernels(table);
  tensor::add_trilu_kernels(table);
  tensor::add_depth_space_kernels(table);
  tensor::add_reverse_sequence_kernels(table);
  tensor::add_einsum_kernels(table);
  tensor::add_det_kernels(table);
  tensor::add_center_crop_pad_kernels(table);
}

}  // namespace ge::reference_kernels
