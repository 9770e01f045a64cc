#pragma once
// The math family's registration functions, one per source file that adds ops to the
// kernel table; math/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_binary_elementwise_kernels(std::vector<OpKernel>& table);  // Add Sub Mul Div
void add_unary_activation_kernels(std::vector<OpKernel>& table);    // Relu Sigmoid Tanh and the other activations

}  // namespace ge::reference_kernels

namespace ge::reference_kernels::math {

void add_unary_math_kernels(std::vector<OpKernel>& table);  // Neg Abs Exp ... Erf IsNaN IsInf Not BitwiseNot
void add_compare_kernels(std::vector<OpKernel>& table);     // Less Greater Equal LessOrEqual GreaterOrEqual
void add_logical_kernels(std::vector<OpKernel>& table);     // And Or Xor BitShift BitwiseAnd/Or/Xor
void add_pow_kernels(std::vector<OpKernel>& table);         // Pow
void add_mod_kernels(std::vector<OpKernel>& table);         // Mod
void add_prelu_kernels(std::vector<OpKernel>& table);       // PRelu
void add_variadic_kernels(std::vector<OpKernel>& table);    // Sum Mean Min Max
void add_clip_kernels(std::vector<OpKernel>& table);        // Clip
void add_where_kernels(std::vector<OpKernel>& table);       // Where
void add_cast_kernels(std::vector<OpKernel>& table);        // Cast CastLike

}  // namespace ge::reference_kernels::math
