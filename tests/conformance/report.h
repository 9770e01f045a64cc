#pragma once
/// Formats conformance results: per-op tables, closing count lines and the comparison with
/// the expected-failures list.

#include <string>
#include <vector>

#include "expectations.h"
#include "test_case.h"

namespace ge::conformance {

struct CaseResult {
  const TestCase* test_case = nullptr;
  bool passed = false;
  std::string reason;  ///< one line; empty when passed
  double seconds = 0;
};

/// The table for one category (rows by table key, sorted; passed and failed counts) and
/// the closing line "<category>: N passed, M failed". `results` are that category's.
std::string format_category_report(const std::string& category, const std::vector<CaseResult>& results);

/// Results set against the list: failures it does not name, and listed cases that passed.
struct ExpectationCheck {
  std::vector<const CaseResult*> unexpected_failures;
  std::vector<const CaseResult*> newly_passing;
};
ExpectationCheck check_expectations(const std::vector<CaseResult>& results, const ExpectedFailures& expected);

}  // namespace ge::conformance
