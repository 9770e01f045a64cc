#pragma once
// The fused family's registration functions, one per source file that adds ops to the
// kernel table; fused/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

void add_fused_kernels(std::vector<OpKernel>& table);  // ge::FusedConv ge::FusedGemm ge::FusedMatMul ge::Gelu ... (and
                                                       // LayerNormalization unless a family has it)
void add_autofuse_kernels(std::vector<OpKernel>& table);  // ge_autofuse::Fused, interpreted

}  // namespace ge::reference_kernels
