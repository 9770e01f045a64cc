#include "expectations.h"

#include <gtest/gtest.h>

#include <string>

namespace ge::conformance {
namespace {

TEST(ExpectationsTest, ParsesEntriesCommentsAndBlankLines) {
  const std::string text =
      "# header\n"
      "\n"
      "node/test_abs  # no kernel for Abs # really\n"
      "  simple/test_gradient   \n";
  Result<ExpectedFailures> parsed = parse_expected_failures(text, "list.txt");
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ(parsed->at("node/test_abs"), "no kernel for Abs # really");
  EXPECT_EQ(parsed->at("simple/test_gradient"), "");
}

TEST(ExpectationsTest, RejectsIdWithoutCategory) {
  Result<ExpectedFailures> parsed = parse_expected_failures("# c\ntest_abs  # x\n", "list.txt");
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().message(), "list.txt:2: case id 'test_abs' is not of the form <category>/<case>");
}

TEST(ExpectationsTest, RejectsDuplicate) {
  Result<ExpectedFailures> parsed = parse_expected_failures("node/a # x\nnode/a # y\n", "list.txt");
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().message(), "list.txt:2: 'node/a' is listed twice");
}

TEST(ExpectationsTest, RejectsReasonWithoutHash) {
  Result<ExpectedFailures> parsed = parse_expected_failures("node/a no kernel\n", "list.txt");
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().message(), "list.txt:1: expected '<category>/<case>  # reason', got 'node/a no kernel'");
}

TEST(ExpectationsTest, FormatRoundTripsSorted) {
  const ExpectedFailures failures = {{"simple/b", "why b"}, {"node/a", "why a"}};
  const std::string text = format_expected_failures(failures);
  EXPECT_NE(text.find("node/a  # why a\nsimple/b  # why b\n"), std::string::npos) << text;
  Result<ExpectedFailures> parsed = parse_expected_failures(text, "formatted");
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  EXPECT_EQ(*parsed, failures);
}

TEST(ExpectationsTest, MergeReplacesRunCasesKeepsOthersDropsStale) {
  const ExpectedFailures existing = {{"node/a", "old a"},     // run, now passing: dropped
                                     {"node/b", "old b"},     // run, still failing: new reason
                                     {"node/gone", "stale"},  // whole category run, no such case
                                     {"simple/s", "kept"}};   // category not run
  const ExpectedFailures failures = {{"node/b", "new b"}, {"node/c", "new c"}};
  const ExpectedFailures merged =
      merge_run_into_expectations(existing, {"node/a", "node/b", "node/c"}, {"node"}, failures);
  EXPECT_EQ(merged, (ExpectedFailures{{"node/b", "new b"}, {"node/c", "new c"}, {"simple/s", "kept"}}));
  // With a filter no category is whole: unrelated entries stay.
  const ExpectedFailures filtered = merge_run_into_expectations(existing, {"node/a"}, {}, {});
  EXPECT_EQ(filtered, (ExpectedFailures{{"node/b", "old b"}, {"node/gone", "stale"}, {"simple/s", "kept"}}));
}

TEST(ExpectationsTest, OneLineReasonTakesFirstNonEmptyLine) {
  EXPECT_EQ(one_line_reason("\n  first line\t here \nsecond"), "first line  here");
  EXPECT_EQ(one_line_reason(""), "");
}

TEST(ExpectationsTest, OneLineReasonCapsLengthWithoutSplittingUtf8) {
  const std::string long_ascii(300, 'x');
  EXPECT_EQ(one_line_reason(long_ascii), std::string(197, 'x') + "...");
  // "é" is two bytes, so byte 197 (where the cut would fall) is the middle of one.
  std::string accented;
  for (int i = 0; i < 150; ++i) accented += "\xC3\xA9";
  std::string expected;
  for (int i = 0; i < 98; ++i) expected += "\xC3\xA9";
  EXPECT_EQ(one_line_reason(accented), expected + "...");
}

}  // namespace
}  // namespace ge::conformance
