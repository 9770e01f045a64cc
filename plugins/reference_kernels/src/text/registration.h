#pragma once
// The text family's registration functions, one per source file that adds ops to the
// kernel table; text/registration.cc calls them all.

#include <vector>

#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::special {

void add_string_normalizer_kernels(std::vector<OpKernel>& table);  // StringNormalizer
void add_tfidf_vectorizer_kernels(std::vector<OpKernel>& table);   // TfIdfVectorizer
void add_string_concat_kernels(std::vector<OpKernel>& table);      // StringConcat
void add_string_split_kernels(std::vector<OpKernel>& table);       // StringSplit
void add_regex_full_match_kernels(std::vector<OpKernel>& table);   // RegexFullMatch (RE2)

}  // namespace ge::reference_kernels::special
