#include "report.h"

#include <gtest/gtest.h>

namespace ge::conformance {
namespace {

TestCase make_case(std::string category, std::string name, std::string key) {
  TestCase test_case;
  test_case.category = std::move(category);
  test_case.name = std::move(name);
  test_case.table_key = std::move(key);
  return test_case;
}

TEST(ReportTest, TableGroupsByKeyAndCloses) {
  const TestCase abs1 = make_case("node", "test_abs", "Abs");
  const TestCase add1 = make_case("node", "test_add", "Add");
  const TestCase add2 = make_case("node", "test_add_bcast", "Add");
  const std::vector<CaseResult> results = {
      {&add1, true, "", 0}, {&abs1, false, "no kernel", 0}, {&add2, false, "mismatch", 0}};
  EXPECT_EQ(format_category_report("node", results),
            "  op   passed  failed\n"
            "  Abs       0       1\n"
            "  Add       1       1\n"
            "node: 1 passed, 2 failed\n");
}

TEST(ReportTest, OtherCategoriesListCases) {
  const TestCase gradient = make_case("simple", "test_gradient", "test_gradient");
  EXPECT_EQ(format_category_report("simple", {{&gradient, true, "", 0}}),
            "  case           passed  failed\n"
            "  test_gradient       1       0\n"
            "simple: 1 passed, 0 failed\n");
}

TEST(ReportTest, CheckFindsUnexpectedFailuresAndNewlyPassing) {
  const TestCase a = make_case("node", "a", "A");
  const TestCase b = make_case("node", "b", "B");
  const TestCase c = make_case("node", "c", "C");
  const TestCase d = make_case("node", "d", "D");
  const std::vector<CaseResult> results = {{&a, false, "x", 0},  // listed, still failing
                                           {&b, true, "", 0},    // listed, now passing
                                           {&c, false, "y", 0},  // not listed: unexpected
                                           {&d, true, "", 0}};   // not listed, passing
  const ExpectedFailures expected = {{"node/a", "x"}, {"node/b", "z"}};
  const ExpectationCheck check = check_expectations(results, expected);
  ASSERT_EQ(check.unexpected_failures.size(), 1u);
  EXPECT_EQ(check.unexpected_failures[0]->test_case->id(), "node/c");
  ASSERT_EQ(check.newly_passing.size(), 1u);
  EXPECT_EQ(check.newly_passing[0]->test_case->id(), "node/b");
}

}  // namespace
}  // namespace ge::conformance
