// TfIdfVectorizer kernel tests with hand-counted n-grams.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

// Tokens [a b a c]; pool: unigrams a (ordinal 0), c (1); bigram (a b) (2); columns by
// ngram_indexes [2 0 1]. Skips 0-1: a counts 2, c 1, (a b) 1 (gap 2 gives (a a), (b c)).
void add_string_case(KernelTest& test, const char* mode) {
  test.input(Tensor::from_strings({4}, {"a", "b", "a", "c"}))
      .attribute("mode", mode)
      .attribute("min_gram_length", int64_t{1})
      .attribute("max_gram_length", int64_t{2})
      .attribute("max_skip_count", int64_t{1})
      .attribute("ngram_counts", std::vector<int64_t>{0, 2})
      .attribute("ngram_indexes", std::vector<int64_t>{2, 0, 1})
      .attribute("pool_strings", std::vector<std::string>{"a", "c", "a", "b"})
      .attribute("weights", std::vector<float>{0.5f, 2.0f, 3.0f})
      .output(F::kFloat32, {3});
}

TEST(TfIdfVectorizerKernel, StringTokensTf) {
  KernelTest test("TfIdfVectorizer", 9);
  add_string_case(test, "TF");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {1, 1, 2});
}

TEST(TfIdfVectorizerKernel, StringTokensTfIdfWeighsEachPoolNgram) {
  KernelTest test("TfIdfVectorizer", 9);
  add_string_case(test, "TFIDF");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {2, 3, 1});
}

TEST(TfIdfVectorizerKernel, StringTokensIdf) {
  KernelTest test("TfIdfVectorizer", 9);
  add_string_case(test, "IDF");
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {2, 3, 0.5f});
}

TEST(TfIdfVectorizerKernel, Int64BatchWithSkips) {
  // Row [1 2 1 2]: unigram 2 twice, (1 2) at 0 and 2 (gap 1); row [2 2 2 2]: 2 four times.
  KernelTest test("TfIdfVectorizer", 9);
  test.input(i64({2, 4}, {1, 2, 1, 2, 2, 2, 2, 2}))
      .attribute("mode", "TF")
      .attribute("min_gram_length", int64_t{1})
      .attribute("max_gram_length", int64_t{2})
      .attribute("max_skip_count", int64_t{1})
      .attribute("ngram_counts", std::vector<int64_t>{0, 1})
      .attribute("ngram_indexes", std::vector<int64_t>{0, 1})
      .attribute("pool_int64s", std::vector<int64_t>{2, 1, 2})
      .output(F::kFloat32, {2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 2}, {2, 2, 4, 0});
}

TEST(TfIdfVectorizerKernel, PoolNotSplittingIntoWholeNgramsIsInvalid) {
  KernelTest test("TfIdfVectorizer", 9);
  test.input(i32({3}, {1, 2, 3}))
      .attribute("mode", "TF")
      .attribute("min_gram_length", int64_t{2})
      .attribute("max_gram_length", int64_t{2})
      .attribute("ngram_counts", std::vector<int64_t>{0, 0})
      .attribute("ngram_indexes", std::vector<int64_t>{0})
      .attribute("pool_int64s", std::vector<int64_t>{1, 2, 3})
      .output(F::kFloat32, {1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("ngram_counts"), std::string::npos) << kernel.status().message();
}

// Lengths and skips near 2^63 are no longer than the pool's levels and the row: the
// counts of the case above (prepare allocated a pool level per length: std::bad_alloc
// after 30 s).
TEST(TfIdfVectorizerKernel, HugeGramLengthAndSkipCountStopAtThePoolAndTheRow) {
  KernelTest test("TfIdfVectorizer", 9);
  add_string_case(test, "TF");
  test.attribute("max_gram_length", int64_t{1} << 62).attribute("max_skip_count", int64_t{1} << 62);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3}, {1, 1, 2});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
