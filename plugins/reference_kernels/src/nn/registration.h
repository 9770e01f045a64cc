#pragma once
// The nn family's registration functions, one per source file that adds ops to the
// kernel table; nn/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_conv_kernels(std::vector<OpKernel>& table);                 // Conv
void add_gemm_kernels(std::vector<OpKernel>& table);                 // Gemm
void add_matmul_kernels(std::vector<OpKernel>& table);               // MatMul
void add_softmax_kernels(std::vector<OpKernel>& table);              // Softmax LogSoftmax Hardmax
void add_nn_resize_kernels(std::vector<OpKernel>& table);            // Resize Upsample
void add_nn_conv_transpose_kernels(std::vector<OpKernel>& table);    // ConvTranspose
void add_nn_deform_conv_kernels(std::vector<OpKernel>& table);       // DeformConv
void add_nn_col2im_kernels(std::vector<OpKernel>& table);            // Col2Im
void add_nn_grid_sample_kernels(std::vector<OpKernel>& table);       // GridSample
void add_nn_affine_grid_kernels(std::vector<OpKernel>& table);       // AffineGrid
void add_nn_attention_kernels(std::vector<OpKernel>& table);         // Attention
void add_nn_rotary_embedding_kernels(std::vector<OpKernel>& table);  // RotaryEmbedding
void add_nn_dropout_kernels(std::vector<OpKernel>& table);           // Dropout

}  // namespace ge::reference_kernels
