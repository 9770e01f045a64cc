#pragma once
// The quantization family's registration functions, one per source file that adds ops to the
// kernel table; quantization/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_nn_quantize_kernels(std::vector<OpKernel>& table);          // (De)QuantizeLinear DynamicQuantizeLinear
void add_nn_quantized_conv_kernels(std::vector<OpKernel>& table);    // ConvInteger QLinearConv
void add_nn_quantized_matmul_kernels(std::vector<OpKernel>& table);  // MatMulInteger QLinearMatMul
void add_nn_quantized_add_kernels(std::vector<OpKernel>& table);     // ge::QLinearAdd

}  // namespace ge::reference_kernels
