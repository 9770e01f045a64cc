// StringNormalizer kernel tests (expectations by hand). KernelTest::run fills outputs
// with 0xFF bytes, which would corrupt std::string objects, so these tests launch the
// prepared kernel on outputs they construct themselves.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

// Runs a StringNormalizer on `input` ([C], or [1, C] when `two_d`) with `attributes`
// into `out_count` strings; returns the output strings or the failure.
Result<std::vector<std::string>> normalize(const std::vector<std::string>& input, size_t out_count,
                                           std::vector<std::pair<std::string, Attribute>> attributes,
                                           bool two_d = false, int* code = nullptr) {
  const int64_t c = static_cast<int64_t>(input.size());
  const int64_t n = static_cast<int64_t>(out_count);
  KernelTest test("StringNormalizer", 10);
  Tensor x = Tensor::from_strings(two_d ? std::vector<int64_t>{1, c} : std::vector<int64_t>{c}, input);
  test.input(x);
  for (auto& [name, value] : attributes) test.attribute(name, value);
  const std::vector<int64_t> out_dims = two_d ? std::vector<int64_t>{1, n} : std::vector<int64_t>{n};
  test.output(F::kString, out_dims);
  GE_ASSIGN_OR_RETURN(PreparedKernel kernel, test.prepare());
  Tensor y = Tensor::zeros(F::kString, out_dims);
  const void* inputs[] = {x.raw_data()};
  void* outputs[] = {y.raw_data()};
  KernelArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  args.params = kernel.params.get();
  const int result = kernel.function(args);
  if (code != nullptr) *code = result;
  if (result != 0) return invalid_argument("kernel returned " + std::to_string(result));
  return std::vector<std::string>(y.data<std::string>(), y.data<std::string>() + n);
}

TEST(StringNormalizerKernel, CaseSensitiveStopwordsAndUpperCase) {
  auto out = normalize({"monday", "tuesday", "Monday", "wednesday"}, 3,
                       {{"stopwords", std::vector<std::string>{"monday"}},
                        {"is_case_sensitive", int64_t{1}},
                        {"case_change_action", "UPPER"}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value(), (std::vector<std::string>{"TUESDAY", "MONDAY", "WEDNESDAY"}));
}

TEST(StringNormalizerKernel, CaseInsensitiveStopwordsOnTwoDims) {
  auto out = normalize({"Monday", "TUESDAY", "mOnDaY", "Grüße"}, 2,
                       {{"stopwords", std::vector<std::string>{"monday"}}, {"case_change_action", "LOWER"}}, true);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value(), (std::vector<std::string>{"tuesday", "grüße"}));
}

TEST(StringNormalizerKernel, NonAsciiUpperCaseUsesTheLocale) {
  auto out = normalize({"straße", "ångström"}, 2, {{"case_change_action", "UPPER"}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  // towupper maps one code point to one: ß has no single upper-case form and stays.
  EXPECT_EQ(out.value(), (std::vector<std::string>{"STRAßE", "ÅNGSTRÖM"}));
}

TEST(StringNormalizerKernel, EverythingRemovedGivesOneEmptyString) {
  auto out = normalize({"monday", "monday"}, 1, {{"stopwords", std::vector<std::string>{"monday"}}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value(), (std::vector<std::string>{""}));
}

TEST(StringNormalizerKernel, KeptCountDisagreeingWithTheOutputFailsAtLaunch) {
  int code = 0;
  auto out = normalize({"a", "b"}, 1, {}, false, &code);
  EXPECT_FALSE(out.is_ok());
  EXPECT_EQ(code, 303);
}

TEST(StringNormalizerKernel, UnknownCaseActionIsInvalid) {
  auto out = normalize({"a"}, 1, {{"case_change_action", "TITLE"}});
  ASSERT_FALSE(out.is_ok());
  EXPECT_NE(out.status().message().find("case_change_action"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
