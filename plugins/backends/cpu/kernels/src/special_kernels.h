#pragma once
// Each file of the special-purpose families (recurrent_*, loss_*, detection_*, signal_*,
// text_*, optimizer_*, random_*) adds its ops through one of these; family_special.cc
// calls them all.

#include <vector>

#include "kernel_util.h"

namespace ge::cpu_kernels::special {

void add_recurrent_kernels(std::vector<OpKernel>& table);  // RNN GRU LSTM
void add_loss_kernels(std::vector<OpKernel>& table);       // SoftmaxCrossEntropyLoss NegativeLogLikelihoodLoss
void add_non_max_suppression_kernels(std::vector<OpKernel>& table);
void add_fourier_kernels(std::vector<OpKernel>& table);  // DFT STFT
void add_window_kernels(std::vector<OpKernel>& table);   // HannWindow HammingWindow BlackmanWindow MelWeightMatrix
void add_string_normalizer_kernels(std::vector<OpKernel>& table);
void add_tfidf_vectorizer_kernels(std::vector<OpKernel>& table);
void add_string_concat_kernels(std::vector<OpKernel>& table);     // StringConcat
void add_string_split_kernels(std::vector<OpKernel>& table);      // StringSplit
void add_regex_full_match_kernels(std::vector<OpKernel>& table);  // RegexFullMatch (RE2)
void add_optimizer_kernels(std::vector<OpKernel>& table);  // ai.onnx.preview.training Adagrad Adam Momentum
void add_random_kernels(std::vector<OpKernel>& table);     // Random*, Bernoulli, Multinomial

}  // namespace ge::cpu_kernels::special
