#pragma once
// The math kernel family's registration functions, one per file; family_math.cc calls
// them all (see op_kernels.h). Add/Sub/Mul/Div and the activations are registered by
// binary_elementwise.cc and unary_activation.cc, which share this family's engines.

#include <vector>

#include "op_kernels.h"

namespace ge::cpu_kernels::math {

void add_unary_math_kernels(std::vector<OpKernel>& table);  // Neg Abs Exp ... Erf IsNaN IsInf Not BitwiseNot
void add_compare_kernels(std::vector<OpKernel>& table);     // Less Greater Equal LessOrEqual GreaterOrEqual
void add_logical_kernels(std::vector<OpKernel>& table);     // And Or Xor BitShift BitwiseAnd/Or/Xor
void add_pow_kernels(std::vector<OpKernel>& table);
void add_mod_kernels(std::vector<OpKernel>& table);
void add_prelu_kernels(std::vector<OpKernel>& table);
void add_variadic_kernels(std::vector<OpKernel>& table);  // Sum Mean Min Max
void add_clip_kernels(std::vector<OpKernel>& table);
void add_where_kernels(std::vector<OpKernel>& table);
void add_cast_kernels(std::vector<OpKernel>& table);  // Cast CastLike

}  // namespace ge::cpu_kernels::math
