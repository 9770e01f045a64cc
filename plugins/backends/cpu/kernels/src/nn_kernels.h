#pragma once
// Registration functions of the nn kernel family's files; family_nn.cc calls them all.

#include <vector>

#include "kernel_util.h"

namespace ge::cpu_kernels {

void add_nn_resize_kernels(std::vector<OpKernel>& table);                 // Resize Upsample
void add_nn_conv_transpose_kernels(std::vector<OpKernel>& table);         // ConvTranspose
void add_nn_quantized_conv_kernels(std::vector<OpKernel>& table);         // ConvInteger QLinearConv
void add_nn_quantized_matmul_kernels(std::vector<OpKernel>& table);       // MatMulInteger QLinearMatMul
void add_nn_quantize_kernels(std::vector<OpKernel>& table);               // (De)QuantizeLinear DynamicQuantizeLinear
void add_nn_quantized_add_kernels(std::vector<OpKernel>& table);          // ge::QLinearAdd
void add_nn_layer_normalization_kernels(std::vector<OpKernel>& table);    // LayerNormalization
void add_nn_instance_normalization_kernels(std::vector<OpKernel>& table); // InstanceNormalization
void add_nn_lrn_kernels(std::vector<OpKernel>& table);                    // LRN
void add_nn_mean_variance_normalization_kernels(std::vector<OpKernel>& table);
void add_nn_lp_normalization_kernels(std::vector<OpKernel>& table);       // LpNormalization
void add_nn_global_pool_kernels(std::vector<OpKernel>& table);            // GlobalMaxPool GlobalLpPool
void add_nn_lp_pool_kernels(std::vector<OpKernel>& table);                // LpPool
void add_nn_max_unpool_kernels(std::vector<OpKernel>& table);             // MaxUnpool
void add_nn_roi_align_kernels(std::vector<OpKernel>& table);              // RoiAlign
void add_nn_max_roi_pool_kernels(std::vector<OpKernel>& table);           // MaxRoiPool
void add_nn_grid_sample_kernels(std::vector<OpKernel>& table);            // GridSample
void add_nn_dropout_kernels(std::vector<OpKernel>& table);                // Dropout
void add_nn_col2im_kernels(std::vector<OpKernel>& table);                 // Col2Im
void add_nn_group_normalization_kernels(std::vector<OpKernel>& table);    // GroupNormalization
void add_nn_rms_normalization_kernels(std::vector<OpKernel>& table);      // RMSNormalization
void add_nn_rotary_embedding_kernels(std::vector<OpKernel>& table);       // RotaryEmbedding
void add_nn_affine_grid_kernels(std::vector<OpKernel>& table);            // AffineGrid
void add_nn_attention_kernels(std::vector<OpKernel>& table);              // Attention
void add_nn_deform_conv_kernels(std::vector<OpKernel>& table);            // DeformConv

}  // namespace ge::cpu_kernels

namespace ge::cpu_kernels::nn {

/// Launch code of nn kernels whose index data (MaxUnpool's indices, RoiAlign's batch
/// indices) point outside the tensor they index: the library's code.
inline constexpr int kKernelIndexOutOfRange = cpu_kernels::kKernelIndexOutOfRange;

}  // namespace ge::cpu_kernels::nn
