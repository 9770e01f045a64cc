#pragma once
// The tensor family's registration functions, one per source file that adds ops to the
// kernel table; tensor/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_copy_kernels(std::vector<OpKernel>& table);        // Reshape Flatten Identity Squeeze Unsqueeze
void add_transpose_kernels(std::vector<OpKernel>& table);   // Transpose
void add_concat_kernels(std::vector<OpKernel>& table);      // Concat
void add_trans_data_kernels(std::vector<OpKernel>& table);  // ge::TransData (format reorders)

}  // namespace ge::reference_kernels

namespace ge::reference_kernels::tensor {

void add_shape_kernels(std::vector<OpKernel>& table);             // Shape Size ConstantOfShape EyeLike Range
void add_slice_kernels(std::vector<OpKernel>& table);             // Slice
void add_split_kernels(std::vector<OpKernel>& table);             // Split
void add_gather_kernels(std::vector<OpKernel>& table);            // Gather GatherElements GatherND
void add_scatter_kernels(std::vector<OpKernel>& table);           // Scatter ScatterElements ScatterND
void add_broadcast_kernels(std::vector<OpKernel>& table);         // Expand Tile
void add_pad_kernels(std::vector<OpKernel>& table);               // Pad
void add_one_hot_kernels(std::vector<OpKernel>& table);           // OneHot
void add_non_zero_kernels(std::vector<OpKernel>& table);          // NonZero
void add_compress_kernels(std::vector<OpKernel>& table);          // Compress
void add_unique_kernels(std::vector<OpKernel>& table);            // Unique
void add_top_k_kernels(std::vector<OpKernel>& table);             // TopK
void add_arg_extreme_kernels(std::vector<OpKernel>& table);       // ArgMax ArgMin
void add_reduce_kernels(std::vector<OpKernel>& table);            // Reduce*
void add_cum_sum_kernels(std::vector<OpKernel>& table);           // CumSum
void add_trilu_kernels(std::vector<OpKernel>& table);             // Trilu
void add_depth_space_kernels(std::vector<OpKernel>& table);       // DepthToSpace SpaceToDepth
void add_reverse_sequence_kernels(std::vector<OpKernel>& table);  // ReverseSequence
void add_einsum_kernels(std::vector<OpKernel>& table);            // Einsum
void add_det_kernels(std::vector<OpKernel>& table);               // Det
void add_center_crop_pad_kernels(std::vector<OpKernel>& table);   // CenterCropPad

}  // namespace ge::reference_kernels::tensor
