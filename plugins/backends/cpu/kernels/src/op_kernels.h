#pragma once
// Each op file adds its OpKernel entries to the library's table through one of these.

#include <vector>

#include "kernel_util.h"

namespace ge::cpu_kernels {

void add_conv_kernels(std::vector<OpKernel>& table);
void add_gemm_kernels(std::vector<OpKernel>& table);
void add_matmul_kernels(std::vector<OpKernel>& table);
void add_binary_elementwise_kernels(std::vector<OpKernel>& table);  // Add Sub Mul Div
void add_unary_activation_kernels(std::vector<OpKernel>& table);    // Relu Sigmoid Tanh
void add_max_pool_kernels(std::vector<OpKernel>& table);
void add_average_pool_kernels(std::vector<OpKernel>& table);
void add_global_average_pool_kernels(std::vector<OpKernel>& table);
void add_batch_normalization_kernels(std::vector<OpKernel>& table);
void add_copy_kernels(std::vector<OpKernel>& table);  // Reshape Flatten Identity
void add_transpose_kernels(std::vector<OpKernel>& table);
void add_concat_kernels(std::vector<OpKernel>& table);
void add_softmax_kernels(std::vector<OpKernel>& table);

// Kernel families for the full ONNX op set. Each family owns its files
// (family_<name>*.cc) and registers every op it implements here. An entry whose
// `dtypes` list is empty accepts any input dtype: its prepare() checks and returns
// kUnsupported itself (for ops selected by an attribute or a later input).
void add_math_family_kernels(std::vector<OpKernel>& table);    // elementwise math, compare, logic, Cast, Clip
void add_tensor_family_kernels(std::vector<OpKernel>& table);  // indexing, shape, reductions, Pad, TopK, ...
void add_nn_family_kernels(std::vector<OpKernel>& table);      // NN layers, Resize, quantization, pooling extras
// RNN/GRU/LSTM, losses, NMS, signal, text, training optimizers, random (family_special.cc)
void add_special_family_kernels(std::vector<OpKernel>& table);

// The "ge" domain's fused ops (keyed "ge::FusedConv", ...) and, unless a family has it,
// LayerNormalization. Called last.
void add_fused_kernels(std::vector<OpKernel>& table);
void add_trans_data_kernels(std::vector<OpKernel>& table);  // ge::TransData (format reorders)
void add_autofuse_kernels(std::vector<OpKernel>& table);    // ge_autofuse::Fused, interpreted

}  // namespace ge::cpu_kernels
