#pragma once
// The training family's registration functions, one per source file that adds ops to the
// kernel table; training/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

void add_loss_kernels(std::vector<OpKernel>& table);       // SoftmaxCrossEntropyLoss NegativeLogLikelihoodLoss
void add_optimizer_kernels(std::vector<OpKernel>& table);  // ai.onnx.preview.training Adagrad Adam Momentum

}  // namespace ge::reference_kernels::special
