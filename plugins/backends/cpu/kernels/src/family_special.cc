// The special-purpose kernel families, one registration per file: recurrent layers
// (recurrent_*), losses (loss_*), detection (detection_*), signal processing (signal_*),
// text (text_*), training optimizers (optimizer_*) and random generators (random_*); see
// special_kernels.h.
#include "op_kernels.h"
#include "special_kernels.h"

namespace ge::cpu_kernels {

void add_special_family_kernels(std::vector<OpKernel>& table) {
  special::add_recurrent_kernels(table);
  special::add_loss_kernels(table);
  special::add_non_max_suppression_kernels(table);
  special::add_fourier_kernels(table);
  special::add_window_kernels(table);
  special::add_string_normalizer_kernels(table);
  special::add_tfidf_vectorizer_kernels(table);
  special::add_string_concat_kernels(table);
  special::add_string_split_kernels(table);
  special::add_regex_full_match_kernels(table);
  special::add_optimizer_kernels(table);
  special::add_random_kernels(table);
}

}  // namespace ge::cpu_kernels
