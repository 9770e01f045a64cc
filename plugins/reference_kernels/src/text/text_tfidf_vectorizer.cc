// TfIdfVectorizer (opset 9). Counts, per row of X ([C] or [N, C]; int32, int64 or
// string tokens), the n-grams of the pool: an n-gram starting at position i with skip s
// is the tokens at i, i+(s+1), ..., i+(n-1)(s+1), for s in [0, max_skip_count] and n in
// [min_gram_length, max_gram_length]; unigrams are counted once per position, whatever
// the skip. The pool holds the n-grams by length: ngram_counts[n-1] is where the n-grams
// start in pool_int64s / pool_strings; the k-th n-gram of the whole pool (in pool order)
// goes to output column ngram_indexes[k] with weight weights[k] (1 when absent):
// TF writes the count, IDF the weight when the count is positive, TFIDF count * weight.
// Output float32 [max(ngram_indexes) + 1] or [N, that].

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "text/registration.h"

namespace ge::reference_kernels::special {
namespace {

enum class Weighting { kTf, kIdf, kTfIdf };

// One n-gram of the pool: where its tokens start in the pool and its pool ordinal.
struct PoolEntry {
  int64_t offset = 0;
  int64_t ordinal = 0;
};

struct TfIdfParams {
  Weighting weighting = Weighting::kTf;
  int64_t min_gram = 1;
  int64_t max_gram = 1;
  int64_t max_skip = 0;
  bool string_tokens = false;
  DataType input_dtype = DataType::kInt64;
  std::vector<int64_t> pool_ints;
  std::vector<std::string> pool_strings;
  // by_length[n-1]: the pool's n-grams sorted by their tokens, for binary search.
  std::vector<std::vector<PoolEntry>> by_length;
  std::vector<int64_t> ngram_indexes;  // by ordinal
  std::vector<float> weights;          // by ordinal; empty: all 1
  int64_t rows = 1;
  int64_t columns = 0;  // tokens per row
  int64_t width = 0;    // output columns
};

// Three-way comparison of input token `position` of the row with pool token `index`.
int compare_token(const TfIdfParams& p, const void* row, int64_t position, int64_t index) {
  if (p.string_tokens) {
    const int result = static_cast<const std::string*>(row)[position].compare(p.pool_strings[static_cast<size_t>(index)]);
    return result < 0 ? -1 : result > 0 ? 1 : 0;
  }
  const int64_t token = load_index(row, p.input_dtype, position);
  const int64_t pooled = p.pool_ints[static_cast<size_t>(index)];
  return token < pooled ? -1 : token > pooled ? 1 : 0;
}

// Ordinal of the n-gram at positions start, start+gap, ... of `row`, or -1 when not pooled.
int64_t find_ngram(const TfIdfParams& p, const void* row, int64_t n, int64_t start, int64_t gap) {
  const std::vector<PoolEntry>& entries = p.by_length[static_cast<size_t>(n - 1)];
  size_t low = 0, high = entries.size();
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    int order = 0;
    for (int64_t k = 0; k < n && order == 0; ++k) {
      order = compare_token(p, row, start + k * gap, entries[middle].offset + k);
    }
    if (order == 0) return entries[middle].ordinal;
    if (order < 0) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return -1;
}

int tfidf_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const TfIdfParams*>(args.params);
  const auto* x = static_cast<const unsigned char*>(args.inputs[0]);
  auto* y = static_cast<float*>(args.outputs[0]);
  if (y == nullptr || (x == nullptr && p.rows * p.columns > 0)) return kKernelMissingAddress;
  const size_t ordinals = p.ngram_indexes.size();
  if (ordinals > 0 && args.workspace == nullptr) return kKernelMissingAddress;
  auto* counts = static_cast<int64_t*>(args.workspace);
  const size_t token_size = element_size(p.input_dtype);
  // The pool has no n-grams longer than its levels, and no gap of a row's length or more
  // fits two tokens: a max_gram_length or max_skip_count near 2^63 loops no further (an
  // empty level per length up to max_gram_length was allocated: std::bad_alloc after 30 s).
  const int64_t max_gram = std::min<int64_t>(p.max_gram, static_cast<int64_t>(p.by_length.size()));
  const int64_t max_gap = std::min<int64_t>(p.max_skip, p.columns) + 1;
  for (int64_t r = 0; r < p.rows; ++r) {
    const void* row = x + static_cast<size_t>(r * p.columns) * token_size;
    std::fill(counts, counts + ordinals, int64_t{0});
    for (int64_t start = 0; start < p.columns; ++start) {
      for (int64_t gap = 1; gap <= max_gap; ++gap) {
        for (int64_t n = 1; n <= max_gram; ++n) {
          if (start + (n - 1) * gap >= p.columns) break;
          if (n < p.min_gram || (n == 1 && gap > 1)) continue;
          const int64_t ordinal = find_ngram(p, row, n, start, gap);
          if (ordinal >= 0) ++counts[ordinal];
        }
      }
    }
    float* out = y + r * p.width;
    std::fill(out, out + p.width, 0.0f);
    for (size_t k = 0; k < ordinals; ++k) {
      if (counts[k] == 0) continue;
      const float weight = p.weights.empty() ? 1.0f : p.weights[k];
      const float count = static_cast<float>(counts[k]);
      const float value = p.weighting == Weighting::kTf    ? count
                          : p.weighting == Weighting::kIdf ? weight
                                                           : count * weight;
      out[p.ngram_indexes[k]] += value;
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_tfidf(const KernelContext& context) {
  TfIdfParams p;
  p.input_dtype = input_dtype(context, 0);
  p.string_tokens = p.input_dtype == DataType::kString;
  GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", ""));
  if (mode == "TF") {
    p.weighting = Weighting::kTf;
  } else if (mode == "IDF") {
    p.weighting = Weighting::kIdf;
  } else if (mode == "TFIDF") {
    p.weighting = Weighting::kTfIdf;
  } else {
    return invalid_attribute(context, "mode", "is '" + mode + "'; expected TF, IDF or TFIDF");
  }
  GE_ASSIGN_OR_RETURN(p.min_gram, int_attribute(context, "min_gram_length", 0));
  GE_ASSIGN_OR_RETURN(p.max_gram, int_attribute(context, "max_gram_length", 0));
  GE_ASSIGN_OR_RETURN(p.max_skip, int_attribute(context, "max_skip_count", 0));
  if (p.min_gram < 1 || p.max_gram < p.min_gram) {
    return invalid_attribute(context, "min_gram_length", "and max_gram_length must satisfy 1 <= min <= max");
  }
  if (p.max_skip < 0) return invalid_attribute(context, "max_skip_count", "must not be negative");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> ngram_counts, ints_attribute(context, "ngram_counts", {}));
  GE_ASSIGN_OR_RETURN(p.ngram_indexes, ints_attribute(context, "ngram_indexes", {}));
  int64_t pool_size = 0;
  if (p.string_tokens) {
    const Attribute* pool = context.node.attribute("pool_strings");
    if (pool == nullptr || !pool->holds<std::vector<std::string>>()) {
      return invalid_attribute(context, "pool_strings", "must be a list of strings for string input");
    }
    p.pool_strings = pool->get<std::vector<std::string>>();
    pool_size = static_cast<int64_t>(p.pool_strings.size());
  } else {
    if (p.input_dtype != DataType::kInt32 && p.input_dtype != DataType::kInt64) {
      const DataType supported[] = {DataType::kString, DataType::kInt32, DataType::kInt64};
      return unsupported_dtype(context, p.input_dtype, supported);
    }
    GE_ASSIGN_OR_RETURN(p.pool_ints, ints_attribute(context, "pool_int64s", {}));
    pool_size = static_cast<int64_t>(p.pool_ints.size());
  }
  if (const Attribute* weights = context.node.attribute("weights")) {
    if (!weights->holds<std::vector<float>>()) return invalid_attribute(context, "weights", "must be a list of floats");
    p.weights = weights->get<std::vector<float>>();
  }

  // Split the pool into n-gram levels and give every n-gram its ordinal.
  int64_t ordinal = 0;
  for (size_t level = 0; level < ngram_counts.size(); ++level) {
    const int64_t n = static_cast<int64_t>(level) + 1;
    const int64_t begin = ngram_counts[level];
    const int64_t end = level + 1 < ngram_counts.size() ? ngram_counts[level + 1] : pool_size;
    if (begin < 0 || end < begin || end > pool_size || (end - begin) % n != 0) {
      return invalid_attribute(context, "ngram_counts",
                               "entry " + std::to_string(level) + " does not delimit whole " + std::to_string(n) +
                                   "-grams of the pool of " + std::to_string(pool_size));
    }
    std::vector<PoolEntry> entries;
    for (int64_t offset = begin; offset < end; offset += n) entries.push_back({offset, ordinal++});
    auto less = [&p, n](const PoolEntry& a, const PoolEntry& b) {
      for (int64_t k = 0; k < n; ++k) {
        const size_t i = static_cast<size_t>(a.offset + k), j = static_cast<size_t>(b.offset + k);
        if (p.string_tokens ? p.pool_strings[i] != p.pool_strings[j] : p.pool_ints[i] != p.pool_ints[j]) {
          return p.string_tokens ? p.pool_strings[i] < p.pool_strings[j] : p.pool_ints[i] < p.pool_ints[j];
        }
      }
      return false;
    };
    std::stable_sort(entries.begin(), entries.end(), less);
    p.by_length.push_back(std::move(entries));
  }
  if (static_cast<int64_t>(p.ngram_indexes.size()) != ordinal) {
    return invalid_attribute(context, "ngram_indexes",
                             "has " + std::to_string(p.ngram_indexes.size()) + " entries but the pool holds " +
                                 std::to_string(ordinal) + " n-grams");
  }
  if (!p.weights.empty() && p.weights.size() != p.ngram_indexes.size()) {
    return invalid_attribute(context, "weights", "must have one entry per n-gram of the pool");
  }

  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  if (dims.empty() || dims.size() > 2) {
    return invalid_node(context, "input 0 must be [C] or [N, C], got " + shape_to_string(dims));
  }
  p.rows = dims.size() == 2 ? dims[0] : 1;
  p.columns = dims.back();
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != dims.size() || (dims.size() == 2 && out_dims[0] != p.rows)) {
    return invalid_node(context, "output 0 has shape " + shape_to_string(out_dims) + " for input " +
                                     shape_to_string(dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kFloat32, out_dims));
  p.width = out_dims.back();
  for (int64_t index : p.ngram_indexes) {
    if (index < 0 || index >= p.width) {
      return invalid_attribute(context, "ngram_indexes",
                               "holds " + std::to_string(index) + ", outside the " + std::to_string(p.width) +
                                   " output columns");
    }
  }
  const size_t workspace = p.ngram_indexes.size() * sizeof(int64_t);
  return make_kernel(context, &tfidf_kernel, std::move(p), workspace);
}

}  // namespace

void add_tfidf_vectorizer_kernels(std::vector<OpKernel>& table) {
  table.push_back({"TfIdfVectorizer", {DataType::kString, DataType::kInt32, DataType::kInt64}, &prepare_tfidf});
}

}  // namespace ge::reference_kernels::special
