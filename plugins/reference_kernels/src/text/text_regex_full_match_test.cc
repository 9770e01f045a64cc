// RegexFullMatch kernel tests: ONNX's backend cases (RE2 syntax) and pattern errors.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Tensor bools(std::vector<int64_t> dims, std::vector<uint8_t> values) {
  std::vector<bool> flags(values.begin(), values.end());
  Tensor t = Tensor::zeros(F::kBool, std::move(dims));
  for (size_t i = 0; i < flags.size(); ++i) t.data<bool>()[i] = flags[i];
  return t;
}

void expect_bools(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), F::kBool);
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    EXPECT_EQ(actual.data<bool>()[i], expected.data<bool>()[i]) << "element " << i;
  }
}

TEST(RegexFullMatchKernel, OnnxBasicAndEmailCases) {
  KernelTest basic("RegexFullMatch", 20);
  basic.input(Tensor::from_strings({3}, {"www.google.com", "www.facebook.com", "www.bbc.co.uk"}))
      .attribute("pattern", std::string(R"(www\.[\w.-]+\.\bcom\b)"))
      .output(F::kBool, {3});
  GE_RUN_KERNEL(out, basic);
  expect_bools(out[0], bools({3}, {1, 1, 0}));

  KernelTest email("RegexFullMatch", 20);
  email.input(Tensor::from_strings({2, 2}, {"account@gmail.com", "account@hotmail.com", "not email",
                                            "account2@yahoo.com"}))
      .attribute("pattern", std::string(R"((\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$))"))
      .output(F::kBool, {2, 2});
  GE_RUN_KERNEL(matched, email);
  expect_bools(matched[0], bools({2, 2}, {1, 0, 0, 1}));
}

TEST(RegexFullMatchKernel, MatchesTheWholeStringAsUtf8) {
  KernelTest test("RegexFullMatch", 20);
  test.input(Tensor::from_strings({4}, {"abc", "xabc", "", "中文"}))
      .attribute("pattern", std::string("a?bc|.."))
      .output(F::kBool, {4});
  GE_RUN_KERNEL(out, test);
  // "中文" is two code points: ".." matches it.
  expect_bools(out[0], bools({4}, {1, 0, 0, 1}));
  KernelTest empty("RegexFullMatch", 20);
  empty.input(Tensor::from_strings({2, 0}, {})).attribute("pattern", std::string("a")).output(F::kBool, {2, 0});
  GE_RUN_KERNEL(none, empty);
  EXPECT_EQ(none[0].element_count(), 0);
}

TEST(RegexFullMatchKernel, AnInvalidOrMissingPatternIsAnAttributeError) {
  KernelTest bad("RegexFullMatch", 20);
  bad.input(Tensor::from_strings({1}, {"a"})).attribute("pattern", std::string("a(b")).output(F::kBool, {1});
  Result<PreparedKernel> kernel = bad.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("'a(b' is not a valid RE2 pattern: missing )"), std::string::npos)
      << kernel.status().message();
  // Lookahead is Python re syntax, not RE2's.
  KernelTest python("RegexFullMatch", 20);
  python.input(Tensor::from_strings({1}, {"a"})).attribute("pattern", std::string("a(?=b)")).output(F::kBool, {1});
  EXPECT_FALSE(python.prepare().is_ok());
  KernelTest missing("RegexFullMatch", 20);
  missing.input(Tensor::from_strings({1}, {"a"})).output(F::kBool, {1});
  kernel = missing.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("'pattern'"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
