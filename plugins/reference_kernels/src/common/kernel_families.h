#pragma once
// The kernel families, one folder each under src/: each registers the ops of its files
// through one function, and the library's kernel table (kernel_library.cc) is these,
// in this order. An entry whose `dtypes` list is empty accepts any input dtype: its
// prepare() checks and returns kUnsupported itself (ops selected by an attribute or a
// later input).

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels {

/// Elementwise arithmetic and activations, comparison, logic, Cast, Clip, Where.
void add_math_family_kernels(std::vector<OpKernel>& table);
/// Convolutions, matrix products, Softmax, Resize, attention and the other layers.
void add_nn_family_kernels(std::vector<OpKernel>& table);
/// Every pooling op, windowed and global.
void add_pooling_family_kernels(std::vector<OpKernel>& table);
/// The normalisations.
void add_normalization_family_kernels(std::vector<OpKernel>& table);
/// Quantising ops and the integer convolutions and matrix products.
void add_quantization_family_kernels(std::vector<OpKernel>& table);
/// Object detection: box suppression and region pooling.
void add_detection_family_kernels(std::vector<OpKernel>& table);
/// Copies, layout, indexing, shapes, reductions, Pad, TopK, ...
void add_tensor_family_kernels(std::vector<OpKernel>& table);
/// Recurrent layers.
void add_recurrent_family_kernels(std::vector<OpKernel>& table);
/// Losses and training optimizers.
void add_training_family_kernels(std::vector<OpKernel>& table);
/// Random generators.
void add_random_family_kernels(std::vector<OpKernel>& table);
/// Signal processing.
void add_signal_family_kernels(std::vector<OpKernel>& table);
/// Strings.
void add_text_family_kernels(std::vector<OpKernel>& table);
/// GE's fused ops and autofusion's groups, interpreted.
void add_fused_family_kernels(std::vector<OpKernel>& table);

}  // namespace ge::reference_kernels
