// The sequence kernel family: recurrent layers, losses, signal processing, text,
// training optimizers and random generators (see sequence_kernels.h).
#include "op_kernels.h"
#include "sequence_kernels.h"

namespace ge::cpu_kernels {

void add_sequence_family_kernels(std::vector<OpKernel>& table) {
  sequence::add_recurrent_kernels(table);
  sequence::add_loss_kernels(table);
  sequence::add_non_max_suppression_kernels(table);
  sequence::add_fourier_kernels(table);
  sequence::add_window_kernels(table);
  sequence::add_string_normalizer_kernels(table);
  sequence::add_tfidf_vectorizer_kernels(table);
  sequence::add_string_concat_kernels(table);
  sequence::add_string_split_kernels(table);
  sequence::add_regex_full_match_kernels(table);
  sequence::add_optimizer_kernels(table);
  sequence::add_random_kernels(table);
}

}  // namespace ge::cpu_kernels
