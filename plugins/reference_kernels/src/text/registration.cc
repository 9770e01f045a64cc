// The text family: strings.
#include "text/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_text_family_kernels(std::vector<OpKernel>& table) {
  special::add_string_normalizer_kernels(table);
  special::add_tfidf_vectorizer_kernels(table);
  special::add_string_concat_kernels(table);
  special::add_string_split_kernels(table);
  special::add_regex_full_match_kernels(table);
}

}  // namespace ge::reference_kernels
