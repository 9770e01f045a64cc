// StringSplit kernel tests. Expectations from Python's str.split (what
// onnx/reference/ops/op_string_split.py runs) and ONNX's backend cases. KernelTest::run
// fills outputs with 0xFF bytes, which would corrupt std::string objects, so these tests
// launch the prepared kernel on outputs they construct themselves.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

struct Split {
  std::vector<std::string> substrings;  // Y, row-major
  std::vector<int64_t> counts;          // Z
};

// Splits `input` (shape `dims`) into Y of shape dims + [width]; `code` receives the
// kernel's return value.
Result<Split> split(const std::vector<int64_t>& dims, const std::vector<std::string>& input, int64_t width,
                    std::vector<std::pair<std::string, Attribute>> attributes, int* code = nullptr) {
  KernelTest test("StringSplit", 20);
  Tensor x = Tensor::from_strings(dims, input);
  test.input(x);
  for (auto& [name, value] : attributes) test.attribute(name, value);
  std::vector<int64_t> y_dims = dims;
  y_dims.push_back(width);
  test.output(F::kString, y_dims).output(F::kInt64, dims);
  GE_ASSIGN_OR_RETURN(PreparedKernel kernel, test.prepare());
  Tensor y = Tensor::zeros(F::kString, y_dims);
  Tensor z = Tensor::zeros(F::kInt64, dims);
  const void* inputs[] = {x.raw_data()};
  void* outputs[] = {y.raw_data(), z.raw_data()};
  KernelArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  args.params = kernel.params.get();
  const int result = kernel.function(args);
  if (code != nullptr) *code = result;
  if (result != 0) return invalid_argument("kernel returned " + std::to_string(result));
  Split out;
  out.substrings.assign(y.data<std::string>(), y.data<std::string>() + y.element_count());
  out.counts.assign(z.data<int64_t>(), z.data<int64_t>() + z.element_count());
  return out;
}

TEST(StringSplitKernel, DelimiterKeepsEmptySubstringsAndPads) {
  // test_string_split_consecutive_delimiters, with a shorter third row.
  auto out = split({3}, {"o-n-n--x-", "o-n----nx", "a-b"}, 6, {{"delimiter", std::string("-")}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().substrings, (std::vector<std::string>{"o", "n", "n", "", "x", "", "o", "n", "", "", "", "nx",
                                                              "a", "b", "", "", "", ""}));
  EXPECT_EQ(out.value().counts, (std::vector<int64_t>{6, 6, 2}));
}

TEST(StringSplitKernel, MultiCharacterDelimiterAndEmptyString) {
  // "".split("::") == [""]; occurrences do not overlap: ":::".split("::") == ["", ":"].
  auto out = split({3}, {"a::b::c", "", ":::"}, 3, {{"delimiter", std::string("::")}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().substrings, (std::vector<std::string>{"a", "b", "c", "", "", "", "", ":", ""}));
  EXPECT_EQ(out.value().counts, (std::vector<int64_t>{3, 1, 2}));
}

TEST(StringSplitKernel, WhitespaceRunsSplitOnceAndAreTrimmed) {
  // test_string_split_no_delimiter, plus a tab, a no-break space (U+00A0), and a string
  // of only whitespace (no substrings).
  auto out = split({2, 2}, {"  hello   world ! ", "a\tb\xc2\xa0" "c", " \n ", "x"}, 3, {});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().substrings,
            (std::vector<std::string>{"hello", "world", "!", "a", "b", "c", "", "", "", "x", "", ""}));
  EXPECT_EQ(out.value().counts, (std::vector<int64_t>{3, 3, 0, 1}));
  // An empty delimiter is the same as none.
  auto same = split({2, 2}, {"  hello   world ! ", "a\tb\xc2\xa0" "c", " \n ", "x"}, 3, {{"delimiter", std::string()}});
  ASSERT_TRUE(same.is_ok()) << same.status().to_string();
  EXPECT_EQ(same.value().substrings, out.value().substrings);
}

TEST(StringSplitKernel, MaxsplitKeepsTheRestWhole) {
  // test_string_split_maxsplit; the rest loses its trailing whitespace ("c  " -> "c").
  auto out = split({2, 2}, {"hello world", "def.net", "o n n x", " a  b c  "}, 3, {{"maxsplit", int64_t{2}}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().substrings, (std::vector<std::string>{"hello", "world", "", "def.net", "", "", "o", "n", "n x",
                                                              "a", "b", "c"}));
  EXPECT_EQ(out.value().counts, (std::vector<int64_t>{2, 1, 3, 3}));
  auto dots = split({1}, {"a.b.c"}, 1, {{"delimiter", std::string(".")}, {"maxsplit", int64_t{0}}});
  ASSERT_TRUE(dots.is_ok()) << dots.status().to_string();
  EXPECT_EQ(dots.value().substrings, (std::vector<std::string>{"a.b.c"}));
}

TEST(StringSplitKernel, EmptyInputGivesAnEmptyLastAxis) {
  auto out = split({0}, {}, 0, {});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_TRUE(out.value().substrings.empty());
}

TEST(StringSplitKernel, AWidthOtherThanTheLargestCountFailsAtLaunch) {
  int code = 0;
  auto out = split({1}, {"a b c"}, 2, {}, &code);
  EXPECT_FALSE(out.is_ok());
  EXPECT_EQ(code, kKernelRuntimeSizeMismatch);
}

TEST(StringSplitKernel, BadAttributesAndShapesAreRefused) {
  auto negative = split({1}, {"a"}, 1, {{"maxsplit", int64_t{-2}}});
  ASSERT_FALSE(negative.is_ok());
  EXPECT_NE(negative.status().message().find("maxsplit"), std::string::npos) << negative.status().message();

  KernelTest test("StringSplit", 20);
  test.input(Tensor::from_strings({2}, {"a", "b"})).output(F::kString, {3, 1}).output(F::kInt64, {2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("plus one axis"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
